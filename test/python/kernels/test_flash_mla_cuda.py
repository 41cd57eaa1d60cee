"""`tilec.kernels.flash_mla` on the cuda target without a GPU: every kernel a call launches
is compiled for sm_90a (ptxas checks it where installed) and run in the Hopper SIMT
emulator (test/python/cuda/simt_hopper.py), the whole call end to end, judged by the same
FlashMLA oracles and tolerances as the cpu runs (test_flash_mla_decode.py,
test_flash_mla_prefill.py).

The calls run through the `cuda_emulated` fixture (conftest.py). The dense decode and
the sparse prefill take ~30 s of CPU each and are in the slow suite."""

from __future__ import annotations

import pytest

import tilec
from tilec.backends.cuda.binary import find_ptxas

torch = pytest.importorskip("torch")

from test_flash_mla_decode import dense_case, run_dense, run_sparse  # noqa: E402
from test_flash_mla_prefill import (  # noqa: E402
    check_is_allclose,
    ref_sparse_attn_fwd,
    sparse_case,
    strided,
)

from tilec.kernels.flash_mla.prefill import flash_mla_sparse_fwd  # noqa: E402


def _assembled_without_spills(kernels: list[tilec.CompiledKernel]) -> None:
    if find_ptxas() is None:
        return
    for kernel in kernels:
        assert kernel.resources().spill_stores == 0, kernel.name


@pytest.mark.slow
def test_dense_decode(cuda_emulated):
    """MTP (s_q = 2) causal over a NaN-poisoned paged cache, two ragged batches, 3 heads."""
    run_dense(dense_case(2, 2, 70, 3, 1, True, seed=5), True)
    names = [kernel.name for kernel in cuda_emulated]
    assert names == ["flash_mla_schedule", "flash_mla_dense_split", "flash_mla_combine"]
    _assembled_without_spills(cuda_emulated)


def test_sparse_fp8_decode(cuda_emulated):
    """The FP8 cache with its scales, invalid indices, a sink and topk_length."""
    run_sparse(1, 1, 3, 60, 32, 61, True, True, seed=3)
    assert cuda_emulated[1].name == "flash_mla_sparse_fp8_split"
    _assembled_without_spills(cuda_emulated)


@pytest.mark.slow
def test_sparse_model1_with_extra_cache(cuda_emulated):
    """MODEL1's cache and an extra one, merged by one combine."""
    run_sparse(1, 1, 3, 40, 16, 61, True, True, seed=4, d=512, extra=(20, 16, 2, False))
    assert [kernel.name for kernel in cuda_emulated].count("flash_mla_sparse_fp8_split") == 2
    _assembled_without_spills(cuda_emulated)


@pytest.mark.slow
def test_sparse_prefill(cuda_emulated):
    """s_kv < topk, so every row has out-of-range slots; a sink and topk_length."""
    q, kv, indices, attn_sink, topk_length = sparse_case(5, 40, 48, 3, 576, True, True, 7)
    out, max_logits, lse = flash_mla_sparse_fwd(strided(q), strided(kv), strided(indices), 0.5,
                                                attn_sink=attn_sink, topk_length=topk_length)
    ref_out, ref_max_logits, ref_lse = ref_sparse_attn_fwd(q, kv, indices, 0.5, 512, attn_sink,
                                                           topk_length)
    check_is_allclose(out.float(), ref_out, 8e-4, 3.01 / 128, 7e-6)
    check_is_allclose(max_logits, ref_max_logits, 1e-6, 2.01 / 65536)
    check_is_allclose(lse, ref_lse, 1e-6, 2.01 / 65536)
    _assembled_without_spills(cuda_emulated)
