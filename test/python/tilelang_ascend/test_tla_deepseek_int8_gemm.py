"""tilelang-ascend's DeepSeek V4 int8 GEMM (examples/deepseek_v4/int8_gemm.py: int8 A and
B^T accumulated in int32 on the cube, written to a GM workspace, then cast, scaled per row
and per column and cast again on the vector cores after a cross-core flag) on both NPU
profiles against numpy, with M symbolic, M not a multiple of block_M and bfloat16 out."""

from __future__ import annotations

import numpy as np
import pytest
from tla_expert_ports import compiled, line_of, load

from tilec.sim.diagnostics import SimError

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


@pytest.mark.parametrize("profile", PROFILES)
def test_a_deleted_cross_core_wait_is_a_race_at_the_authors_lines(profile, monkeypatch,
                                                                 tmp_path):
    """Without `T.wait_cross_flag(0)` the AIVs read the workspace while the AIC's fixpipe
    may still write it: a race between those two lines, naming the flag to add."""
    port, path = load("deepseek_int8_gemm", profile, monkeypatch, tmp_path,
                      ((r"T\.wait_cross_flag\(0\)", 0, ""),))
    rng = np.random.default_rng(0)
    a, sa = _quantized(64, 64, rng)
    b, sb = _quantized(64, 64, rng)
    kernel = port.int8_gemm_kernel_corrected(64, 64, block_M=32, block_N=32, block_K=32,
                                             out_dtype="float32")
    with pytest.raises(SimError) as caught:
        kernel(a, b, sa, sb)
    store = line_of(path, r"T\.copy\(C_L0, workspace_1\[")
    read = line_of(path, r"T\.copy\(workspace_1\[bm \* block_M \+ vid")
    race = next(d for d in caught.value.diagnostics if d.message.startswith("race"))
    assert race.line == store and f" at {path}:{read}:" in race.message
    assert race.message.endswith(f'missing T.set_cross_flag("FIX", id) after line {store} '
                                 f"and T.wait_cross_flag(id) before line {read}")


def test_on_the_cpu_the_cube_runs_then_each_aiv(monkeypatch, tmp_path):
    """The one cross-core flag goes from the cube to the AIVs: on cpu the cube's scope
    runs, then the vector scope once per AIV, with M not a multiple of block_M."""
    port, _ = load("deepseek_int8_gemm", "cpu", monkeypatch, tmp_path)
    rng = np.random.default_rng(1)
    a, sa = _quantized(48, 64, rng)
    b, sb = _quantized(64, 64, rng)
    kernel = port.int8_gemm_kernel_corrected(64, 64, block_M=32, block_N=32, block_K=32,
                                             out_dtype="float32")
    c = kernel(a, b, sa, sb)
    exact = a.astype(np.int64) @ b.astype(np.int64).T
    np.testing.assert_allclose(c, exact.astype(np.float32) * sa[:, None] * sb[None, :],
                               rtol=1e-5, atol=1e-5)
