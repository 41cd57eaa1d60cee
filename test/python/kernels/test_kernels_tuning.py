"""Library ops choose their tiles by measurement (tilec.kernels.tuning): DeepGEMM's
bf16_gemm_nt tunes its tile configs on the call's data inside `autotuning()`, runs the
winner (by simulated cycles on ascend: deterministic, so the winner's run has exactly
its tuned cycles), keeps it in the tuning cache for later calls and processes, and runs
its default where nothing was measured."""

from __future__ import annotations

import json

import pytest

torch = pytest.importorskip("torch")

import tilec.kernels.deep_gemm as deep_gemm  # noqa: E402
from tilec.autotuner import AutoTuner  # noqa: E402
from tilec.kernels import autotuning, last_report, tuning  # noqa: E402
from tilec.kernels.deep_gemm.gemm import _bf16_tiles  # noqa: E402


@pytest.fixture
def fresh_tuning(tmp_path, monkeypatch):
    """An empty tuning cache and no winners remembered by this process."""
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tuning, "_CHOSEN", {})
    monkeypatch.setattr(tuning, "_UNMEASURED", set())
    return tmp_path


def _gemm(m: int, n: int, k: int, seed: int):
    gen = torch.Generator().manual_seed(seed)
    a = torch.randn((m, k), generator=gen).to(torch.bfloat16)
    b = torch.randn((n, k), generator=gen).to(torch.bfloat16)
    return a, b, a.float() @ b.float().T


def _entry(cache) -> dict:
    (path,) = (cache / "autotuner").glob("*.json")
    return json.loads(path.read_text())


def test_the_winner_on_the_npu_has_the_fewest_cycles_and_is_kept(fresh_tuning, monkeypatch):
    monkeypatch.setenv("TILEC_TARGET", "ascend:950")
    m, n, k = 150, 260, 200  # no dim a multiple of any tile
    a, b, ref = _gemm(m, n, k, 1)
    d = torch.empty((m, n))
    with autotuning():
        deep_gemm.bf16_gemm_nt(a, b, d)
    torch.testing.assert_close(d, ref, rtol=1e-5, atol=1e-4)
    (launch,) = last_report()
    entry = _entry(fresh_tuning)
    measured = [t for t in entry["trials"] if t["cycles"] is not None]
    assert len(measured) >= 2
    winner = entry["trials"][entry["winner"]]
    assert winner["cycles"] == min(t["cycles"] for t in measured)
    chosen = _bf16_tiles("ascend:950")[entry["winner"]]
    assert launch.config == chosen
    assert launch.sim.cycles == winner["cycles"]  # the run is the one that was measured

    # A later process (nothing remembered) runs the cached winner and measures nothing.
    monkeypatch.setattr(tuning, "_CHOSEN", {})

    def no_measuring(*args, **kwargs):
        raise AssertionError("tuned again")

    monkeypatch.setattr(AutoTuner, "_tune", no_measuring)
    d2 = torch.empty((m, n))
    deep_gemm.bf16_gemm_nt(a, b, d2)
    assert last_report()[0].config == chosen
    assert torch.equal(d2, d)


def test_untuned_calls_run_the_default_tiles(fresh_tuning):
    a, b, ref = _gemm(40, 70, 90, 2)
    d = torch.empty((40, 70))
    deep_gemm.bf16_gemm_nt(a, b, d)
    torch.testing.assert_close(d, ref, rtol=1e-5, atol=1e-4)
    assert last_report()[0].config == _bf16_tiles("cpu")[0]
    assert not (fresh_tuning / "autotuner").exists()


def test_tuning_on_cpu_measures_every_config_and_keeps_the_fastest(fresh_tuning):
    m, n, k = 130, 150, 170
    a, b, ref = _gemm(m, n, k, 3)
    d = torch.empty((m, n))
    with autotuning():
        deep_gemm.bf16_gemm_nt(a, b, d, c=d.zero_())  # in place: D += A @ B.T, once
    torch.testing.assert_close(d, ref, rtol=1e-5, atol=1e-4)
    entry = _entry(fresh_tuning)
    latencies = [t["latency"] for t in entry["trials"]]
    assert all(latency is not None for latency in latencies), entry["trials"]
    assert entry["winner"] == min(range(len(latencies)), key=latencies.__getitem__)
    assert last_report()[0].config == _bf16_tiles("cpu")[entry["winner"]]


def test_a_config_that_does_not_compile_is_skipped_with_its_reason(fresh_tuning, monkeypatch):
    """A config whose accumulator cannot fit the 950's L0C (256 KiB) fails to compile;
    tuning goes on without it and says why."""
    monkeypatch.setenv("TILEC_TARGET", "ascend:950")
    too_big = dict(block_M=512, block_N=256, block_K=64)
    monkeypatch.setattr(deep_gemm.gemm, "_bf16_tiles",
                        lambda target: [_bf16_tiles(target)[0], too_big])
    a, b, ref = _gemm(64, 64, 64, 4)
    d = torch.empty((64, 64))
    with autotuning():
        deep_gemm.bf16_gemm_nt(a, b, d)
    torch.testing.assert_close(d, ref, rtol=1e-5, atol=1e-4)
    entry = _entry(fresh_tuning)
    skipped = entry["trials"][1]
    assert skipped["cycles"] is None and "l0c" in skipped["error"].lower(), skipped
    assert entry["winner"] == 0
