"""fp8 on the ascend 910b, whose cube and vector Cast have no fp8 (tile-ascend-widen-fp8):
the vector cores convert with integer code on the bits, to the bytes the 950's Cast gives
(test_ascend_fp8_conversions.py: every code out of fp8, ties of every binade, overflow,
±inf and NaN into it), so one kernel gives the same bytes on both profiles; and an fp8
gemm's operands are decoded to f16 for the cube. Decoding is vector code (casts of the
byte as an integer, int16 arithmetic, a bitcast that views the same UB bytes), checked
against the vendor's headers on the AscendC CPU model; encoding is the S pipe's."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from test_ascend_fp8_conversions import FP8, WIDE, M, N, _converter, _edge_values, _hardware
from vendor_headers import needs_devkit

import tilec
import tilec.language as T
from tilec.diagnostics import CompileError

pytestmark = pytest.mark.e2e

PROFILES = ["ascend:910b", "ascend:950"]


def _no_fp8_cast(kernel: tilec.CompiledKernel) -> None:
    """The 910b's IR converts no fp8 with a vector Cast: its fp8 values are bytes."""
    lowered = kernel.ir(kernel.stages()[-1])
    casts = [line for line in lowered.splitlines() if "ascend.vcast" in line and "f8E" in line]
    assert not casts, casts


@pytest.mark.parametrize("by", ["copy", "cast"])
@pytest.mark.parametrize("src", list(WIDE))
@pytest.mark.parametrize("dst", list(FP8))
def test_into_fp8_on_the_910b_saturates_and_rounds_to_nearest_even(src, dst, by):
    kernel = tilec.compile(_converter(src, dst, by), target="ascend:910b")
    _no_fp8_cast(kernel)
    x = _edge_values(FP8[dst], WIDE[src])
    y = np.zeros((M, N), FP8[dst])
    kernel(x, y)
    np.testing.assert_array_equal(y.view(np.uint8), _hardware(x, FP8[dst]).view(np.uint8))


@pytest.mark.parametrize("by", ["copy", "cast"])
@pytest.mark.parametrize("src", list(FP8))
@pytest.mark.parametrize("dst", list(WIDE))
def test_every_fp8_code_decodes_exactly_on_the_910b(src, dst, by):
    """All 256 codes: ±0, subnormals, normals, e5m2's ±inf and both formats' NaNs."""
    kernel = tilec.compile(_converter(src, dst, by), target="ascend:910b")
    x = _all_codes(src)
    y = np.zeros((M, N), WIDE[dst])
    kernel(x, y)
    _assert_decoded(x, y)


def _all_codes(src: str) -> np.ndarray:
    return np.resize(np.arange(256, dtype=np.uint8), (M, N)).view(FP8[src])


def _assert_decoded(x: np.ndarray, y: np.ndarray) -> None:
    """`y` holds `x`'s values exactly: NaN where they are NaN, every other bit pattern
    (±0 too) as numpy's conversion gives it."""
    want = x.astype(np.float32).astype(y.dtype)
    nan = np.isnan(want.astype(np.float32))
    np.testing.assert_array_equal(np.isnan(y.astype(np.float32)), nan)
    np.testing.assert_array_equal(y[~nan].view(np.uint8), want[~nan].view(np.uint8))


@pytest.mark.parametrize("by", ["copy", "cast"])
@pytest.mark.parametrize("src", list(FP8))
def test_the_910b_decodes_with_vector_code(src, by):
    """No element goes through the S pipe: the byte tile is viewed as int8, the int16
    fields as f16 (memref.view), and each step is one vector call over the tile."""
    kernel = tilec.compile(_converter(src, "float32", by), target="ascend:910b")
    lowered = kernel.ir(kernel.stages()[-1])
    assert "memref.load" not in lowered and "memref.store" not in lowered
    assert f"to memref<{M}x{N}xi8, #ascend.mem<ub>>" in lowered
    assert f"to memref<{M}x{N}xf16, #ascend.mem<ub>>" in lowered
    assert ".ReinterpretCast<half>()" in kernel.source()


def _gemm_cycles(dtype: str) -> int:
    """Simulated cycles of a 128^3 gemm of 64 x 64 x 64 blocks on the 910b."""
    size, block = 128, 64

    @T.prim_func
    def gemm(A: T.Tensor((size, size), dtype), B: T.Tensor((size, size), dtype),
             C: T.Tensor((size, size), "float32")):
        with T.Kernel(size // block, size // block, threads=128) as (bx, by):
            a = T.alloc_shared((block, block), dtype)
            b = T.alloc_shared((block, block), dtype)
            acc = T.alloc_fragment((block, block), "float32")
            T.clear(acc)
            for ko in T.Pipelined(size // block, num_stages=2):
                T.copy(A[by * block, ko * block], a)
                T.copy(B[bx * block, ko * block], b)
                T.gemm(a, b, acc, transpose_B=True)
            T.copy(acc, C[by * block, bx * block])

    rng = np.random.default_rng(2)
    numpy_type = FP8.get(dtype, np.float16)
    a, b = (rng.standard_normal((size, size)).astype(numpy_type) for _ in range(2))
    c = np.zeros((size, size), np.float32)
    kernel = tilec.compile(gemm, target="ascend:910b")
    kernel(a, b, c)
    want = a.astype(np.float64) @ b.astype(np.float64).T  # f32 sums, in the cube's order
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)
    return kernel.report().cycles


def test_an_e4m3_gemm_decodes_in_a_small_multiple_of_the_f16_gemm_time():
    """The vector decode (and the hand-off to the cube through GM) costs 1.9x the f16
    gemm's cycles (3236 against 1737); the S pipe's element-by-element decode cost
    10x (17439)."""
    assert _gemm_cycles("float8_e4m3") < 2.5 * _gemm_cycles("float16")


@needs_devkit
@pytest.mark.parametrize("src,dst,by", [
    ("float8_e4m3", "float16", "copy"),
    pytest.param("float8_e5m2", "float32", "cast", marks=pytest.mark.slow),
])
def test_the_vector_decode_runs_as_emitted(src, dst, by):
    """The emitted AscendC (Cast int8_t -> half, half -> int16_t, int16 Muls/Adds,
    ReinterpretCast views) compiles against the 910b's headers and decodes all 256
    codes on the CPU model as the simulator does."""
    kernel = tilec.compile(_converter(src, dst, by), target="ascend:910b")
    x = _all_codes(src)
    y = np.zeros((M, N), WIDE[dst])
    kernel.run_ascendc(x, y)
    _assert_decoded(x, y)


def test_both_profiles_give_the_same_bytes():
    x = _edge_values(ml_dtypes.float8_e4m3fn, np.float32)
    out = []
    for profile in PROFILES:
        y = np.zeros((M, N), ml_dtypes.float8_e4m3fn)
        tilec.compile(_converter("float32", "float8_e4m3", "cast"), target=profile)(x, y)
        out.append(y.view(np.uint8))
    np.testing.assert_array_equal(*out)
    # the issue values of the 950's test, and ties to even: 1 + 1/16 -> 1, 1 + 3/16 -> 1.25,
    # 2^-10 (half the smallest subnormal) -> 0, 3 * 2^-10 -> 2^-8
    x = np.resize(np.array([480, 1000, np.inf, np.nan, -np.inf, 1.0625, 1.1875, 2.0**-10,
                            3 * 2.0**-10, -0.0], np.float32), (M, N))
    y = np.zeros((M, N), ml_dtypes.float8_e4m3fn)
    tilec.compile(_converter("float32", "float8_e4m3", "copy"), target="ascend:910b")(x, y)
    assert list(y.astype(np.float32)[0, :10]) == [448, 448, 448, 0, -448, 1, 1.25, 0,
                                                   2.0**-8, 0]
    assert y.view(np.uint8)[0, 9] == 0x80  # -0 keeps its sign


def _fp8_gemm(m: int, n: int, k: int, dtype: str, out: str):
    @T.prim_func
    def gemm(A: T.Tensor((m, k), dtype), B: T.Tensor((n, k), dtype), C: T.Tensor((m, n), out)):
        with T.Kernel(T.ceildiv(n, 32), T.ceildiv(m, 32), threads=128) as (bx, by):
            a = T.alloc_shared((32, 64), dtype)
            b = T.alloc_shared((32, 64), dtype)
            acc = T.alloc_fragment((32, 32), "float32")
            T.clear(acc)
            for ko in T.Pipelined(T.ceildiv(k, 64), num_stages=2):
                T.copy(A[by * 32, ko * 64], a)
                T.copy(B[bx * 32, ko * 64], b)
                T.gemm(a, b, acc, transpose_B=True)
            T.copy(acc, C[by * 32, bx * 32])

    return gemm


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("dtype", ["float8_e4m3", "float8_e5m2"])
def test_an_fp8_gemm_stored_as_fp8(profile, dtype):
    """The products of the fp8 values exactly (f16 holds them), rounded once into fp8 by
    the vector cores (the fixpipe stores no fp8) on a ragged 40 x 24 x 100."""
    m, n, k = 40, 24, 100
    rng = np.random.default_rng(5)
    a = rng.standard_normal((m, k)).astype(FP8[dtype])
    b = rng.standard_normal((n, k)).astype(FP8[dtype])
    c = np.zeros((m, n), FP8[dtype])
    tilec.compile(_fp8_gemm(m, n, k, dtype, dtype), target=profile)(a, b, c)
    exact = a.astype(np.float64) @ b.astype(np.float64).T
    np.testing.assert_array_equal(c.view(np.uint8), _hardware(exact, FP8[dtype]).view(np.uint8))


def test_a_gemm_of_a_tile_by_itself_is_refused_on_the_910b():
    @T.prim_func
    def square(A: T.Tensor((32, 32), "float8_e4m3"), C: T.Tensor((32, 32), "float32")):
        with T.Kernel(1, threads=128):
            a = T.alloc_shared((32, 32), "float8_e4m3")
            acc = T.alloc_fragment((32, 32), "float32")
            T.copy(A, a)
            T.gemm(a, a, acc, clear_accum=True)
            T.copy(acc, C)

    with pytest.raises(CompileError, match=r"test_ascend_fp8_widen.py:\d+:\d+: error: an fp8 "
                       r"tile multiplied by itself"):
        tilec.compile(square, target="ascend:910b")
