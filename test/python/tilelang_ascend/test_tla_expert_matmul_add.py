"""tilelang-ascend's expert matmul+add (examples/simple_fusion/matmul_add.py: a `T.Scope("C")`
GEMM with an `if k == 0` first step that writes C out of L0C and sets cross-core flag 0, a
`T.Scope("V")` program per AIV that waits for it and adds D to its half of C's rows in
place, the author's `T.barrier_all()`) on both NPU profiles against numpy, with a K that is
not a multiple of the K block; what the simulator reports at the author's lines when the
wait or the set of the flag is deleted; the author's sync next to tilec's. On cpu the cube's
scope runs, then each AIV's (the flag goes one way: tile-cpu-inline-core-scopes)."""

from __future__ import annotations

import numpy as np
import pytest
from tla_expert_ports import compiled, line_of, load

from tilec.sim.diagnostics import SimError

NAME = "matmul_add"
PROFILES = ("910b", "950")
AUTO_SYNC = ((r"^@tilelang\.jit\(", 0, "@tilelang.jit(out_idx=[-2], pass_configs="
              "{tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True})"),)


def _run(port, M=256, N=256, K=96, block=(128, 128, 64)):
    rng = np.random.default_rng(0)
    a, b, d = (rng.standard_normal(shape).astype(np.float16)
               for shape in ((M, K), (K, N), (M, N)))
    func = port.matmul_add(M, N, K, *block)
    c = func(a, b, d)
    expected = a.astype(np.float32) @ b.astype(np.float32) + d.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), expected, rtol=1e-2, atol=2e-2)
    return compiled(func)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("K", "block"), [(128, (128, 256, 64)), (96, (128, 128, 64))])
def test_expert_matmul_add_matches_numpy(profile, K, block, monkeypatch, tmp_path):
    port, _ = load(NAME, profile, monkeypatch, tmp_path)
    kernel = _run(port, K=K, block=block)
    report = kernel.report()
    assert report.core_kind == "mix" and report.sync_counts["set_flag"] == 0
    source = kernel.source()
    assert "__global__ __aicore__ void main_(GM_ADDR A, GM_ADDR B, GM_ADDR C, GM_ADDR D)" in source
    assert source.count("CrossCoreSetFlag<2, PIPE_FIX>(0);") == 1
    assert source.count("CrossCoreWaitFlag(0);") == 1
    assert "Mmad(" in source and "Add(" in source


@pytest.mark.parametrize("profile", PROFILES)
def test_a_deleted_cross_core_wait_is_a_race_at_the_authors_lines(profile, monkeypatch,
                                                                 tmp_path):
    """Without `T.wait_cross_flag(0)` the AIVs read C, and write it back, while the AIC may
    still write it."""
    port, path = load(NAME, profile, monkeypatch, tmp_path, ((r"T\.wait_cross_flag\(0\)", 0, ""),))
    with pytest.raises(SimError) as caught:
        _run(port)
    store = line_of(path, r"T\.copy\(C_L0, C\[")
    read = line_of(path, r"T\.copy\(C\[bx \* block_M \+ vid")
    write = line_of(path, r"T\.copy\(c_ub, C\[")
    races = {d.message.split(":")[0]: d for d in caught.value.diagnostics
             if d.message.startswith("race")}
    # the fixpipe's store of C against the AIVs' read of it, and against their write back
    for kind, other in (("write-after-read", read), ("write-after-write", write)):
        race = races[f"race ({kind})"]
        assert race.line == store and f" at {path}:{other}:" in race.message
        assert race.message.endswith(f'missing T.set_cross_flag("FIX", id) after line {store} '
                                     f"and T.wait_cross_flag(id) before line {other}")


@pytest.mark.parametrize("profile", PROFILES)
def test_a_deleted_cross_core_set_is_a_deadlock_at_the_wait(profile, monkeypatch, tmp_path):
    port, path = load(NAME, profile, monkeypatch, tmp_path,
                      ((r'T\.set_cross_flag\("FIX", 0\)', 0, ""),))
    with pytest.raises(SimError) as caught:
        _run(port)
    deadlock = next(d for d in caught.value.diagnostics if d.message.startswith("deadlock"))
    assert deadlock.line == line_of(path, r"T\.wait_cross_flag\(0\)")
    assert "waits for cross-core flag 0, which is never set" in deadlock.message


@pytest.mark.parametrize("profile", PROFILES)
def test_auto_sync_next_to_the_authors(profile, monkeypatch, tmp_path):
    """TL_ASCEND_AUTO_SYNC replaces the author's PIPE_ALL barriers by tilec's flags and
    keeps the author's cross-core flag."""
    author, _ = load(NAME, profile, monkeypatch, tmp_path)
    mine = _run(author)
    auto, _ = load(NAME, profile, monkeypatch, tmp_path / "auto", AUTO_SYNC)
    tilecs = _run(auto)
    ours, theirs = mine.report().sync_counts, tilecs.report().sync_counts
    assert ours["set_flag"] == 0 and ours["pipe_barrier_all"] > 0
    assert theirs["pipe_barrier_all"] == 0 and theirs["set_flag"] == theirs["wait_flag"] > 0
    assert tilecs.report().cycles < mine.report().cycles
    assert tilecs.source().count("CrossCoreSetFlag<2, PIPE_FIX>(0);") == 1


def test_on_cpu_the_cube_runs_then_each_aiv(monkeypatch, tmp_path):
    """The only cross-core flag goes from the cube to the AIVs: on cpu each block runs the
    cube's scope, then the vector scope once per AIV (tile-cpu-inline-core-scopes)."""
    port, _ = load(NAME, "cpu", monkeypatch, tmp_path)
    _run(port, K=96)  # K not a multiple of the K block (the example's grid takes M // block_M)
