"""`tilec.kernels.flash_mla` on the cuda target without a GPU: every kernel a call launches
is compiled for sm_90a (ptxas checks it where installed) and run in the Hopper SIMT
emulator (test/python/cuda/simt_hopper.py), the whole call end to end, judged by the same
FlashMLA oracles and tolerances as the cpu runs (test_flash_mla_decode.py,
test_flash_mla_prefill.py).

The split count comes from the number of SMs (132 on an H800, `metadata._CUDA_SMS`); only
speed depends on it, and the emulator spends ~3 s on every block, most of them idle at
these sizes, so the tests plan for 4 SMs: still several splits and the combine. The
dense decode and the sparse prefill take ~30 s of CPU each and are in the slow suite."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import tilec
from tilec import ir
from tilec.backends.cuda.compiler import find_ptxas
from tilec.kernels import targets
from tilec.kernels.flash_mla import metadata
from tilec.runtime.calls import call_arguments

torch = pytest.importorskip("torch")

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cuda"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from simt_hopper import run_launches  # noqa: E402
from test_flash_mla_decode import dense_case, run_dense, run_sparse  # noqa: E402
from test_flash_mla_prefill import (  # noqa: E402
    check_is_allclose,
    ref_sparse_attn_fwd,
    sparse_case,
    strided,
)

from tilec.kernels.flash_mla.prefill import flash_mla_sparse_fwd  # noqa: E402

TARGET = "cuda:sm_90a"


@pytest.fixture
def emulated(monkeypatch: pytest.MonkeyPatch) -> list[tilec.CompiledKernel]:
    """Library calls in the block run on cuda:sm_90a in the emulator; returns the kernels
    they compiled, in launch order."""
    compiled: list[tilec.CompiledKernel] = []

    def launch(api: str, variant: tuple[object, ...], build, target: str, *args: object) -> None:
        assert target == TARGET
        kernel = tilec.compile(build(), target=target)
        full, _ = call_arguments(kernel.name, kernel.params, kernel.out_positions, args)
        with ir.make_context() as context:
            run_launches(ir.parse_module(kernel.ir("cse"), "<cuda>", context), kernel.name, full)
        compiled.append(kernel)
        targets._calls.launches.append(targets.Launch(kernel.name, target))

    monkeypatch.setattr(targets, "launch", launch)
    monkeypatch.setattr(metadata, "_CUDA_SMS", 4)
    with targets.use_target(TARGET):
        yield compiled


def _assembled_without_spills(kernels: list[tilec.CompiledKernel]) -> None:
    if find_ptxas() is None:
        return
    for kernel in kernels:
        assert kernel.resources().spill_stores == 0, kernel.name


@pytest.mark.slow
def test_dense_decode(emulated):
    """MTP (s_q = 2) causal over a NaN-poisoned paged cache, two ragged batches, 3 heads."""
    run_dense(dense_case(2, 2, 70, 3, 1, True, seed=5), True)
    names = [kernel.name for kernel in emulated]
    assert names == ["flash_mla_schedule", "flash_mla_dense_split", "flash_mla_combine"]
    _assembled_without_spills(emulated)


def test_sparse_fp8_decode(emulated):
    """The FP8 cache with its scales, invalid indices, a sink and topk_length."""
    run_sparse(1, 1, 3, 60, 32, 61, True, True, seed=3)
    assert emulated[1].name == "flash_mla_sparse_fp8_split"
    _assembled_without_spills(emulated)


@pytest.mark.slow
def test_sparse_prefill(emulated):
    """s_kv < topk, so every row has out-of-range slots; a sink and topk_length."""
    q, kv, indices, attn_sink, topk_length = sparse_case(5, 40, 48, 3, 576, True, True, 7)
    out, max_logits, lse = flash_mla_sparse_fwd(strided(q), strided(kv), strided(indices), 0.5,
                                                attn_sink=attn_sink, topk_length=topk_length)
    ref_out, ref_max_logits, ref_lse = ref_sparse_attn_fwd(q, kv, indices, 0.5, 512, attn_sink,
                                                           topk_length)
    check_is_allclose(out.float(), ref_out, 8e-4, 3.01 / 128, 7e-6)
    check_is_allclose(max_logits, ref_max_logits, 1e-6, 2.01 / 65536)
    check_is_allclose(lse, ref_lse, 1e-6, 2.01 / 65536)
    _assembled_without_spills(emulated)
