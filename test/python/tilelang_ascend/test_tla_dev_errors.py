"""Located errors of tilelang-ascend's developer-mode surface on tilec (the T.tile family of
its tilelang/language/ascend_tile.py, T.reduce_*'s real_shape, T.gemm_v0): each mistake, and
each name tilec lacks, is a DSLError at the kernel's line that says what to write."""

from pathlib import Path

import pytest

import tilec.language as T
from tilec.language import DSLError

SOURCE = Path(__file__).read_text().splitlines()


def line_of(marker: str) -> int:
    """The line of this file that holds `marker` (a comment after the offending call)."""
    (line,) = [i + 1 for i, text in enumerate(SOURCE) if text.endswith(f"# {marker}")]
    return line


def build_error(body) -> DSLError:
    """The DSLError of tracing a kernel whose block runs `body(a, b, c, g)` on three
    32 x 64 f32 tiles and the 64 x 64 global tensor G."""

    @T.prim_func
    def main(G: T.Tensor((64, 64), "float32")):
        with T.Kernel(2, threads=2, is_npu=True) as cid:  # noqa: F841 (unused block index)
            a = T.alloc_shared((32, 64), "float32")
            b = T.alloc_shared((32, 64), "float32")
            c = T.alloc_shared((16, 64), "float32")
            body(a, b, c, G)

    with pytest.raises(DSLError) as info:
        main.ir()
    return info.value


def check(error: DSLError, marker: str, *phrases: str) -> None:
    assert error.loc is not None and error.loc.file == __file__, error
    assert error.loc.line == line_of(marker), error
    for phrase in phrases:
        assert phrase in error.message, error.message


def test_a_name_tilec_lacks_says_what_to_write():
    def body(a, b, c, g):
        T.tile.sort(a, b, 64)  # sort

    check(build_error(body), "sort", "T.tile.sort (tilelang-ascend) is not supported",
          "T.Parallel")


def test_an_experimental_name_points_at_the_plain_one():
    def body(a, b, c, g):
        T.tile.sub_experiment(a, a, b, 64)  # experiment

    check(build_error(body), "experiment", "experimental", "T.tile.sub")


def test_an_unknown_name():
    def body(a, b, c, g):
        T.tile.frobnicate(a)  # unknown

    check(build_error(body), "unknown", "tilec.language.tile has no 'frobnicate'")


def test_names_tilec_lacks_are_attribute_errors_too():
    assert not hasattr(T.tile, "sort") and hasattr(T.tile, "add")


def test_operands_of_different_shapes():
    def body(a, b, c, g):
        T.tile.add(a, b, c)  # shapes

    check(build_error(body), "shapes", "src1 ('c', 16x64) must have the shape of dst ('a', 32x64)")


def test_a_global_tensor_is_no_vector_operand():
    def body(a, b, c, g):
        T.tile.exp(a, g)  # global

    check(build_error(body), "global", "global tensor", "T.copy it into a tile")


def test_tile_ops_act_outside_parallel():
    def body(a, b, c, g):
        for i, j in T.Parallel(32, 64):
            a[i, j] = 1.0
            T.tile.fill(b, 0.0)  # in parallel

    check(build_error(body), "in parallel", "T.tile.fill cannot be used inside T.Parallel")


def test_cast_modes():
    def unknown(a, b, c, g):
        T.tile.cast(a, b, "CAST_SIDEWAYS", 32 * 64)  # mode

    check(build_error(unknown), "mode", "mode must be one of CAST_NONE, CAST_RINT")

    def odd_to_int(a, b, c, g):
        i = T.alloc_shared((32, 64), "int32")
        T.tile.cast(i, a, "CAST_ODD", 32 * 64)  # odd

    check(build_error(odd_to_int), "odd", "CAST_ODD from float32 to int32 is not supported",
          "CAST_RINT, CAST_ROUND, CAST_TRUNC, CAST_FLOOR, CAST_CEIL")

    def too_many(a, b, c, g):
        T.tile.cast(a, c, "CAST_NONE", 2048)  # count

    check(build_error(too_many), "count", "count must be a Python int from 1 to 1024, the "
          "elements of dst ('a', 2048) and src ('c', 1024)")


def test_compare_and_select_modes():
    def compare(a, b, c, g):
        T.tile.compare(a, b, 0.0, "BETWEEN")  # compare

    check(build_error(compare), "compare", "mode must be one of EQ, NE, GT, GE, LT, LE")

    def select(a, b, c, g):
        T.tile.select(a, b, a, b, "VSEL_TENSOR_SCALAR_MODE")  # select

    check(build_error(select), "select", "with VSEL_TENSOR_SCALAR_MODE, src1 must be a scalar")


def test_broadcast_needs_a_row_or_a_column():
    def body(a, b, c, g):
        T.tile.broadcast(a, c)  # broadcast

    check(build_error(body), "broadcast", "must be a row (1 x 64) or a column (32 x 1)")


def test_reduce_real_shape():
    def body(a, b, c, g):
        s = T.alloc_shared((32,), "float32")
        T.reduce_sum(a, s, dim=-1, real_shape=[40, 0])  # real shape

    check(build_error(body), "real shape", "real_shape[0] must be a Python int from 0 to 32")

    def keep(a, b, c, g):
        s = T.alloc_shared((32, 2), "float32")
        T.reduce_max(a, s, dim=-1)  # reduce dst

    check(build_error(keep), "reduce dst", "must have shape (32)",
          "(or (32, 1), keeping the reduced dim)")


def test_gemm_v0_init_must_be_a_condition():
    def body(a, b, c, g):
        acc = T.alloc_fragment((32, 32), "float32")
        T.gemm_v0(a, b, acc, transpose_B=True, init="yes")  # init

    check(build_error(body), "init", "T.gemm_v0: init must be a Python bool or a traced")


def test_copy_pad_value_must_be_a_scalar():
    def body(a, b, c, g):
        T.copy(g[0, 0], a, pad_value="-inf")  # pad

    check(build_error(body), "pad", "T.copy: pad_value expects a number or a symbolic value")


def test_copy_enable_relu_needs_a_whole_tile():
    def body(a, b, c, g):
        T.copy(g[0, 0], a, enable_relu=True)  # relu

    check(build_error(body), "relu", "enable_relu needs a whole on-chip tile")
