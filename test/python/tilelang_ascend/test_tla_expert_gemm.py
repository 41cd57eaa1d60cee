"""tilelang-ascend's expert GEMM (examples/gemm/example_gemm.py: `T.Scope("C")`, L1/L0C
tiles, `T.barrier_all()`, `T.gemm_v0` with a traced `init`) on cpu and both NPU profiles,
against numpy; the author's barriers kept as written, or replaced by tilec's flags with
`TL_ASCEND_AUTO_SYNC`; and the race the simulator reports at the author's lines when
one of the barriers is deleted."""

from __future__ import annotations

import numpy as np
import pytest
from tla_expert_ports import compiled, f32, line_of, load

from tilec.sim import SimError

PROFILES = ("910b", "950")
BARRIER = r"T\.barrier_all\(\)"


def _run(port, M, N, K, block):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    func = port.matmul(M, N, K, *block)
    c = func(a, b)
    np.testing.assert_allclose(c.astype(np.float32), np.matmul(*f32(a, b)), rtol=1e-2, atol=1e-2)
    return compiled(func)


@pytest.mark.parametrize("profile", ["cpu", *PROFILES])
@pytest.mark.parametrize(("M", "N", "K", "block"), [
    (256, 256, 128, (128, 256, 64)),  # the example's tiles
    (128, 192, 80, (64, 64, 32)),     # K not a multiple of K_L1: the last copy pads zeros
])
def test_expert_gemm_matches_numpy(profile, M, N, K, block, monkeypatch, tmp_path):
    port, _ = load("example_gemm", profile, monkeypatch, tmp_path)
    kernel = _run(port, M, N, K, block)
    if profile == "cpu":  # one kind of scope: sequential code, the barriers dropped
        return
    report = kernel.report()
    assert report.ok and report.core_kind == "aic"
    # the author's barriers as written (twice per K step on each core), no flag of tilec's
    steps = -(-K // block[2])
    blocks = (M // block[0]) * (N // block[1])
    assert report.sync_counts["set_flag"] == 0
    assert report.pipe_all_barriers >= 2 * steps * blocks
    source = kernel.source()
    assert "PipeBarrier<PIPE_ALL>()" in source and "SetFlag" not in source
    assert "Mmad(" in source and "Fixpipe<" in source


@pytest.mark.parametrize("profile", PROFILES)
def test_a_deleted_barrier_is_a_race_at_the_authors_lines(profile, monkeypatch, tmp_path):
    """Without the barrier between the copies into L1 and the gemm, the gemm's L1 -> L0A
    load (MTE1) reads what the copy of A (MTE2) may still be writing: a race at the
    gemm_v0 line that names the copy's line and the flag that orders them."""
    port, path = load("example_gemm", profile, monkeypatch, tmp_path, ((BARRIER, 0, ""),))
    with pytest.raises(SimError) as caught:
        _run(port, 128, 128, 64, (64, 64, 32))
    gemm, copy_a = line_of(path, r"T\.gemm_v0"), line_of(path, r"T\.copy\(A\[")
    race = caught.value.diagnostics[0]
    assert (race.file, race.line) == (str(path), gemm)
    assert race.message.startswith("race (read-after-write): ascend.load_l0a on MTE1")
    assert f"written by ascend.copy_nd2nz gm -> l1 on MTE2 of block 0 aic at {path}:{copy_a}:" \
        in race.message
    assert race.message.endswith(
        f'missing T.set_flag("MTE2", "MTE1", id) after line {copy_a} and '
        f'T.wait_flag("MTE2", "MTE1", id) before line {gemm}')


AUTO_SYNC = ((r"^@tilelang\.jit\(out_idx=\[-1\]\)$", 0,
              "@tilelang.jit(out_idx=[-1], pass_configs={"
              "tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True})"),)
"""The one line a user changes to switch tilec's auto-sync on."""


def test_auto_sync_replaces_the_authors_barriers_with_flags(monkeypatch, tmp_path):
    """With TL_ASCEND_AUTO_SYNC the same kernel gets tilec's set/wait flags instead of
    the author's PIPE_ALL barriers: the same numbers, no PIPE_ALL, fewer cycles."""
    shape = (256, 256, 256, (128, 256, 64))
    author, _ = load("example_gemm", "910b", monkeypatch, tmp_path)
    mine = _run(author, *shape).report()
    auto, _ = load("example_gemm", "910b", monkeypatch, tmp_path / "auto", AUTO_SYNC)
    tilecs = _run(auto, *shape).report()
    # per K step of each of the 2 blocks: the author's two barriers, and one that tilec
    # puts between the gemm's L1 -> L0 loads and its mmad (a step the author cannot name)
    assert mine.pipe_all_barriers == 3 * 4 * 2 and mine.sync_counts["set_flag"] == 0
    assert tilecs.pipe_all_barriers == 0 and tilecs.sync_counts["set_flag"] > 0
    assert tilecs.sync_counts["set_flag"] == tilecs.sync_counts["wait_flag"]
    assert tilecs.cycles < mine.cycles
    print(f"author's sync: {mine.cycles} cycles, {mine.sync_counts}; "
          f"tilec's: {tilecs.cycles} cycles, {tilecs.sync_counts}")
