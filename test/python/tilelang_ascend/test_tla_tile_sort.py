"""tilelang-ascend's sorted selection on tilec: `T.tile.topk` (the K largest of a tile as
interleaved (value, index) pairs, as its TopK template leaves them), `T.tile.gather_mask`
with the fixed patterns that pick the values or the indices out, and `T.tile.cast` to int32
with CAST_ROUND / CAST_RINT and an element count over tiles of other shapes, as the DSA
lightning indexer uses them. Written as its expert-mode kernels write them (a T.Scope("V")
on UB tiles, each AIV on its own row, the author's barriers), run on cpu and in the
simulator on both NPU profiles against numpy, on sizes that are not multiples of the
vector unit's 32-byte blocks or of Sort32's 32 elements, with a count of valid elements and
a K known at run time only (read from a tensor, or a symbolic dim); then the located
errors."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.language import DSLError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ascend"))
from vendor_headers import needs_devkit

TARGETS = ("cpu", "ascend:910b", "ascend:950")
ROWS = 2  # one per AIV


def _compile(kernel, target, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    name, _, profile = target.partition(":")
    return tilec.compile(kernel, target=name, **({"profile": profile} if profile else {}))


def topk_kernel(n, k, valid, dtype):
    """Per row: the top k of X[row, :valid] as values V and int32 indices I."""

    @T.prim_func
    def main(X: T.Tensor((ROWS, n), dtype), V: T.Tensor((ROWS, k), dtype),
             I: T.Tensor((ROWS, k), "int32")):  # noqa: E741 (upstream's name)
        with T.Kernel(1, is_npu=True) as (_cid, vid), T.Scope("V"):
            x = T.alloc_ub((n,), dtype)
            pairs = T.alloc_ub((2 * k,), dtype)
            values = T.alloc_ub((k,), dtype)
            positions = T.alloc_ub((k,), dtype)
            indices = T.alloc_ub((k,), "int32")
            T.copy(X[vid, 0:n], x)
            T.barrier_all()
            T.tile.topk(pairs, x, k, valid)
            T.barrier_all()
            T.tile.gather_mask(values, pairs, "P0101")
            T.tile.gather_mask(positions, pairs, "P1010")
            T.barrier_all()
            T.tile.cast(indices, positions, "CAST_ROUND", k)
            T.barrier_all()
            T.copy(values, V[vid, 0:k])
            T.copy(indices, I[vid, 0:k])

    return main


CASES = {
    # not a multiple of Sort32's 32 elements, the last 10 past actual_num
    "f32-100-top20-of-90": (100, 20, 90, np.float32, lambda rng, shape: rng.standard_normal(shape)),
    # many equal values: the smaller index first, as the vendor's sort orders them
    "f16-ties-64-top12": (64, 12, 64, np.float16,
                          lambda rng, shape: rng.integers(-3, 4, shape) / 2),
    # K above actual_num: the padding's -inf pairs, in index order
    "f32-40-top8-of-5": (40, 8, 5, np.float32, lambda rng, shape: rng.standard_normal(shape)),
}


@pytest.mark.parametrize(("target", "case"), [
    (target, case) for target in TARGETS for case in CASES])
def test_topk_pairs_picked_out_and_cast(target, case, tmp_path, monkeypatch):
    n, k, valid, dtype, draw = CASES[case]
    x = draw(np.random.default_rng(1), (ROWS, n)).astype(dtype)
    kernel = _compile(topk_kernel(n, k, valid, dtype.__name__), target, tmp_path, monkeypatch)
    values, indices = np.zeros((ROWS, k), dtype), np.zeros((ROWS, k), np.int32)
    kernel(x, values, indices)
    padded = np.where(np.arange(n) < valid, x, -np.inf).astype(dtype)
    expected = np.argsort(-padded, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(indices, expected)
    np.testing.assert_array_equal(values, np.take_along_axis(padded, expected, axis=1))


def topk_of_counted_kernel(n, k):
    """Per row: the top k of X[row, :Count[row]], a count known at run time only."""

    @T.prim_func
    def main(X: T.Tensor((ROWS, n), "float32"), Count: T.Tensor((ROWS,), "int32"),
             I: T.Tensor((ROWS, k), "int32")):  # noqa: E741 (upstream's name)
        with T.Kernel(1, is_npu=True) as (_cid, vid), T.Scope("V"):
            x = T.alloc_ub((n,), "float32")
            pairs = T.alloc_ub((2 * k,), "float32")
            positions = T.alloc_ub((k,), "float32")
            indices = T.alloc_ub((k,), "int32")
            T.copy(X[vid, 0:n], x)
            T.barrier_all()
            T.tile.topk(pairs, x, k, Count[vid])
            T.barrier_all()
            T.tile.gather_mask(positions, pairs, "P1010")
            T.barrier_all()
            T.tile.cast(indices, positions, "CAST_ROUND", k)
            T.barrier_all()
            T.copy(indices, I[vid, 0:k])

    return main


@pytest.mark.parametrize("target", TARGETS)
def test_topk_of_a_count_known_at_run_time(target, tmp_path, monkeypatch):
    n, k, count = 72, 10, np.array([61, 7], np.int32)
    x = np.random.default_rng(4).standard_normal((ROWS, n)).astype(np.float32)
    kernel = _compile(topk_of_counted_kernel(n, k), target, tmp_path, monkeypatch)
    indices = np.zeros((ROWS, k), np.int32)
    kernel(x, count, indices)
    padded = np.where(np.arange(n) < count[:, None], x, -np.inf)
    np.testing.assert_array_equal(indices, np.argsort(-padded, axis=1, kind="stable")[:, :k])


def topk_of_a_run_time_k_kernel(n, most):
    """Per row: the top K[row] of X[row, :], K read from a tensor (tilelang-ascend's
    K is any expression); dst holds `most` pairs, zeros past the K picked."""

    @T.prim_func
    def main(X: T.Tensor((ROWS, n), "float32"), K: T.Tensor((ROWS,), "int32"),
             I: T.Tensor((ROWS, most), "int32")):  # noqa: E741 (upstream's name)
        with T.Kernel(1, is_npu=True) as (_cid, vid), T.Scope("V"):
            x = T.alloc_ub((n,), "float32")
            pairs = T.alloc_ub((2 * most,), "float32")
            positions = T.alloc_ub((most,), "float32")
            indices = T.alloc_ub((most,), "int32")
            T.copy(X[vid, 0:n], x)
            T.tile.fill(pairs, 0.0)
            T.barrier_all()
            T.tile.topk(pairs, x, K[vid], n)
            T.barrier_all()
            T.tile.gather_mask(positions, pairs, "P1010")
            T.barrier_all()
            T.tile.cast(indices, positions, "CAST_ROUND", most)
            T.barrier_all()
            T.copy(indices, I[vid, 0:most])

    return main


@pytest.mark.parametrize("target", TARGETS)
def test_topk_of_a_k_known_at_run_time(target, tmp_path, monkeypatch):
    """K = 3, and K = 50, more pairs than dst's 8, which no check can stop at run time:
    clamped to them."""
    n, most, k = 40, 8, np.array([3, 50], np.int32)
    x = np.random.default_rng(5).standard_normal((ROWS, n)).astype(np.float32)
    kernel = _compile(topk_of_a_run_time_k_kernel(n, most), target, tmp_path, monkeypatch)
    indices = np.full((ROWS, most), -1, np.int32)
    kernel(x, k, indices)
    expected = np.argsort(-x, axis=1, kind="stable")
    np.testing.assert_array_equal(indices[0], [*expected[0, :3], *[0] * (most - 3)])
    np.testing.assert_array_equal(indices[1], expected[1, :most])


def topk_of_a_symbolic_k_kernel(n, most):
    """Per row: the top K of X[row, :], K the symbolic width of the output."""
    K = T.symbolic("K")

    @T.prim_func
    def main(X: T.Tensor((ROWS, n), "float32"), I: T.Tensor((ROWS, K), "int32")):  # noqa: E741
        with T.Kernel(1, is_npu=True) as (_cid, vid), T.Scope("V"):
            x = T.alloc_ub((n,), "float32")
            pairs = T.alloc_ub((2 * most,), "float32")
            positions = T.alloc_ub((most,), "float32")
            indices = T.alloc_ub((most,), "int32")
            T.copy(X[vid, 0:n], x)
            T.barrier_all()
            T.tile.topk(pairs, x, K, n)
            T.barrier_all()
            T.tile.gather_mask(positions, pairs, "P1010")
            T.barrier_all()
            T.tile.cast(indices, positions, "CAST_ROUND", most)
            T.barrier_all()
            T.copy(indices, I[vid, 0])

    return main


@pytest.mark.parametrize("target", TARGETS)
def test_topk_of_a_symbolic_k(target, tmp_path, monkeypatch):
    n, most = 40, 8
    x = np.random.default_rng(6).standard_normal((ROWS, n)).astype(np.float32)
    kernel = _compile(topk_of_a_symbolic_k_kernel(n, most), target, tmp_path, monkeypatch)
    indices = np.zeros((ROWS, 5), np.int32)
    kernel(x, indices)
    np.testing.assert_array_equal(indices, np.argsort(-x, axis=1, kind="stable")[:, :5])




@pytest.mark.slow  # a minute: the vendor's CPU model is built with the kernel
@needs_devkit
def test_emitted_ascendc_runs_on_the_cpu_model(tmp_path, monkeypatch):
    """The AscendC tilec emits for topk, gather_mask and the cast (ReduceMax/ReduceMin
    rounds, scalar GetValue/SetValue) on the vendor's CPU model of the 910b."""
    n, k, valid = 100, 20, 90
    x = np.random.default_rng(1).standard_normal((ROWS, n)).astype(np.float32)
    kernel = _compile(topk_kernel(n, k, valid, "float32"), "ascend:910b", tmp_path, monkeypatch)
    values, indices = np.zeros((ROWS, k), np.float32), np.zeros((ROWS, k), np.int32)
    kernel.run_ascendc(x, values, indices)
    padded = np.where(np.arange(n) < valid, x, -np.inf)
    expected = np.argsort(-padded, axis=1, kind="stable")[:, :k]
    np.testing.assert_array_equal(indices, expected)
    np.testing.assert_array_equal(values, np.take_along_axis(padded, expected, axis=1))


def cast_kernel(mode, count):
    """Y (8 x 8 int32, -7 where not converted) = the first `count` elements of X (4 x 16
    float32) rounded by `mode`."""

    @T.prim_func
    def main(X: T.Tensor((ROWS, 4, 16), "float32"), Y: T.Tensor((ROWS, 8, 8), "int32")):
        with T.Kernel(1, is_npu=True) as (_cid, vid), T.Scope("V"):
            x = T.alloc_ub((4, 16), "float32")
            y = T.alloc_ub((8, 8), "int32")
            T.copy(X[vid, :, :], x)
            T.tile.fill(y, -7)
            T.barrier_all()
            T.tile.cast(y, x, mode, count)
            T.barrier_all()
            T.copy(y, Y[vid, :, :])

    return main


ROUNDINGS = {"CAST_ROUND": lambda v: np.trunc(v + np.copysign(0.5, v)), "CAST_RINT": np.rint,
             "CAST_TRUNC": np.trunc, "CAST_FLOOR": np.floor, "CAST_CEIL": np.ceil}


@pytest.mark.parametrize("mode", ["CAST_ROUND", "CAST_RINT"])
@pytest.mark.parametrize("target", TARGETS)
def test_cast_to_int_counts_elements_of_tiles_of_other_shapes(target, mode, tmp_path,
                                                              monkeypatch):
    halves = np.arange(-8, 8) + 0.5  # every tie, both signs, odd and even below
    rng = np.random.default_rng(2)
    x = np.concatenate([np.tile(halves, (ROWS, 1)), rng.uniform(-50, 50, (ROWS, 48))],
                       axis=1).astype(np.float32)
    x[:, 20] = 0.49999997  # rounds to 0 (adding 0.5 first would round it to 1)
    count = 41
    kernel = _compile(cast_kernel(mode, count), target, tmp_path, monkeypatch)
    y = np.zeros((ROWS, 8, 8), np.int32)
    kernel(x.reshape(ROWS, 4, 16), y)
    expected = np.full((ROWS, 64), -7, np.int32)
    expected[:, :count] = ROUNDINGS[mode](x[:, :count].astype(np.float64))
    np.testing.assert_array_equal(y.reshape(ROWS, 64), expected)


def gather_kernel(pattern, kept):
    """Y = what `pattern` keeps of X's 2 x 31 tiles (62 elements: no pattern repeats a
    whole number of times)."""

    @T.prim_func
    def main(X: T.Tensor((ROWS, 2, 31), "float32"), Y: T.Tensor((ROWS, kept), "float32")):
        with T.Kernel(1, is_npu=True) as (_cid, vid), T.Scope("V"):
            x = T.alloc_ub((2, 31), "float32")
            y = T.alloc_ub((kept,), "float32")
            T.copy(X[vid, :, :], x)
            T.barrier_all()
            T.tile.gather_mask(y, x, pattern)
            T.barrier_all()
            T.copy(y, Y[vid, 0:kept])

    return main


PATTERNS = {"P0101": (2, 0), "P1010": (2, 1), "P0001": (4, 0), "P0010": (4, 1),
            "P0100": (4, 2), "P1000": (4, 3), "P1111": (1, 0)}


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("target", ["cpu", "ascend:910b"])
def test_gather_mask_patterns(target, pattern, tmp_path, monkeypatch):
    stride, offset = PATTERNS[pattern]
    x = np.random.default_rng(3).standard_normal((ROWS, 62)).astype(np.float32)
    expected = x[:, offset::stride]
    kernel = _compile(gather_kernel(pattern, expected.shape[1]), target, tmp_path, monkeypatch)
    y = np.zeros_like(expected)
    kernel(x.reshape(ROWS, 2, 31), y)
    np.testing.assert_array_equal(y, expected)


# -- located errors ------------------------------------------------------------------

SOURCE = Path(__file__).read_text().splitlines()


def _error(body) -> DSLError:
    """The DSLError of tracing a V scope that runs `body(x, pairs, ints, cube)` on a
    64-element f32 tile, a 16-element f32 tile, a 2 x 8 int32 tile and an L1 tile."""

    @T.prim_func
    def main(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, is_npu=True) as (_cid, _vid), T.Scope("V"):
            x = T.alloc_ub((64,), "float32")
            pairs = T.alloc_ub((16,), "float32")
            ints = T.alloc_ub((2, 8), "int32")
            cube = T.alloc_L1((64,), "float32")
            T.copy(A[0:64], x)
            body(x, pairs, ints, cube)

    with pytest.raises(DSLError) as info:
        main.ir()
    return info.value


def _check(error: DSLError, marker: str, phrase: str) -> None:
    (line,) = [i + 1 for i, text in enumerate(SOURCE) if text.endswith(f"# {marker}")]
    assert error.loc is not None and (error.loc.file, error.loc.line) == (__file__, line), error
    assert phrase in error.message, error.message


ERRORS = {
    "k-past-src": (lambda x, p, i, c: T.tile.topk(p, x, 65, 64),  # k-past-src
                   "K must be a Python int from 1 to 64 but got 65"),
    "dst-too-small": (lambda x, p, i, c: T.tile.topk(p, x, 9, 64),  # dst-too-small
                      "dst ('pairs', 16 elements) must hold the 18 elements of K = 9"),
    "k-float": (lambda x, p, i, c: T.tile.topk(p, x, x[0], 64),  # k-float
                "T.tile.topk: K must be an integer but got a float32 value"),
    "int-src": (lambda x, p, i, c: T.tile.topk(i, i, 4, 16),  # int-src
                "src ('ints') must be float16 or float32"),
    "dtypes-differ": (lambda x, p, i, c: T.tile.topk(i, x, 4, 64),  # dtypes-differ
                      "dst ('ints') must be float32 like src"),
    "actual-num": (lambda x, p, i, c: T.tile.topk(p, x, 4, 65),  # actual-num
                   "actual_num must be from 0 to the 64 elements of src ('x')"),
    "pattern-tile": (lambda x, p, i, c: T.tile.gather_mask(p, x, i),  # pattern-tile
                     "a pattern tile (the vendor's user-defined mode) is not supported"),
    "pattern-name": (lambda x, p, i, c: T.tile.gather_mask(p, x, "P0011"),  # pattern-name
                     "src1Pattern must be one of P0101, P1010"),
    "gather-room": (lambda x, p, i, c: T.tile.gather_mask(p, x, "P1010"),  # gather-room
                    "P1010 keeps 32 of the 64 elements of src ('x'), which dst ('pairs', "
                    "16 elements) must hold"),
    "two-dims": (lambda x, p, i, c: T.tile.gather_mask(p, i[:, 0:4], "P1111"),  # two-dims
                 "src ('ints', 2x4) must be a whole tile or a region of one with one dim"),
    "cube-operand": (lambda x, p, i, c: T.tile.topk(p, c, 4, 64),  # cube-operand
                     "src ('cube') is in L1, which only the cube reads; the vector unit works "
                     "on UB tiles"),
}


@pytest.mark.parametrize("case", ERRORS)
def test_located_errors(case):
    body, phrase = ERRORS[case]
    _check(_error(body), case, phrase)
