"""deep_gemm's kernels on the cuda target without a GPU: each compiles for sm_90a to wgmma
and TMA, which the CUDA assembler accepts, and runs against numpy in the Hopper SIMT
emulator (test/python/cuda/simt_hopper.py) on a ragged shape."""

from __future__ import annotations

import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilec
from tilec import ir
from tilec.backends.cuda.binary import find_ptxas
from tilec.kernels.deep_gemm import gemm_kernels, grouped_kernels
from tilec.kernels.deep_gemm.utils.math import per_block_cast_to_fp8, per_token_cast_to_fp8

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cuda"))
from simt_hopper import run_launches

KERNELS = {
    "bf16 nt": lambda: gemm_kernels.bf16_gemm(False, False, "bfloat16", "none"),
    "bf16 MN-major, + C": lambda: gemm_kernels.bf16_gemm(True, True, "float32", "c"),
    "fp8 nt, D +=": lambda: gemm_kernels.fp8_gemm(128, "bfloat16", "d", False, False),
    "grouped fp8 masked": lambda: grouped_kernels.grouped_gemm("masked", True, "bfloat16", 128),
    "grouped bf16 contiguous": lambda: grouped_kernels.grouped_gemm(
        "contiguous", False, "bfloat16", 128),
}


@pytest.mark.skipif(find_ptxas() is None, reason="no CUDA assembler (ptxas) here")
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_compiles_to_wgmma_and_tma_for_sm_90a(name):
    kernel = tilec.compile(KERNELS[name](), target="cuda:sm_90a")
    ptx = kernel.source()
    assert "wgmma.mma_async" in ptx and "cp.async.bulk.tensor" in ptx
    assert kernel.resources().spill_stores == 0


def _emulate(kernel_fn, *args) -> None:
    kernel = tilec.compile(kernel_fn, target="cuda:sm_90a")
    with ir.make_context() as context:
        run_launches(ir.parse_module(kernel.ir("cse"), "<cuda>", context), kernel.name, list(args))


def test_bf16_gemm_in_the_hopper_emulator():
    rng = np.random.default_rng(0)
    m, n, k = 40, 72, 96
    a = rng.standard_normal((m, k)).astype(ml_dtypes.bfloat16)
    b = rng.standard_normal((n, k)).astype(ml_dtypes.bfloat16)
    d = np.zeros((m, n), np.float32)
    _emulate(gemm_kernels.bf16_gemm(False, False, "float32", "none"), a, b, d, d)
    np.testing.assert_allclose(d, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-5,
                               atol=1e-4)


def test_fp8_gemm_in_the_hopper_emulator():
    rng = np.random.default_rng(1)
    m, n, k = 40, 136, 256
    a_fp8, sfa = per_token_cast_to_fp8(rng.standard_normal((m, k)).astype(np.float32), False)
    b_fp8, sfb = per_block_cast_to_fp8(rng.standard_normal((n, k)).astype(np.float32), False)
    d = np.zeros((m, n), np.float32)
    _emulate(gemm_kernels.fp8_gemm(128, "float32", "none", False, False), a_fp8, sfa, b_fp8, sfb,
             d, d)
    a_deq = a_fp8.astype(np.float64) * np.repeat(sfa, 128, axis=1)[:, :k]
    b_deq = b_fp8.astype(np.float64) * np.repeat(np.repeat(sfb, 128, 0), 128, 1)[:n, :k]
    exact = a_deq @ b_deq.T
    bound = 2.0**-12 * (np.abs(a_deq) @ np.abs(b_deq).T) + 1e-6
    assert np.all(np.abs(d - exact) <= bound)
