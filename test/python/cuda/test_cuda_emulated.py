"""The cuda lowering's kernels run against numpy in the SIMT emulator (simt.py).

No GPU here: the IR convert-tile-to-cuda makes (threads, barriers, shared
memory, cp.async, ldmatrix, mma.sync) runs thread by thread, so the
placements, layouts, bounds and barriers are checked on numbers. Small
shapes with partial edge tiles keep it fast.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec import ir
from tilec.backends.cuda.binary import find_ptxas

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from example_kernels import example
from simt import run_launches

pytestmark = pytest.mark.e2e


def emulate(kernel_fn, *args) -> tilec.CompiledKernel:
    """Compiles for cuda:sm_80 and runs the IR after convert-tile-to-cuda on `args`."""
    kernel = tilec.compile(kernel_fn, target="cuda:sm_80")
    with ir.make_context() as context:
        module = ir.parse_module(kernel.ir("cse"), "<cuda>", context)
        run_launches(module, kernel.name, list(args))
    return kernel


def _relative_error(actual, expected) -> float:
    return float(np.max(np.abs(actual.astype(np.float32) - expected)) / np.max(np.abs(expected)))


GEMMS = {
    "f32 fma": ({}, 1e-5),
    "f16 mma": ({"in_dtype": "float16"}, 2e-3),
    "f16 mma A transposed": ({"in_dtype": "float16", "trans_A": True}, 2e-3),
    "f16 mma B transposed": ({"in_dtype": "float16", "trans_B": True}, 2e-3),
    "f16 mma both transposed": ({"in_dtype": "float16", "trans_A": True, "trans_B": True}, 2e-3),
    "bf16 mma": ({"in_dtype": "bfloat16"}, 1e-5),
    "f16 mma f16 out relu": ({"in_dtype": "float16", "out_dtype": "float16", "relu": True}, 3e-3),
    # 3-stage pipelines: K = 72 is 3 aligned k-tiles; K = 100 has rows that
    # are not 16-byte aligned, so the element-copy fallback runs in the stages.
    "f16 mma 3 stages": ({"in_dtype": "float16", "num_stages": 3, "K": 72}, 2e-3),
    "f16 mma 3 stages unaligned": ({"in_dtype": "float16", "num_stages": 3, "K": 100}, 2e-3),
}


@pytest.mark.parametrize("name", sorted(GEMMS))
def test_gemm_matches_numpy(name):
    variant, tolerance = GEMMS[name]
    variant = dict(variant)
    gemm = example("gemm")
    m, n, k = 70, 72, variant.pop("K", 40)
    in_dtype = gemm.numpy_dtype(variant.get("in_dtype", "float32"))
    out_dtype = gemm.numpy_dtype(variant.get("out_dtype", "float32"))
    trans_a, trans_b = variant.get("trans_A", False), variant.get("trans_B", False)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((k, m) if trans_a else (m, k)).astype(in_dtype)
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype(in_dtype)
    c = np.zeros((m, n), out_dtype)
    kernel = emulate(gemm.matmul(m, n, k, block_M=64, block_N=64, block_K=32, **variant), a, b, c)
    if "mma" in name:
        assert "mma.sync" in kernel.source()
    expected = gemm.reference(a, b, trans_A=trans_a, trans_B=trans_b,
                              relu=variant.get("relu", False))
    assert _relative_error(c, expected) <= tolerance


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_flash_attention_matches_numpy(dtype):
    attention = example("flash_attention")
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 1, 40, 32)).astype(dtype) for _ in range(3))
    out = np.zeros_like(q)
    emulate(attention.flash_attention(1, 1, 40, 32, causal=True, dtype=dtype, block_M=32,
                                      block_N=32), q, k, v, out)
    error = float(np.max(np.abs(out.astype(np.float32) - attention.reference(q, k, v, True))))
    assert error <= (1e-5 if dtype == "float32" else 3e-3)


def test_sliding_window_attention_matches_numpy():
    """The first key tile of the second block is all masked for its later rows."""
    attention = example("flash_attention")
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 1, 70, 16)).astype(np.float32) for _ in range(3))
    out = np.zeros_like(q)
    emulate(attention.flash_attention(1, 1, 70, 16, causal=True, window=9, block_M=32,
                                      block_N=32), q, k, v, out)
    assert np.max(np.abs(out - attention.reference(q, k, v, True, 9))) <= 1e-5


def test_softmax_of_masked_rows_matches_numpy():
    softmax = example("softmax")
    x = softmax.masked_rows(np.random.default_rng(0).standard_normal((20, 150))
                            .astype(np.float32), block_N=64)
    y = np.zeros_like(x)
    emulate(softmax.softmax(20, 150, block_N=64), x, y)
    np.testing.assert_allclose(y, softmax.reference(x), rtol=1e-5, atol=1e-6)


def test_softmax_matches_numpy():
    softmax = example("softmax")
    x = np.random.default_rng(0).standard_normal((20, 150)).astype(np.float32)
    y = np.zeros_like(x)
    emulate(softmax.softmax(20, 150), x, y)
    np.testing.assert_allclose(y, softmax.reference(x), rtol=1e-5, atol=1e-6)


def test_rmsnorm_matches_numpy():
    rmsnorm = example("rmsnorm")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((20, 150)).astype(np.float32)
    w = rng.standard_normal(150).astype(np.float32)
    y = np.zeros_like(x)
    emulate(rmsnorm.rmsnorm(20, 150), x, w, y)
    np.testing.assert_allclose(y, rmsnorm.reference(x, w), rtol=1e-5, atol=1e-5)


def test_topk_gather_matches_numpy():
    topk = example("topk_gather")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((30, 72)).astype(np.float32)
    idx = topk.select_topk(rng.standard_normal((20, 30)), 3)
    weights = rng.random((20, 3)).astype(np.float32)
    gathered = np.zeros((20, 3, 72), np.float32)
    emulate(topk.topk_gather(20, 3, 30, 72), x, idx, gathered)
    np.testing.assert_array_equal(gathered, x[idx])
    combined = np.zeros((20, 72), np.float32)
    emulate(topk.topk_weighted_sum(20, 3, 30, 72), x, idx, weights, combined)
    np.testing.assert_allclose(combined, np.einsum("tk,tkd->td", weights, x[idx]), rtol=1e-5)


def _two_pass_row_sums(rows: int, cols: int):
    """Row sums in two kernels through a global workspace: partial sums of
    halves of each row, then their total (a split-K pattern)."""
    @T.prim_func
    def row_sums(X: T.Tensor((rows, cols), "float32"), Out: T.Tensor((rows,), "float32")):
        partial = T.alloc_global((2, rows), "float32")
        with T.Kernel(2, threads=32) as half:
            tile = T.alloc_fragment((rows, cols // 2), "float32")
            sums = T.alloc_fragment((rows,), "float32")
            T.copy(X[0, half * (cols // 2)], tile)
            T.reduce_sum(tile, sums, dim=1)
            T.copy(sums, partial[half, 0])
        with T.Kernel(1, threads=32) as _:
            both = T.alloc_fragment((2, rows), "float32")
            total = T.alloc_fragment((rows,), "float32")
            T.copy(partial[0, 0], both)
            T.reduce_sum(both, total, dim=0)
            T.copy(total, Out[0])

    return row_sums


def test_two_kernels_share_a_global_workspace():
    x = np.random.default_rng(0).standard_normal((8, 64)).astype(np.float32)
    out = np.zeros(8, np.float32)
    kernel = emulate(_two_pass_row_sums(8, 64), x, out)
    plan = kernel.binary.plan
    assert [launch.kernel for launch in plan.launches] == ["row_sums_kernel", "row_sums_kernel_0"]
    assert plan.workspaces == (("f32", (["const", 2], ["const", 8])),)
    assert kernel.source().count(".entry") == 2
    np.testing.assert_allclose(out, x.sum(axis=1), rtol=1e-5, atol=1e-5)


def _policy_gemm(policy):
    """One block's 64x64x32 f16 gemm, its 4 warps placed by `policy`."""
    @T.prim_func
    def gemm(A: T.Tensor((64, 32), "float16"), B: T.Tensor((32, 64), "float16"),
             C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128) as _:
            a = T.alloc_shared((64, 32), "float16")
            b = T.alloc_shared((32, 64), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.clear(c)
            T.copy(A[0, 0], a)
            T.copy(B[0, 0], b)
            T.gemm(a, b, c, policy=policy)
            T.copy(c, C[0, 0])

    return gemm


@pytest.mark.parametrize("policy, grid", [("Square", "2x2"), ("FullRow", "4x1"),
                                          ("FullCol", "1x4")])
def test_gemm_warp_policy_places_the_warps(policy, grid):
    import tilec.language as T

    rng = np.random.default_rng(2)
    a = rng.standard_normal((64, 32)).astype(np.float16)
    b = rng.standard_normal((32, 64)).astype(np.float16)
    c = np.zeros((64, 64), np.float32)
    kernel = emulate(_policy_gemm(getattr(T.GemmWarpPolicy, policy)), a, b, c)
    assert f'tile.cuda_layout = "mma:{grid}"' in kernel.ir("cse")
    expected = a.astype(np.float32) @ b.astype(np.float32)
    assert _relative_error(c, expected) <= 2e-3


def _int8_gemm(m: int, n: int, k: int, trans_a: bool, trans_b: bool, block: int = 32):
    """C (i32) = op(A) x op(B) on i8 (A stored K x M when trans_a, B N x K
    when trans_b), 2-stage pipeline."""
    import tilec.language as T

    a_shape = (k, m) if trans_a else (m, k)
    b_shape = (n, k) if trans_b else (k, n)

    @T.prim_func
    def gemm(A: T.Tensor(a_shape, "int8"), B: T.Tensor(b_shape, "int8"),
             C: T.Tensor((m, n), "int32")):
        with T.Kernel(T.ceildiv(n, block), T.ceildiv(m, block), threads=128) as (bx, by):
            a = T.alloc_shared((block, block), "int8")
            b = T.alloc_shared((block, block), "int8")
            c = T.alloc_fragment((block, block), "int32")
            T.clear(c)
            for kk in T.Pipelined(T.ceildiv(k, block), num_stages=2):
                if trans_a:
                    T.copy(A[kk * block, by * block], a)
                else:
                    T.copy(A[by * block, kk * block], a)
                if trans_b:
                    T.copy(B[bx * block, kk * block], b)
                else:
                    T.copy(B[kk * block, bx * block], b)
                T.gemm(a, b, c, transpose_A=trans_a, transpose_B=trans_b)
            T.copy(c, C[by * block, bx * block])

    return gemm


# (trans_A, trans_B) -> (ldmatrix, ld.shared.b8) per k-tile of the 32 x 32 x 32
# block tile (2 x 2 warps of 16 x 16: one A fragment, two B fragments per warp):
# ldmatrix.x4 where K is contiguous, 4 byte loads per 32-bit register where not.
INT8_LAYOUTS = {
    (False, True): (2, 0),
    (False, False): (1, 16),
    (True, True): (1, 16),
    (True, False): (0, 32),
}


@pytest.mark.parametrize("trans_a, trans_b", sorted(INT8_LAYOUTS),
                         ids=lambda flag: "T" if flag else "N")
def test_int8_gemm_uses_m16n8k32_and_matches_numpy(trans_a, trans_b):
    """i8 x i8 -> i32 on the tensor cores in every layout, exact (ragged M,
    N and K: edge tiles zero-filled)."""
    m, n, k = 40, 36, 80
    rng = np.random.default_rng(3)
    a = rng.integers(-128, 128, (k, m) if trans_a else (m, k)).astype(np.int8)
    b = rng.integers(-128, 128, (n, k) if trans_b else (k, n)).astype(np.int8)
    c = np.zeros((m, n), np.int32)
    kernel = emulate(_int8_gemm(m, n, k, trans_a, trans_b), a, b, c)
    source = kernel.source()
    # Per warp and k-tile: 1 k-step x 1 x 2 mma (LLVM may unroll the k-tiles).
    k_tiles = source.count("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32") / 2
    assert k_tiles in (1, 2, 3)
    ldmatrix, byte_loads = INT8_LAYOUTS[trans_a, trans_b]
    assert source.count("ldmatrix.sync.aligned") == ldmatrix * k_tiles
    assert source.count("ld.shared.b8") == byte_loads * k_tiles
    a_mk = a.T if trans_a else a
    b_kn = b.T if trans_b else b
    np.testing.assert_array_equal(c, a_mk.astype(np.int32) @ b_kn.astype(np.int32))
    if find_ptxas() is not None:  # the assembler accepts it, without spills
        assert kernel.resources().spill_stores == 0


def _transcendentals(n: int, dtype: str):
    import tilec.language as T

    @T.prim_func
    def kernel(X: T.Tensor((n,), dtype), Y: T.Tensor((n,), dtype)):
        with T.Kernel(1, threads=64) as _:
            x = T.alloc_fragment((n,), dtype)
            T.copy(X[0], x)
            for i in T.Parallel(n):
                x[i] = T.tanh(T.log(T.exp(x[i]) + 1) - T.log2(x[i] * x[i] + 1))
            T.copy(x, Y[0])

    return kernel


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_fast_math_uses_approximate_instructions_and_keeps_the_values(dtype):
    """fast_math=True: exp, log, log2, tanh become ex2/lg2/tanh.approx (no
    libdevice sequence); the rewritten arithmetic (log2(e) and ln(2)
    scaling) gives numpy's values in the emulator."""
    kernel_fn = _transcendentals(128, dtype)
    accurate = tilec.compile(kernel_fn, target="cuda:sm_80").source()
    fast = tilec.compile(kernel_fn, target="cuda:sm_80", fast_math=True)
    source = fast.source()
    assert "tanh.approx.f32" not in accurate and "lg2.approx" not in accurate
    assert source.count("ex2.approx.f32") == 2  # 128 elements over 64 threads
    assert source.count("lg2.approx.f32") == 4
    assert source.count("tanh.approx.f32") == 2
    x = np.random.default_rng(4).uniform(-3, 3, 128).astype(dtype)
    y = np.zeros_like(x)
    with ir.make_context() as context:
        module = ir.parse_module(fast.ir("cse"), "<cuda>", context)
        run_launches(module, fast.name, [x, y])
    wide = x.astype(np.float64)
    expected = np.tanh(np.log(np.exp(wide) + 1) - np.log2(wide * wide + 1))
    np.testing.assert_allclose(y, expected, rtol=1e-5 if dtype == "float32" else 2e-2,
                               atol=1e-5 if dtype == "float32" else 2e-2)


def _atomic_tiles(rows: int, cols: int, tile: tuple[int, int], dtype: str, scope: str,
                  reps: int):
    """Out += each of `reps` (rows x cols) slices of X, tile by tile with
    T.atomic_add (every element of Out gets `reps` adds from different
    blocks; ragged edge tiles), and Out[0, 0] += X[r * rows, 0] once per block."""
    import tilec.language as T

    tr, tc = tile
    alloc = T.alloc_shared if scope == "shared" else T.alloc_fragment

    @T.prim_func
    def add(X: T.Tensor((reps * rows, cols), dtype), Out: T.Tensor((rows, cols), dtype)):
        with T.Kernel(T.ceildiv(cols, tc), T.ceildiv(rows, tr), reps, threads=64) as (bx, by, r):
            t = alloc((tr, tc), dtype)
            T.copy(X[r * rows + by * tr, bx * tc], t)
            T.atomic_add(Out[by * tr, bx * tc], t)
            T.atomic_add(Out[0, 0], X[r * rows, 0])

    return add


def _no_atom(source: str) -> bool:
    return not any(line.lstrip().startswith("atom.") for line in source.splitlines())


ATOMICS = {
    # (dtype, scope, arch): the red forms the PTX must use.
    "f32 registers": ("float32", "fragment", "sm_80", ["red.global.add.f32"]),
    "f32 shared": ("float32", "shared", "sm_80", ["red.global.add.f32"]),
    "i32 registers": ("int32", "fragment", "sm_80", ["red.global.add.u32"]),
    "f16 registers": ("float16", "fragment", "sm_80", ["red.global.add.noftz.f16"]),
    # A shared tile is dealt in pairs of a row: f16x2 where aligned.
    "f16 shared": ("float16", "shared", "sm_80",
                   ["red.global.add.noftz.f16x2", "red.global.add.noftz.f16 "]),
    "bf16 shared sm_90a": ("bfloat16", "shared", "sm_90a",
                           ["red.global.add.noftz.bf16x2", "red.global.add.noftz.bf16 "]),
}


@pytest.mark.parametrize("name", sorted(ATOMICS))
def test_atomic_add_uses_red_and_matches_numpy(name):
    """Many blocks add to the same elements of a ragged output; each add is a
    `red` (no `atom`: no result is used); the sums are numpy's (small
    integers, so exact in every dtype and order)."""
    dtype, scope, arch, forms = ATOMICS[name]
    rows, cols, reps = 13, 21, 3
    np_dtype = example("gemm").numpy_dtype(dtype)
    rng = np.random.default_rng(5)
    x = rng.integers(-4, 5, (reps * rows, cols)).astype(np_dtype)
    out = rng.integers(-4, 5, (rows, cols)).astype(np_dtype)
    expected = out.astype(np.float64) + x.astype(np.float64).reshape(reps, rows, cols).sum(0)
    blocks = 2 * 2  # ceil(21 / 12) x ceil(13 / 8) per rep
    expected[0, 0] += blocks * x.astype(np.float64)[::rows, 0].sum()
    kernel = tilec.compile(_atomic_tiles(rows, cols, (8, 12), dtype, scope, reps),
                           target=f"cuda:{arch}")
    source = kernel.source()
    assert _no_atom(source)
    for form in forms:
        assert form in source, form
    if find_ptxas() is not None:  # the assembler accepts the inline PTX
        assert kernel.resources().spill_stores == 0
    with ir.make_context() as context:
        module = ir.parse_module(kernel.ir("cse"), "<cuda>", context)
        run_launches(module, kernel.name, [x, out])
    np.testing.assert_array_equal(out.astype(np.float64), expected)


@pytest.mark.parametrize("scope", ["shared", "fragment"])
def test_atomic_add_drops_the_elements_before_the_start(scope):
    """Tiles added at Out[by * 8 - 3, bx * 12 - 5]: the elements at negative
    rows or columns are dropped, f16 pairs that straddle column 0 included."""
    import tilec.language as T

    rows, cols, reps = 13, 21, 2
    alloc = T.alloc_shared if scope == "shared" else T.alloc_fragment

    @T.prim_func
    def add(X: T.Tensor((reps * rows, cols), "float16"), Out: T.Tensor((rows, cols), "float16")):
        with T.Kernel(2, 2, reps, threads=64) as (bx, by, r):
            t = alloc((8, 12), "float16")
            T.copy(X[r * rows + by * 8, bx * 12], t)
            T.atomic_add(Out[by * 8 - 3, bx * 12 - 5], t)

    x = np.random.default_rng(9).integers(-4, 5, (reps * rows, cols)).astype(np.float16)
    out = np.zeros((rows, cols), np.float16)
    emulate(add, x, out)
    padded = np.zeros((reps * rows + 8, cols + 12))
    padded[: reps * rows, :cols] = x
    expected = np.zeros((rows + 3, cols + 5))  # row/column -3/-5 at index 0
    for r in range(reps):
        for by in range(2):
            for bx in range(2):
                tile = padded[r * rows + by * 8 : r * rows + by * 8 + 8, bx * 12 : bx * 12 + 12]
                expected[by * 8 : by * 8 + 8, bx * 12 : bx * 12 + 12] += tile
    np.testing.assert_array_equal(out.astype(np.float64), expected[3:, 5:])


def test_bf16_atomic_add_before_sm_90_keeps_a_compare_and_swap_loop():
    """sm_80 has no bf16 `red`: the add stays an atomic read-modify-write."""
    rows, cols, reps = 13, 21, 2
    bf16 = example("gemm").numpy_dtype("bfloat16")
    rng = np.random.default_rng(6)
    x = rng.integers(-4, 5, (reps * rows, cols)).astype(bf16)
    out = np.zeros((rows, cols), bf16)
    kernel = emulate(_atomic_tiles(rows, cols, (8, 12), "bfloat16", "shared", reps), x, out)
    assert "atom.acq_rel.sys.global.cas.b32" in kernel.source()
    assert "red.global" not in kernel.source()
    expected = x.astype(np.float64).reshape(reps, rows, cols).sum(0)
    expected[0, 0] += 4 * x.astype(np.float64)[::rows, 0].sum()
    np.testing.assert_array_equal(out.astype(np.float64), expected)


def test_atomic_add_of_a_tile_into_a_region_of_higher_rank():
    """T.atomic_add(Out[1, 0:6, 2, :], t) adds a 6 x 10 tile through a reshaped
    view (1 x 6 x 1 x 10) of it; three blocks add to the same elements."""
    import tilec.language as T

    @T.prim_func
    def add(X: T.Tensor((3, 6, 10), "float16"), Out: T.Tensor((2, 6, 3, 10), "float16")):
        with T.Kernel(3, threads=32) as b:
            t = T.alloc_fragment((6, 10), "float16")
            T.copy(X[b, 0, 0], t)
            T.atomic_add(Out[1, 0:6, 2, :], t)

    x = np.random.default_rng(8).integers(-3, 4, (3, 6, 10)).astype(np.float16)
    out = np.zeros((2, 6, 3, 10), np.float16)
    kernel = emulate(add, x, out)
    assert "red.global.add.noftz.f16x2" in kernel.source() and _no_atom(kernel.source())
    expected = np.zeros((2, 6, 3, 10), np.float16)
    expected[1, :, 2, :] = x.astype(np.float32).sum(0)
    np.testing.assert_array_equal(out, expected)


def _split_k_gemm(m: int, n: int, k: int, splits: int, out_dtype: str):
    """C += A @ B with K cut in `splits` slices, one block per slice and C
    tile: the f32 accumulator (the mma layout) is added into C atomically,
    through an `out_dtype` fragment of the same layout."""
    import tilec.language as T

    block, block_k = 32, 32
    per_split = T.ceildiv(k, splits)

    @T.prim_func
    def gemm(A: T.Tensor((m, k), "float16"), B: T.Tensor((k, n), "float16"),
             C: T.Tensor((m, n), out_dtype)):
        with T.Kernel(T.ceildiv(n, block), T.ceildiv(m, block), splits,
                      threads=128) as (bx, by, s):
            a = T.alloc_shared((block, block_k), "float16")
            b = T.alloc_shared((block_k, block), "float16")
            acc = T.alloc_fragment((block, block), "float32")
            part = T.alloc_fragment((block, block), out_dtype)
            T.clear(acc)
            for kk in T.Pipelined(T.ceildiv(per_split, block_k), num_stages=1):
                T.copy(A[by * block, s * per_split + kk * block_k], a)
                T.copy(B[s * per_split + kk * block_k, bx * block], b)
                T.gemm(a, b, acc)
            T.copy(acc, part)
            T.atomic_add(C[by * block, bx * block], part)

    return gemm


@pytest.mark.parametrize("out_dtype, form", [("float32", "red.global.add.f32"),
                                             ("float16", "red.global.add.noftz.f16x2")])
def test_split_k_gemm_adds_the_mma_accumulators_with_red(out_dtype, form):
    """The mma layout's column pairs of an f16 result go out as f16x2 reds;
    ragged M and N (edge pairs fall back to single adds), K split in 2."""
    m, n, k = 40, 46, 64
    rng = np.random.default_rng(7)
    a = rng.integers(-2, 3, (m, k)).astype(np.float16)
    b = rng.integers(-2, 3, (k, n)).astype(np.float16)
    c = np.zeros((m, n), out_dtype)
    kernel = emulate(_split_k_gemm(m, n, k, 2, out_dtype), a, b, c)
    assert 'tile.cuda_layout = "mma:' in kernel.ir("cse")
    assert form in kernel.source() and _no_atom(kernel.source())
    np.testing.assert_array_equal(c, a.astype(np.float32) @ b.astype(np.float32))


def test_element_atomic_adds_use_red_and_match_numpy():
    """A histogram: each thread adds one to the bin of its element
    (`T.atomic_add` on one element, a memref.atomic_rmw whose old value is
    unused) — a `red`, never an `atom`; bins hit by many threads and blocks
    get every add."""
    import tilec.language as T

    n, bins, block = 300, 7, 64

    @T.prim_func
    def histogram(X: T.Tensor((n,), "int32"), H: T.Tensor((bins,), "float32")):
        with T.Kernel(T.ceildiv(n, block), threads=64) as bx:
            for i in T.Parallel(block):
                if bx * block + i < n:
                    T.atomic_add(H[X[bx * block + i]], 1.0)

    x = np.random.default_rng(3).integers(0, bins, n).astype(np.int32)
    h = np.zeros(bins, np.float32)
    kernel = tilec.compile(histogram, target="cuda:sm_80")
    source = kernel.source()
    assert "red.global.add.f32" in source and _no_atom(source)
    with ir.make_context() as context:
        module = ir.parse_module(kernel.ir("cse"), "<cuda>", context)
        run_launches(module, kernel.name, [x, h])
    np.testing.assert_array_equal(h, np.bincount(x, minlength=bins).astype(np.float32))


def test_atomic_adds_into_shared_tiles_are_shared_atomics():
    """Issue 23: an atomic add into a shared tile was a `red.global.add` on the shared
    address (converted with cvta.to.global): ptxas took it, and on a GPU it adds into
    whatever global memory that number names. The emulator refuses a global access
    outside the arguments, which is what such an address is."""

    @T.prim_func
    def per_thread(A: T.Tensor((128,), "float32"), B: T.Tensor((4,), "float32")):
        with T.Kernel(1, threads=128):
            tx = T.get_thread_binding()
            s = T.alloc_shared((4,), "float32")
            T.clear(s)
            T.atomic_add(s[tx % 4], A[tx])
            T.sync_threads()
            T.copy(s, B)

    @T.prim_func
    def tile_into_shared(A: T.Tensor((2, 16, 16), "float16"), B: T.Tensor((16, 16), "float16")):
        with T.Kernel(1, threads=64):
            s = T.alloc_shared((16, 16), "float16")
            f = T.alloc_fragment((16, 16), "float16")
            T.clear(s)
            for r in T.serial(2):
                T.copy(A[r, 0, 0], f)
                T.atomic_add(s, f)
            T.copy(s, B)

    a = np.arange(128, dtype=np.float32)
    b = np.zeros(4, np.float32)
    kernel = emulate(per_thread, a, b)
    np.testing.assert_array_equal(b, a.reshape(32, 4).sum(axis=0))
    h = np.random.default_rng(3).standard_normal((2, 16, 16)).astype(np.float16)
    out = np.zeros((16, 16), np.float16)
    tiled = emulate(tile_into_shared, h, out)
    np.testing.assert_allclose(out.astype(np.float32), h.astype(np.float32).sum(0), atol=2e-3)
    for compiled in (kernel, tiled):
        source = compiled.source()
        assert "red.global" not in source and "atom.shared.add" in source
        if find_ptxas() is not None:
            assert compiled.resources().spill_stores == 0


def test_reshaped_views_and_signed_shifts_match_numpy():
    """A 2-D tensor seen as one row (memref.collapse_shape) and an arithmetic right
    shift of negative values (arith.shrsi), as the library's kernels use them."""
    rows, cols = 6, 40

    @T.prim_func
    def halve(X: T.Tensor((rows, cols), "int32"), Out: T.Tensor((rows * cols,), "int32")):
        with T.Kernel(1, threads=64) as _:
            flat = T.reshape(X, (rows * cols,))
            for i in T.Parallel(rows * cols):
                Out[i] = T.shift_right(flat[i], 2)

    x = np.arange(-120, 120, dtype=np.int32).reshape(rows, cols) * 7
    out = np.zeros(rows * cols, np.int32)
    kernel = emulate(halve, x, out)
    assert "memref.collapse_shape" in kernel.ir("cse") and "arith.shrsi" in kernel.ir("cse")
    np.testing.assert_array_equal(out, x.reshape(-1) >> 2)


def test_float_scalar_arguments_keep_their_value():
    """A T.float32 parameter reaches the kernel as the float it is (the emulator's
    harness once truncated every scalar to an integer: 0.125 became 0)."""
    n = 40

    @T.prim_func
    def scale(X: T.Tensor((n,), "float32"), s: T.float32, Out: T.Tensor((n,), "float32")):
        with T.Kernel(1, threads=64) as _:
            for i in T.Parallel(n):
                Out[i] = X[i] * s

    x = np.linspace(-3, 3, n, dtype=np.float32)
    out = np.zeros(n, np.float32)
    emulate(scale, x, 0.125, out)
    np.testing.assert_array_equal(out, x * np.float32(0.125))
