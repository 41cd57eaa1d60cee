"""fp8 (e4m3, e5m2) wgmma gemms on sm_90a, run against numpy in the SIMT emulator.

The emulator (simt_hopper.py) decodes the fp8 operands exactly (ml_dtypes)
from the bytes wgmma's descriptors point at, k32 per instruction and f32
accumulation as the PTX ISA gives them, and lands TMA boxes of UINT8 maps
byte by byte; so the descriptors, panel swizzles and copies of the fp8
lowering are checked on numbers, on shapes that are not tile multiples,
both with TMA boxes (rows of a multiple of 16 bytes) and with thread
copies. A wrong operand type or descriptor must show: the tests run
deliberately mutated kernels too, and expect them to be wrong.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec import ir

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from example_kernels import example
from simt_hopper import run_launches
from test_cuda_hopper import WGMMA, _warpgroup_gemm

pytestmark = pytest.mark.e2e

FP8 = {"float8_e4m3": np.dtype(ml_dtypes.float8_e4m3fn),
       "float8_e5m2": np.dtype(ml_dtypes.float8_e5m2)}
_MMA = re.compile(r"nvvm\.wgmma\.mma_async (%\w+), (%\w+),")


def _emulate(kernel: tilec.CompiledKernel, args: list[np.ndarray],
             mutate: Callable[[str], str] | None = None) -> None:
    """Runs the kernel's IR after convert-tile-to-cuda on `args`, first `mutate`d if given."""
    text = kernel.ir("cse")
    if mutate is not None:
        mutated = mutate(text)
        assert mutated != text, f"{mutate.__name__} changed nothing"
        text = mutated
    with ir.make_context() as context:
        run_launches(ir.parse_module(text, "<cuda>", context), kernel.name, args)


def _swap_descriptors(text: str) -> str:
    """Every wgmma reads A through B's descriptor and B through A's."""
    return _MMA.sub(r"nvvm.wgmma.mma_async \2, \1,", text)


def _retype_b(text: str) -> str:
    """B's bytes read as the other fp8 type."""
    return re.sub(r"B\[<(e4m3|e5m2)>",
                  lambda m: "B[<" + ("e5m2" if m[1] == "e4m3" else "e4m3") + ">", text)


def _fp8(rng: np.random.Generator, shape: tuple[int, int], dtype: str) -> np.ndarray:
    return rng.standard_normal(shape).astype(FP8[dtype])


def _plain_error(kernel: tilec.CompiledKernel, a: np.ndarray, b: np.ndarray,
                 mutate: Callable[[str], str] | None = None) -> float:
    """The emulated C = 2 A B^T + 1's max error relative to max |C| (float64 reference)."""
    c = np.zeros((a.shape[0], b.shape[0]), np.float32)
    _emulate(kernel, [a, b, c], mutate)
    expected = 2 * (a.astype(np.float64) @ b.astype(np.float64).T) + 1
    return float(np.max(np.abs(c - expected)) / np.max(np.abs(expected)))


# (M, N, K, fp8 type, tiles, warpgroup grid): panels of 128, 64 and 32 bytes (block_K 128,
# 64, 32); K = 100 and 104 rows are not 16-byte multiples (byte copies by threads), 96 and
# 160 are (TMA boxes of UINT8 maps, a warp-specialized producer); warpgroups along M, along
# N, or one with two m64 tiles.
PLAIN = {
    "e4m3 128-byte panels, thread copies": (
        70, 50, 100, "float8_e4m3", {"block_k": 128}, "2x1"),
    "e4m3 64-byte panels, TMA, two m64 tiles a warpgroup": (
        70, 50, 160, "float8_e4m3", {"block_k": 64, "threads": 128}, "1x1"),
    "e5m2 64-byte panels, TMA, warpgroups along N": (
        130, 40, 96, "float8_e5m2", {"block_k": 64, "block_m": 64}, "1x2"),
    "e5m2 32-byte panels, thread copies": (70, 40, 104, "float8_e5m2", {"block_k": 32}, "2x1"),
}


@pytest.mark.parametrize("name", sorted(PLAIN))
def test_fp8_wgmma_gemm_matches_numpy(name):
    """C = 2 A B^T + 1 on 128 x 64 tiles (unless the tiles say otherwise), fp8 A stored
    M x K and B N x K: wgmma's 8-bit operands are K-major."""
    m, n, k, dtype, tiles, grid = PLAIN[name]
    rng = np.random.default_rng(m + n + k)
    a, b = _fp8(rng, (m, k), dtype), _fp8(rng, (n, k), dtype)
    kernel = tilec.compile(_warpgroup_gemm(m, n, k, dtype=dtype, **tiles), target="cuda:sm_90a")
    ptx_type = "e4m3" if dtype == "float8_e4m3" else "e5m2"
    assert {shape[1:] for shape in re.findall(WGMMA, kernel.source())} == {
        ("32", ptx_type, ptx_type)}
    assert f'"wgmma:{grid}"' in kernel.ir("cse")
    assert bool(kernel.binary.plan.descriptors) == ("TMA" in name)
    assert _plain_error(kernel, a, b) <= 1e-6


@pytest.fixture(scope="module")
def e4m3_gemm() -> tuple[tilec.CompiledKernel, np.ndarray, np.ndarray]:
    """A 70 x 64 x 64 e4m3 gemm (TMA boxes of 64-byte panels) and its operands."""
    m, n, k = 70, 64, 64
    rng = np.random.default_rng(7)
    kernel = tilec.compile(_warpgroup_gemm(m, n, k, block_k=64, dtype="float8_e4m3"),
                           target="cuda:sm_90a")
    return kernel, _fp8(rng, (m, k), "float8_e4m3"), _fp8(rng, (n, k), "float8_e4m3")


@pytest.mark.parametrize("mutate", [_swap_descriptors, _retype_b])
def test_mutated_fp8_wgmma_is_caught(e4m3_gemm, mutate):
    """The emulator reads what the instruction says: swapped descriptors or
    B read as e5m2 give wrong numbers, where the kernel as lowered is right."""
    kernel, a, b = e4m3_gemm
    assert _plain_error(kernel, a, b) <= 1e-6
    assert _plain_error(kernel, a, b, mutate) > 0.1


# (M, N, K, C's type, block_N, M symbolic): ragged M, N and K (a partial last K block), with
# TMA boxes and with byte copies by threads, block_N below and at the 128 of B's scale groups
# (N = 129: two groups).
BLOCK_SCALED = {
    "f32 block_N 64, thread copies": (50, 60, 200, "float32", 64, False),
    "bf16 block_N 128, TMA, M symbolic": (60, 129, 144, "bfloat16", 128, True),
}


@pytest.mark.parametrize("name", sorted(BLOCK_SCALED))
def test_block_scaled_fp8_gemm_matches_numpy(name):
    """examples/fp8_gemm.py (DeepGEMM's 1 x 128 / 128 x 128 scaling) against its own
    float64 reference rounded to C's type by ml_dtypes: within one ulp of that."""
    fp8_gemm = example("fp8_gemm")
    m, n, k, out_dtype, block_n, symbolic_m = BLOCK_SCALED[name]
    a, b, a_scale, b_scale = fp8_gemm.random_inputs(m, n, k, np.random.default_rng(m + n))
    c = np.zeros((m, n), fp8_gemm.numpy_dtype(out_dtype))
    rows = T.symbolic("M") if symbolic_m else m
    kernel = tilec.compile(fp8_gemm.fp8_gemm(rows, n, k, out_dtype=out_dtype, block_N=block_n),
                           target="cuda:sm_90a")
    assert {shape[2:] for shape in re.findall(WGMMA, kernel.source())} == {("e4m3", "e4m3")}
    assert bool(kernel.binary.plan.descriptors) == ("TMA" in name)
    _emulate(kernel, [a, b, a_scale, b_scale, c])
    expected = fp8_gemm.reference(a, b, a_scale, b_scale)
    rounded = expected.astype(c.dtype).astype(np.float64)
    ulp = float(ml_dtypes.finfo(c.dtype).eps) * np.abs(rounded)
    # What is left past one ulp: the f32 sums of the exact fp8 products.
    error = np.abs(c.astype(np.float64) - rounded) - ulp
    assert np.max(error) <= 1e-6 * np.max(np.abs(expected))
