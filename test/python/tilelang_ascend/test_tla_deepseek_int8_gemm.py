"""tilelang-ascend's DeepSeek V4 int8 GEMM (examples/deepseek_v4/int8_gemm.py: int8 A and
B^T accumulated in int32 on the cube, written to a GM workspace, then cast, scaled per row
and per column and cast again on the vector cores after a cross-core flag) on both NPU
profiles against numpy, with M symbolic, M not a multiple of block_M and bfloat16 out."""

from __future__ import annotations

import numpy as np
import pytest
from tla_expert_ports import compiled, load

PROFILES = ("910b", "950")


def _quantized(rows: int, K: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Per-row symmetric int8 quantization: values and the float32 scale of each row."""
    x = rng.standard_normal((rows, K)).astype(np.float32)
    scale = np.maximum(np.abs(x).max(axis=1), 1e-4) / 127.0
    q = np.clip(np.rint(x / scale[:, None]), -128, 127).astype(np.int8)
    return q, scale.astype(np.float32)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("M", "N", "K", "out_dtype"), [
    (64, 64, 96, "float32"),
    (48, 64, 64, "bfloat16"),  # M not a multiple of block_M
])
def test_int8_gemm_matches_numpy(profile, M, N, K, out_dtype, monkeypatch, tmp_path):
    port, _ = load("deepseek_int8_gemm", profile, monkeypatch, tmp_path)
    rng = np.random.default_rng(0)
    a, sa = _quantized(M, K, rng)
    b, sb = _quantized(N, K, rng)
    kernel = port.int8_gemm_kernel_corrected(N, K, block_M=32, block_N=32, block_K=32,
                                             out_dtype=out_dtype)
    c = kernel(a, b, sa, sb)
    exact = a.astype(np.int64) @ b.astype(np.int64).T  # the int32 accumulation is exact
    ref = exact.astype(np.float32) * sa[:, None] * sb[None, :]
    tol = 1e-2 if out_dtype == "bfloat16" else 1e-5
    np.testing.assert_allclose(np.asarray(c, dtype=np.float32), ref, rtol=tol, atol=tol)
    assert np.asarray(c).dtype.name == out_dtype
    compiled_kernel = compiled(kernel)
    report = compiled_kernel.report()
    assert report.ok and report.core_kind == "mix"  # cube and vector scopes in one kernel
    source = compiled_kernel.source()
    assert "__global__ __aicore__ void main_(GM_ADDR A, GM_ADDR B" in source
    assert "Mmad(" in source
