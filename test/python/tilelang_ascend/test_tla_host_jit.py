"""tilelang-ascend's host surface on tilec, with only the import changed
(`import tilec as tilelang`): `jit(out_idx=, workspace_idx=, pass_configs=)` on
every jit style, `PassConfigKey`, the cache controls, `DataType`, `cdiv`."""

from __future__ import annotations

import numpy as np
import pytest

import tilec as tilelang
from tilec import DataType
from tilec import language as T
from tilec.language import DSLError
from tilec.runtime.signature import ArgumentError

Key = tilelang.PassConfigKey


def test_pass_config_keys_are_tilelang_ascends():
    """The keys its examples use, with its values, so string keys work as well."""
    assert Key.TL_ASCEND_AUTO_SYNC == "tl.ascend_auto_sync"
    assert Key.TL_ASCEND_AUTO_CV_COMBINE == "tl.ascend_auto_cv_combine"
    assert Key.TL_ASCEND_AUTO_CV_SYNC == "tl.ascend_auto_cross_core_sync"
    assert Key.TL_ASCEND_MEMORY_PLANNING == "tl.ascend_memory_planning"
    assert Key.TIR_MERGE_STATIC_SMEM == "tir.merge_static_smem"
    assert Key.TL_DISABLE_WARP_SPECIALIZED == "tl.disable_warp_specialized"
    assert Key("tl.ascend_auto_sync") is Key.TL_ASCEND_AUTO_SYNC


def _accumulate(N, block=32):
    """Z = W + X + Y, with W read before it is written: the workspace's contents
    at the start of the call show in Z."""

    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"),
             W: T.Tensor((N,), "float32"), Z: T.Tensor((N,), "float32")):
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                if bx * block + i < N:
                    W[bx * block + i] = W[bx * block + i] + X[bx * block + i] + Y[bx * block + i]
            for i in T.Parallel(block):
                if bx * block + i < N:
                    Z[bx * block + i] = W[bx * block + i]

    return main


def _check_two_calls(kernel, n=100):
    x = np.arange(n, dtype=np.float32)
    y = np.full(n, 0.5, np.float32)
    for _ in range(2):  # a workspace kept from the first call would double the second
        z = kernel(x, y)
        assert isinstance(z, np.ndarray)
        np.testing.assert_array_equal(z, x + y)


def test_workspace_is_zeroed_per_call_and_not_returned_factory_style():
    _check_two_calls(tilelang.jit(out_idx=[-1], workspace_idx=[2])(_accumulate)(100))


def test_workspace_of_a_kernel_with_negative_indices():
    kernel = tilelang.jit(_accumulate(T.symbolic("N")), out_idx=-1, workspace_idx=[-2])
    _check_two_calls(kernel, 77)  # the symbolic size comes from the inputs


def test_workspace_of_an_eager_kernel_is_left_out_of_the_call():
    @tilelang.jit(workspace_idx=[1])
    def accumulate(X, W, Y, block: int = 32):
        N = T.const("N")
        X: T.Tensor((N,), "float32")
        W: T.Tensor((N,), "float32")
        Y: T.Tensor((N,), "float32")
        Z = T.empty((N,), "float32")
        with T.Kernel(T.ceildiv(N, block), threads=block) as bx:
            for i in T.Parallel(block):
                if bx * block + i < N:
                    W[bx * block + i] = W[bx * block + i] + X[bx * block + i] + Y[bx * block + i]
            for i in T.Parallel(block):
                if bx * block + i < N:
                    Z[bx * block + i] = W[bx * block + i]
        return Z

    _check_two_calls(accumulate, 45)
    _check_two_calls(accumulate.compile(N=45), 45)


def test_workspace_positions_are_checked():
    with pytest.raises(ArgumentError, match=r"workspace_idx \[3\] names parameter 3, which "
                                            "out_idx names too"):
        tilelang.jit(_accumulate(64), out_idx=[-1], workspace_idx=[3])(np.zeros(64, np.float32),
                                                                        np.zeros(64, np.float32))
    with pytest.raises(ArgumentError, match=r"workspace_idx \[7\]: 7 is not a parameter "
                                            "position of a kernel with 4 parameters"):
        tilelang.jit(_accumulate(64), workspace_idx=[7])(np.zeros(64, np.float32))
    kernel = tilelang.jit(_accumulate(64), out_idx=[-1], workspace_idx=[2])
    with pytest.raises(ArgumentError, match=r"takes 2 inputs \(X, Y\) and allocates its outputs "
                                            "and workspaces but got 3 arguments"):
        kernel(*[np.zeros(64, np.float32)] * 3)


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_a_gm_workspace_hands_tiles_between_the_kernels_of_an_ascend_function(profile):
    """One kernel writes doubled rows into the workspace, the next reads them back
    in the opposite block order (rows another core wrote); the caller passes X only."""

    @tilelang.jit(out_idx=[-1], workspace_idx=[1], target=f"ascend:{profile}")
    def through_workspace(block=8):
        N = T.symbolic("N")

        @T.prim_func
        def main(X: T.Tensor((N, 16), "float32"), W: T.Tensor((N, 16), "float32"),
                 Y: T.Tensor((N, 16), "float32")):
            with T.Kernel(T.ceildiv(N, block)) as b:
                x = T.alloc_fragment((block, 16), "float32")
                T.copy(X[b * block, 0], x)
                for i, j in T.Parallel(block, 16):
                    x[i, j] = x[i, j] * 2
                T.copy(x, W[b * block, 0])
            with T.Kernel(T.ceildiv(N, block)) as b:
                y = T.alloc_fragment((block, 16), "float32")
                row = (T.ceildiv(N, block) - 1 - b) * block
                T.copy(W[row, 0], y)
                T.copy(y, Y[row, 0])

        return main

    x = np.random.default_rng(0).standard_normal((20, 16)).astype(np.float32)
    np.testing.assert_array_equal(through_workspace()(x), 2 * x)


def _scale(N=64):
    @T.prim_func
    def main(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
        with T.Kernel(1, threads=64):
            x = T.alloc_fragment((64,), "float32")
            T.copy(X[0], x)
            T.copy(x, Y[0])

    return main


ASCEND_CONFIGS = {
    Key.TL_ASCEND_AUTO_CV_COMBINE: True,
    Key.TL_ASCEND_AUTO_CV_SYNC: False,
    Key.TL_ASCEND_MEMORY_PLANNING: False,
    Key.TIR_MERGE_STATIC_SMEM: True,
    "tl.disable_warp_specialized": True,
}


def test_pass_configs_for_work_tilec_always_does_change_nothing():
    """CV combine, CV sync and memory planning are always on; the TVM keys have no
    counterpart; on cpu so is auto-sync: the options are the target's defaults."""
    plain = tilelang.jit(_scale(), target="cpu")
    configured = tilelang.jit(_scale(), target="cpu",
                              pass_configs={**ASCEND_CONFIGS, Key.TL_ASCEND_AUTO_SYNC: True})
    assert configured.options == plain.options
    x = np.arange(64, dtype=np.float32)
    y = np.zeros_like(x)
    configured(x, y)
    np.testing.assert_array_equal(y, x)


def test_auto_sync_reaches_the_ascend_compile_options():
    for on in (True, False):
        kernel = tilelang.jit(_scale(), target="ascend:950",
                              pass_configs={**ASCEND_CONFIGS, Key.TL_ASCEND_AUTO_SYNC: on})
        assert kernel.options.auto_sync is on
        factory = tilelang.jit(target="ascend:910b", pass_configs={"tl.ascend_auto_sync": on})
        assert factory(_scale)().options.auto_sync is on


@pytest.mark.parametrize(
    ("configs", "message"),
    [
        ({"tl.ascend_auto_synch": True},
         r"pass_configs: unknown key 'tl.ascend_auto_synch'; tilelang-ascend's ascend keys are "
         r"'tl.ascend_auto_sync'"),
        ({Key.TL_ASCEND_MEMORY_PLANNING: 1},
         r"pass_configs: tl.ascend_memory_planning takes True or False but got 1"),
        ([Key.TL_ASCEND_AUTO_SYNC], r"pass_configs must be a dict of PassConfigKey to values"),
    ],
)
def test_pass_config_mistakes_are_located_at_the_jit_call(configs, message):
    with pytest.raises(DSLError, match=message) as caught:
        tilelang.jit(pass_configs=configs)
    assert caught.value.loc.file == __file__
    assert "tilelang.jit(pass_configs=configs)" in str(caught.value)


def test_auto_sync_given_twice_must_agree():
    with pytest.raises(DSLError, match=r"tl.ascend_auto_sync=True contradicts the compile "
                                       r"option auto_sync=False"):
        tilelang.jit(target="ascend:950", auto_sync=False,
                     pass_configs={Key.TL_ASCEND_AUTO_SYNC: True})


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    yield tmp_path
    tilelang.enable_cache()


def _entries(root):
    return sorted(p.name for p in root.iterdir() if len(p.name) == 64)


def _run_scale():
    x = np.arange(64, dtype=np.float32)
    y = np.zeros_like(x)
    tilelang.jit(_scale(), target="cpu")(x, y)
    np.testing.assert_array_equal(y, x)


def test_clear_cache_deletes_the_entries_and_nothing_else(cache_dir):
    (cache_dir / "notes.txt").write_text("not a kernel")
    _run_scale()
    assert len(_entries(cache_dir)) == 1
    tilelang.cache.clear_cache()
    assert _entries(cache_dir) == []
    assert (cache_dir / "notes.txt").read_text() == "not a kernel"
    _run_scale()  # compiled again, and stored again
    assert len(_entries(cache_dir)) == 1


def test_disable_cache_compiles_without_the_disk(cache_dir):
    tilelang.disable_cache()
    assert not tilelang.is_cache_enabled()
    _run_scale()
    assert _entries(cache_dir) == []
    tilelang.enable_cache()
    _run_scale()
    assert len(_entries(cache_dir)) == 1


def test_datatype_and_math_helpers():
    assert DataType("float16").bits == 16
    assert DataType("bfloat16").bits // 8 == 2
    assert DataType("float32").bits == 32 and DataType("int8").bits == 8
    assert tilelang.cdiv(100, 32) == tilelang.math.cdiv(100, 32) == 4
    assert tilelang.math.next_power_of_2(1) == 1 and tilelang.next_power_of_2(48) == 64
    assert str(tilelang.cdiv(T.symbolic("M"), 64)) == str(T.ceildiv(T.symbolic("M"), 64))


def _catlass_swizzle(task, rows, cols, off, direction):
    """GemmIdentityBlockSwizzle<off, direction>::GetBlockCoord, written out per case."""
    inner = task % (rows * cols)
    if direction == 0:
        loops = -(-rows // off)
        block, within = divmod(inner, off * cols)
        height = rows - off * block if block == loops - 1 else off
        m, n = block * off + within % height, within // height
        if block % 2:
            n = cols - n - 1
    else:
        loops = -(-cols // off)
        block, within = divmod(inner, off * rows)
        width = cols - off * block if block == loops - 1 else off
        m, n = within // width, block * off + within % width
        if block % 2:
            m = rows - m - 1
    return m * cols + n


@pytest.mark.parametrize(("m", "n", "block_m", "block_n", "off", "direction"), [
    (256, 512, 32, 64, 3, 0),  # 8 x 8 tiles, bands of 3 rows: the last band has 2
    (256, 512, 32, 64, 3, 1),
    (128, 320, 64, 64, 1, 0),  # off=1: every band is one row
    (200, 96, 32, 32, 4, 1),  # a ragged M: 7 tile rows
])
def test_ascend_use_swizzle_gives_catlass_tile_order(m, n, block_m, block_n, off, direction):
    rows, cols = -(-m // block_m), -(-n // block_n)
    tasks = rows * cols + 5  # past the tile count, the order wraps

    @T.prim_func
    def order(Out: T.Tensor((tasks,), "int32")):
        with T.Kernel(tasks, threads=1) as cid:
            Out[cid] = T.use_swizzle(cid, m, n, 64, block_m, block_n, off=off, dir=direction)

    out = np.zeros(tasks, np.int32)
    tilelang.jit(order, target="cpu")(out)
    expected = [_catlass_swizzle(t, rows, cols, off, direction) for t in range(tasks)]
    np.testing.assert_array_equal(out, expected)
    assert sorted(out[: rows * cols]) == list(range(rows * cols))
    assert T.use_swizzle(7, m, n, 64, block_m, block_n, off, direction) == expected[7]


def test_ascend_use_swizzle_walks_bands_in_alternating_directions():
    """4 x 3 tiles in bands of 2 rows: down the columns of the first band left to
    right, then of the second right to left."""
    order = [T.use_swizzle(t, 128, 96, 32, 32, 32, off=2) for t in range(12)]
    assert order == [0, 3, 1, 4, 2, 5, 8, 11, 7, 10, 6, 9]


def test_ascend_use_swizzle_mistakes_are_located():
    with pytest.raises(DSLError, match=r"T.use_swizzle: dir must be 0 .* but got 2") as caught:
        T.use_swizzle(0, 64, 64, 64, 32, 32, off=1, dir=2)
    assert caught.value.loc.file == __file__
    with pytest.raises(DSLError, match=r"T.use_swizzle: block_N must be a Python int of at "
                                       r"least 1 but got 0"):
        T.use_swizzle(0, 64, 64, 64, 32, 0)


def test_compile_takes_workspace_idx_and_pass_configs_as_jit_does():
    """tilelang.compile(func, out_idx=, workspace_idx=, pass_configs=): the workspace is
    zero-filled per call and left out of it; auto-sync reaches the ascend options."""
    _check_two_calls(tilelang.compile(_accumulate(100), target="cpu", out_idx=[-1],
                                      workspace_idx=[2]))
    for on in (True, False):
        kernel = tilelang.compile(_scale(), target="ascend:950",
                                  pass_configs={Key.TL_ASCEND_AUTO_SYNC: on})
        assert f"tile-ascend-split-scopes{{auto-sync={str(on).lower()}}}" in kernel.stages()
    with pytest.raises(DSLError, match=r"pass_configs: tl.ascend_memory_planning takes True"):
        tilelang.compile(_scale(), target="cpu", pass_configs={Key.TL_ASCEND_MEMORY_PLANNING: 1})


@pytest.mark.parametrize(("given", "spec"), [("ascendc", "ascend:910b"), ("auto", "cpu")])
def test_tilelang_ascends_target_strings(given, spec, monkeypatch):
    """"ascendc" is the ascend target (AscendC C++); "auto" is tilec's choice, as without a
    target (here $TILEC_TARGET's)."""
    monkeypatch.setenv("TILEC_TARGET", "cpu")
    x = np.arange(64, dtype=np.float32)
    for kernel in (tilelang.compile(_scale(), target=given, out_idx=[1]),
                   tilelang.jit(_scale(), target=given, out_idx=[1])):
        assert kernel.target.startswith(spec)
        np.testing.assert_array_equal(kernel(x), x)


def test_the_pto_target_is_an_error_at_the_call():
    for call in (lambda: tilelang.jit(_scale(), target="pto"),  # jit
                 lambda: tilelang.compile(_scale(), target="pto")):  # compile
        with pytest.raises(DSLError, match=r'target="pto" asks for tilelang-ascend\'s PTO code '
                                           r'generator, which tilec does not have; '
                                           r'target="ascend"') as caught:
            call()
        assert caught.value.loc.file == __file__
