"""Cube-only GEMM kernels from the DSL, compiled for the ascend target and run in the simulator.

Each kernel goes through the whole `tile-to-ascend` pipeline (placement,
conversion, multi-buffering, memory planning, synchronization), then runs
on simulated AI cores (a race, a deadlock or an unbalanced flag fails the
run) and is compared with numpy: every cube element type (fp8 on the
950), every transpose combination, tiles that overhang the matrices on all
three sides, pipelined and serial K loops, batches over a 3-D grid or a
loop, epilogues through a shared tile or with a ReLU (both done by the
fixpipe), on both profiles. `convert` stops after the conversion, for
checks of its output.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec import ir as tilec_ir
from tilec.diagnostics import CompileError
from tilec.passes.pipeline import run_pipeline

pytestmark = pytest.mark.e2e

PROFILES = ("910b", "950")
_ML_DTYPES = {"bfloat16": "bfloat16", "float8_e4m3": "float8_e4m3fn",
              "float8_e5m2": "float8_e5m2"}
_NUMPY = {"float16": np.float16, "float32": np.float32, "int8": np.int8, "int32": np.int32}


def gemm_kernel(M, N, K, *, in_dtype="float16", accum_dtype="float32", out_dtype="float32",
                trans_A=False, trans_B=False, block_M=64, block_N=64, block_K=32,
                loop="pipelined", epilogue="direct"):
    """C = op(A) @ op(B); `loop` is "pipelined" or "serial"; `epilogue`
    "direct" (T.copy(C_local, C)), "shared" (through a shared tile) or
    "relu" (an element-wise ReLU of C_local, then the copy)."""
    A_shape = (K, M) if trans_A else (M, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_tile = (block_K, block_M) if trans_A else (block_M, block_K)
    B_tile = (block_N, block_K) if trans_B else (block_K, block_N)

    @T.prim_func
    def gemm(A: T.Tensor(A_shape, in_dtype), B: T.Tensor(B_shape, in_dtype),
             C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_s = T.alloc_shared(A_tile, in_dtype)
            B_s = T.alloc_shared(B_tile, in_dtype)
            C_l = T.alloc_fragment((block_M, block_N), accum_dtype)
            T.clear(C_l)
            steps = T.ceildiv(K, block_K)
            serial = loop == "serial"
            for k in T.serial(steps) if serial else T.Pipelined(steps, num_stages=2):
                if trans_A:
                    T.copy(A[k * block_K, by * block_M], A_s)
                else:
                    T.copy(A[by * block_M, k * block_K], A_s)
                if trans_B:
                    T.copy(B[bx * block_N, k * block_K], B_s)
                else:
                    T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_l, transpose_A=trans_A, transpose_B=trans_B)
            if epilogue == "relu":
                for i, j in T.Parallel(block_M, block_N):
                    C_l[i, j] = T.max(C_l[i, j], 0)
            if epilogue == "shared":
                C_s = T.alloc_shared((block_M, block_N), out_dtype)
                T.copy(C_l, C_s)
                T.copy(C_s, C[by * block_M, bx * block_N])
            else:
                T.copy(C_l, C[by * block_M, bx * block_N])

    return gemm


def part_tile_kernel(M, N, K, *, part_M, part_N, part_K, in_dtype="float16", trans_A=False,
                     trans_B=False, dynamic=False, block_M=64, block_N=64, block_K=32):
    """Each block multiplies part_M rows of op(A) by part_N columns of op(B), part_K deep
    per step, copied into tiles of block_M x block_K and block_K x block_N that are larger:
    the copies fill the tiles' leading corners, the rest must read as zero. Block (i, j)
    stores its whole accumulator at C[i * block_M, j * block_N] (C is the grid of
    accumulators). `dynamic`: M and C's rows are run-time sizes."""
    rows = T.symbolic("M") if dynamic else M
    out_rows = T.symbolic("R") if dynamic else -(-M // part_M) * block_M
    A_shape = (K, rows) if trans_A else (rows, K)
    B_shape = (N, K) if trans_B else (K, N)
    A_tile = (block_K, block_M) if trans_A else (block_M, block_K)
    B_tile = (block_N, block_K) if trans_B else (block_K, block_N)
    grid_n = -(-N // part_N)

    @T.prim_func
    def part_gemm(A: T.Tensor(A_shape, in_dtype), B: T.Tensor(B_shape, in_dtype),
                  C: T.Tensor((out_rows, grid_n * block_N), "float32")):
        with T.Kernel(grid_n, T.ceildiv(rows, part_M), threads=128) as (bx, by):
            A_s = T.alloc_shared(A_tile, in_dtype)
            B_s = T.alloc_shared(B_tile, in_dtype)
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            m0, n0 = by * part_M, bx * part_N
            for k in T.Pipelined(T.ceildiv(K, part_K), num_stages=2):
                k0 = k * part_K
                if trans_A:
                    T.copy(A[k0:k0 + part_K, m0:m0 + part_M], A_s)
                else:
                    T.copy(A[m0:m0 + part_M, k0:k0 + part_K], A_s)
                if trans_B:
                    T.copy(B[n0:n0 + part_N, k0:k0 + part_K], B_s)
                else:
                    T.copy(B[k0:k0 + part_K, n0:n0 + part_N], B_s)
                T.gemm(A_s, B_s, C_l, transpose_A=trans_A, transpose_B=trans_B)
            T.copy(C_l, C[by * block_M, bx * block_N])

    return part_gemm


def batched_kernel(batch, M, N, K, *, grid, block=32):
    """C[b] = A[b] @ B[b] (f16 -> f32): the batch is the third grid dimension
    (`grid=True`) or a serial loop inside each block."""

    @T.prim_func
    def bgemm(A: T.Tensor((batch, M, K), "float16"), B: T.Tensor((batch, K, N), "float16"),
              C: T.Tensor((batch, M, N), "float32")):
        dims = (T.ceildiv(N, block), T.ceildiv(M, block)) + ((batch,) if grid else ())
        with T.Kernel(*dims, threads=128) as ids:
            bx, by = ids[0], ids[1]
            A_s = T.alloc_shared((block, block), "float16")
            B_s = T.alloc_shared((block, block), "float16")
            C_l = T.alloc_fragment((block, block), "float32")
            for b in ([ids[2]] if grid else T.serial(batch)):
                T.clear(C_l)
                for k in T.Pipelined(T.ceildiv(K, block), num_stages=2):
                    T.copy(A[b, by * block, k * block], A_s)
                    T.copy(B[b, k * block, bx * block], B_s)
                    T.gemm(A_s, B_s, C_l)
                T.copy(C_l, C[b, by * block, bx * block])

    return bgemm


def convert(kernel, profile: str) -> str:
    """The kernel right after `convert-tile-to-ascend` (placed and converted)."""
    context = tilec_ir.make_context()
    module = kernel.build(context)
    with context:
        run_pipeline(module, f"builtin.module(tile-verify-kernels{{target=ascend:{profile}}},"
                             "tile-canonicalize-ops,tile-ascend-place-tiles,"
                             f"convert-tile-to-ascend{{target=ascend:{profile}}},canonicalize,cse)")
        return str(module)


def run(kernel, inputs: list[np.ndarray], profile: str, **options) -> tilec.CompiledKernel:
    """Compiles `kernel` for ascend:`profile` and runs it on `inputs` (in place)."""
    compiled = tilec.compile(kernel, target="ascend", profile=profile, **options)
    compiled(*inputs)
    return compiled


def operand(rng, shape, dtype: str) -> np.ndarray:
    """Random values of `dtype` (bf16 arrays are ml_dtypes', as the runtime takes them)."""
    if dtype == "int8":
        return rng.integers(-8, 8, shape).astype(np.int8)
    values = rng.standard_normal(shape).astype(np.float32)
    if dtype in _ML_DTYPES:
        return values.astype(getattr(pytest.importorskip("ml_dtypes"), _ML_DTYPES[dtype]))
    return values.astype(_NUMPY[dtype])


def check_gemm(M, N, K, profile, *, tolerance=1e-5, **variant) -> np.ndarray:
    rng = np.random.default_rng(M * 7 + N * 3 + K)
    in_dtype = variant.get("in_dtype", "float16")
    out_dtype = variant.get("out_dtype", "float32")
    trans_A, trans_B = variant.get("trans_A", False), variant.get("trans_B", False)
    a = operand(rng, (K, M) if trans_A else (M, K), in_dtype)
    b = operand(rng, (N, K) if trans_B else (K, N), in_dtype)
    c = np.full((M, N), 7, _NUMPY[out_dtype])
    compiled = run(gemm_kernel(M, N, K, **variant), [a, b, c], profile)
    wide = np.int64 if in_dtype == "int8" else np.float64
    expected = (a.T if trans_A else a).astype(wide) @ (b.T if trans_B else b).astype(wide)
    if variant.get("epilogue") == "relu":
        expected = np.maximum(expected, 0)
    if in_dtype == "int8":
        np.testing.assert_array_equal(c, expected)
    else:
        np.testing.assert_allclose(c.astype(np.float64), expected, rtol=tolerance,
                                   atol=tolerance * np.abs(expected).max())
    return compiled.report()


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("in_dtype", "accum_dtype", "tolerance"),
                         [("float16", "float32", 1e-5), ("bfloat16", "float32", 1e-5),
                          ("float32", "float32", 1e-5), ("int8", "int32", 0)])
def test_element_types(profile, in_dtype, accum_dtype, tolerance):
    check_gemm(128, 64, 96, profile, in_dtype=in_dtype, accum_dtype=accum_dtype,
               out_dtype=accum_dtype, tolerance=tolerance)


@pytest.mark.parametrize("profile", PROFILES)
def test_one_row_and_int8_into_half(profile):
    """A GEMM of one row (Mmad's M = 1), and int8 accumulated in int32 drained into half."""
    check_gemm(1, 64, 64, profile, block_M=1, block_N=64, block_K=32)
    check_gemm(40, 64, 64, profile, in_dtype="int8", accum_dtype="int32", out_dtype="float16",
               tolerance=1e-3)


@pytest.mark.parametrize("in_dtype", ["float8_e4m3", "float8_e5m2"])
def test_fp8_on_both_profiles(in_dtype):
    """The 950's cube multiplies 8-bit floats (C0 = 32) into f32; the 910b's has no fp8:
    its vector cores decode the operands to f16 (exact) for the cube."""
    check_gemm(100, 72, 80, "950", in_dtype=in_dtype, trans_B=True)
    check_gemm(40, 24, 64, "910b", in_dtype=in_dtype, block_M=32, block_N=32)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("trans_A", "trans_B"),
                         [(False, False), (False, True), (True, False), (True, True)])
@pytest.mark.parametrize("in_dtype", ["float16", "float32"])
def test_transposes(profile, trans_A, trans_B, in_dtype):
    check_gemm(64, 96, 64, profile, in_dtype=in_dtype, trans_A=trans_A, trans_B=trans_B)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("loop", ["pipelined", "serial"])
def test_ragged_shapes_with_a_k_loop(profile, loop):
    """100x130x70 with 64x64x32 tiles: every tile of the last row and column
    overhangs, and the last K step holds 6 of 32."""
    check_gemm(100, 130, 70, profile, loop=loop)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("trans_A, trans_B", [(False, False), (True, True)])
def test_k_slabs_of_several_iterations(profile, trans_A, trans_B):
    """100x130x440 with 64x64x32 f16 tiles: 14 K iterations walked in slabs of 7 (the
    largest divisor of 14 up to a 512 B DMA burst of K, 256 f16): one copy per operand
    per slab into tiles 224 deep, whose last one overhangs K (24 of its 224 are past
    it), and the gemm's 7 steps on two L0A and two L0B buffers."""
    kernel = gemm_kernel(100, 130, 440, trans_A=trans_A, trans_B=trans_B)
    compiled = tilec.compile(kernel, target="ascend", profile=profile)
    slabs = compiled.ir(f"tile-ascend-k-slabs{{target=ascend:{profile}}}")
    assert ("memref<224x64xf16" if trans_A else "memref<64x224xf16") in slabs
    assert ("memref<64x224xf16" if trans_B else "memref<224x64xf16") in slabs
    check_gemm(100, 130, 440, profile, trans_A=trans_A, trans_B=trans_B)


@pytest.mark.parametrize("profile", PROFILES)
def test_ragged_transposed_int8(profile):
    check_gemm(50, 70, 90, profile, in_dtype="int8", accum_dtype="int32", out_dtype="int32",
               trans_A=True, trans_B=True, tolerance=0)


@pytest.mark.parametrize("profile", PROFILES)
def test_shared_epilogue_casts_in_the_fixpipe(profile):
    """T.copy(C_local, C_shared); T.copy(C_shared, C) with f16 C: one fixpipe, which casts."""
    result = check_gemm(100, 72, 64, profile, out_dtype="float16", epilogue="shared",
                        tolerance=2e-3)
    assert result.pipe_busy["V"] == 0 and result.pipe_busy["MTE3"] == 0


@pytest.mark.parametrize("profile", PROFILES)
def test_relu_epilogue_is_the_fixpipes(profile):
    """T.Parallel's max(C, 0) right before the copy out runs in the fixpipe:
    the kernel stays cube-only."""
    result = check_gemm(100, 72, 64, profile, epilogue="relu", out_dtype="float16",
                        tolerance=2e-3)
    assert result.pipe_busy["V"] == 0
    assert "{relu}" in convert(gemm_kernel(100, 72, 64, epilogue="relu"), profile)


@pytest.mark.parametrize("profile", PROFILES)
def test_deep_tiles_split_k_to_fit_l0(profile):
    """A 128x256 K tile of f32 (128 KiB) is loaded into L0A in four 64-deep steps that
    take turns on two L0A buffers (32 KiB each): two of them fit, so MTE1 loads one
    while the cube multiplies the other."""
    text = convert(gemm_kernel(128, 128, 256, in_dtype="float32", block_M=128, block_N=128,
                             block_K=256), profile)
    assert text.count("ascend.load_l0a") == 4
    assert text.count("ascend.mmad %") == text.count("sizes [128, 128, 64]") == 4
    assert text.count("{ascend.l0_turns = 2 : i64} : memref<8x8x16x8xf32, #ascend.mem<l0a>>") == 2
    check_gemm(128, 128, 256, profile, in_dtype="float32", block_M=128, block_N=128,
               block_K=256)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("grid", [True, False])
def test_batched(profile, grid):
    rng = np.random.default_rng(3)
    a = rng.standard_normal((3, 40, 50)).astype(np.float16)
    b = rng.standard_normal((3, 50, 36)).astype(np.float16)
    c = np.zeros((3, 40, 36), np.float32)
    run(batched_kernel(3, 40, 36, 50, grid=grid), [a, b, c], profile)
    expected = np.einsum("bmk,bkn->bmn", a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-4)


def test_first_step_of_the_k_loop_initializes_the_accumulator():
    """Stale L0C contents (the previous tile of the grid-stride loop) never
    leak in: every tile starts from the `init` mmad of its first K step."""
    text = convert(gemm_kernel(128, 128, 64), "910b")
    assert text.count("{init}") == 1 and "arith.cmpi eq" in text
    assert not [line for line in text.splitlines() if line.strip().startswith("tile.")]


@pytest.mark.parametrize("profile", PROFILES)
def test_tiles_that_are_not_whole_fractals(profile):
    """40 x 24 tiles of A pad to 48 x 32 in L1 (zeros); 56-wide C tiles to 64."""
    check_gemm(100, 130, 70, profile, block_M=40, block_N=56, block_K=24)


@pytest.mark.parametrize("profile", PROFILES)
def test_an_accumulator_too_big_for_l0c_is_an_error_on_910b_only(profile):
    kernel = gemm_kernel(256, 256, 32, block_M=256, block_N=256)
    if profile == "950":
        assert "ascend.mmad" in convert(kernel, profile)
        return
    with pytest.raises(CompileError, match="the 256x256 accumulator needs 262144 bytes "
                                                 "of L0C, the 910b has 131072"):
        convert(kernel, profile)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("in_dtype", "trans_A", "trans_B", "dynamic"),
                         [("float16", False, False, False), ("float16", True, True, False),
                          ("float16", False, True, True), ("float32", False, False, False),
                          ("float32", True, False, False), ("float32", False, True, True),
                          ("float32", True, True, True)])
def test_copies_of_fewer_rows_and_columns_than_the_tiles(profile, in_dtype, trans_A, trans_B,
                                                         dynamic):
    """40 x 24 of A and 24 x 50 of B per step in 64 x 32 and 32 x 64 tiles (M = 100: the
    last block reads 20 rows, K = 70: the last step 22): every accumulator is the product
    of its parts, zero outside them, so the rest of each L1 tile read as zero, never as the
    previous step's or block's data."""
    M, N, K, pm, pn, pk, bm, bn = 100, 130, 70, 40, 50, 24, 64, 64
    rng = np.random.default_rng(11)
    a = operand(rng, (K, M) if trans_A else (M, K), in_dtype)
    b = operand(rng, (N, K) if trans_B else (K, N), in_dtype)
    grid_m, grid_n = -(-M // pm), -(-N // pn)
    c = np.full((grid_m * bm, grid_n * bn), 7, np.float32)
    kernel = part_tile_kernel(M, N, K, part_M=pm, part_N=pn, part_K=pk, in_dtype=in_dtype,
                              trans_A=trans_A, trans_B=trans_B, dynamic=dynamic)
    run(kernel, [a, b, c], profile)
    op_a = (a.T if trans_A else a).astype(np.float64)
    op_b = (b.T if trans_B else b).astype(np.float64)
    expected = np.zeros_like(c, dtype=np.float64)
    for i in range(grid_m):
        for j in range(grid_n):
            part = op_a[i * pm:(i + 1) * pm] @ op_b[:, j * pn:(j + 1) * pn]
            expected[i * bm:i * bm + part.shape[0], j * bn:j * bn + part.shape[1]] = part
    np.testing.assert_allclose(c.astype(np.float64), expected, rtol=1e-5,
                               atol=1e-5 * np.abs(expected).max())
    assert np.all(c[expected == 0] == 0)


RAGGED_F32_TRANSPOSES = [
    ((40, 40, 40), dict(block_M=24, block_N=24, block_K=24), (1, 1)),
    ((24, 40, 24), dict(block_M=24, block_N=40, block_K=24), (1, 1)),
    ((24, 24, 40), dict(block_M=24, block_N=24, block_K=40, trans_A=True), (2, 2)),
    ((70, 50, 100), dict(block_M=24, block_N=40, block_K=24, trans_A=True), (2, 2)),
    ((70, 50, 100), dict(block_M=24, block_N=40, block_K=24, trans_A=True, trans_B=True),
     (1, 1)),
    ((70, 50, 100), dict(block_M=40, block_N=24, block_K=24, trans_A=True, loop="serial"),
     (2, 2)),
]
"""f32 GEMMs whose A (with transpose_A) or B (without transpose_B) needs its fractals
transposed on the way to L0, in tiles that are not whole 16 x 16 squares, most
overhanging the matrices too; with how many operands the 910b and the 950 copy into
L1 in their transposing layouts."""


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("shape", "variant", "moved"), RAGGED_F32_TRANSPOSES,
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v, tuple) else
                         ",".join(f"{k}={x}" for k, x in v.items()))
def test_f32_operands_to_transpose_in_tiles_of_part_squares(profile, shape, variant, moved):
    """The 950 copies each such operand in as the Nz of its transpose, padded like any Nz
    (24 rows to 32, 40 columns to 48 of the transpose). The 910b puts it in Zz, its
    columns padded to whole squares, L0B's K too; where A's K is not whole 16-row blocks
    (24) the mmad runs K to 32 over the zeros of both operands: a Zz B, or a Bᵀ (Nz)
    whose L1 tile holds K to 32, the copy's zeros past its 24. All match numpy."""
    check_gemm(*shape, profile, in_dtype="float32", **variant)
    text = convert(gemm_kernel(*shape, in_dtype="float32", **variant), profile)
    form = "{transpose}" if profile == "950" else "{zz}"
    copies = re.findall(r"ascend\.copy_nd2nz [^\n]*", text)
    assert sum(form in copy for copy in copies) == moved[PROFILES.index(profile)]
    if profile == "910b" and variant.get("trans_B") and variant["block_K"] % 16:
        # Bᵀ (40 x 24): 4 column blocks of 8 in L1 (K to 32), all of them loaded
        assert all(re.search(r"sizes \[40, 24\] : memref<\w+xf32, #ascend\.mem<gm>>, "
                             r"memref<4x3x16x8xf32", copy) for copy in copies if "{zz}" not in copy)
        assert re.search(r"ascend\.load_l0b [^\n]*\{transpose\} sizes \[32, 40\]", text)
