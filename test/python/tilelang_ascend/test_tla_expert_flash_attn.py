"""tilelang-ascend's expert flash attention (examples/flash_attention/flash_attn_bhsd.py:
a `T.Scope("C")` program on the AIC and a `T.Scope("V")` program on both AIVs, handing
S, P and P·V through GM workspaces with cross-core flags, `T.annotate_address` placing
every tile, `T.barrier_all()` everywhere) on both NPU profiles against numpy; what the
simulator reports at the author's lines when one of the author's flags is deleted; and
the author's sync next to tilec's (TL_ASCEND_AUTO_SYNC)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from tla_expert_ports import after, compiled, f32, line_of, load

from tilec.sim import SimError

PROFILES = ("910b", "950")
NAME = "flash_attn_bhsd"
ALLOC = re.compile(r"memref\.alloc\(\) \{ascend\.offset = (\d+) : i64\} : "
                   r"memref<[^>]*#ascend\.mem<(\w+)>>")


def _run(port, S, D):
    rng = np.random.default_rng(0)
    q, k, v = (rng.standard_normal((1, 1, S, D)).astype(np.float16) for _ in range(3))
    func = port.flash_attention_fwd(1, S, 1, D)
    out = func(q, k, v)
    qf, kf, vf = f32(q, k, v)
    scores = np.einsum("bhsd,bhkd->bhsk", qf, kf) * (1.0 / D) ** 0.5
    p = np.exp(scores - scores.max(-1, keepdims=True))
    ref = np.einsum("bhsk,bhkd->bhsd", p / p.sum(-1, keepdims=True), vf)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    return compiled(func)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("S", "D"), [(128, 128), (192, 64)])
def test_expert_flash_attention_matches_numpy(profile, S, D, monkeypatch, tmp_path):
    port, _ = load(NAME, profile, monkeypatch, tmp_path)
    kernel = _run(port, S, D)
    report = kernel.report()
    assert report.ok and report.core_kind == "mix"
    assert report.sync_counts["set_flag"] == 0  # the author's sync only
    source = kernel.source()
    assert "KERNEL_TYPE_MIX_AIC_1_2" in source
    for call in ("CrossCoreSetFlag<2, PIPE_FIX>(0)", "CrossCoreWaitFlag(0)",
                 "CrossCoreSetFlag<2, PIPE_MTE3>(1)", "CrossCoreSetFlag<2, PIPE_V>(3)",
                 "PipeBarrier<PIPE_ALL>()", "GetSubBlockIdx()"):
        assert call in source, call


def test_the_annotated_addresses_are_the_tiles_offsets(monkeypatch, tmp_path):
    """T.annotate_address is honoured: the UB and L1 tiles sit where the author put them
    (four UB temporaries share offset 98944; the score tile in L1 shares the K tile's)."""
    port, _ = load(NAME, "910b", monkeypatch, tmp_path)
    text = _run(port, 128, 128).ir("ascend")
    offsets: dict[str, list[int]] = {}
    for offset, space in ALLOC.findall(text):
        offsets.setdefault(space, []).append(int(offset))
    assert {0, 65536, 65664, 66048, 74240, 74368, 98944} <= set(offsets["ub"])
    assert offsets["ub"].count(98944) == 4
    # q at 0, K and the score tile S both at block_M * dim * 2, V after them
    assert sorted(offsets["l1"]) == [0, 16384, 16384, 24576]


@pytest.mark.parametrize("profile", PROFILES)
def test_a_deleted_cross_core_wait_is_reported_at_the_authors_lines(profile, monkeypatch,
                                                                    tmp_path):
    """Without `T.wait_cross_flag(0)` the AIVs read S from the workspace while the AIC may
    still be writing it, and the AIC's sets of flag 0 are never consumed."""
    port, path = load(NAME, profile, monkeypatch, tmp_path,
                      ((r"T\.wait_cross_flag\(0\)", 0, ""),))
    with pytest.raises(SimError) as caught:
        _run(port, 128, 64)
    found = caught.value.diagnostics
    set_line = line_of(path, r'T\.set_cross_flag\("FIX", 0\)')
    store = line_of(path, r"T\.copy\(acc_s_l0c, workspace_1")
    load_s = line_of(path, r"^\s*T\.copy\($")  # the first: S from workspace_1
    pending = [d for d in found if "still pending" in d.message]
    assert pending and all(d.line == set_line for d in pending)
    assert pending[0].message.startswith("cross-core flag 0 (mode 2) set by block 0 aic")
    races = [d for d in found if d.message.startswith("race")]
    assert races
    race = races[0]
    assert {race.line, int(race.message.rsplit(f" at {path}:", 1)[1].split(":")[0])} == \
        {store, load_s}
    assert race.message.endswith(f'missing T.set_cross_flag("FIX", id) after line {store} '
                                 f"and T.wait_cross_flag(id) before line {load_s}")


@pytest.mark.parametrize("profile", PROFILES)
def test_a_deleted_cross_core_set_is_a_deadlock_at_the_wait(profile, monkeypatch, tmp_path):
    port, path = load(NAME, profile, monkeypatch, tmp_path,
                      ((r'T\.set_cross_flag\("V", 3\)', 0, ""),))
    with pytest.raises(SimError) as caught:
        _run(port, 128, 64)
    deadlock = next(d for d in caught.value.diagnostics if d.message.startswith("deadlock"))
    assert deadlock.line == line_of(path, r"T\.wait_cross_flag\(3\)")
    assert deadlock.message.startswith("deadlock: ascend.cross_core_wait_flag 3 on S of block")
    assert "waits for cross-core flag 3, which is never set" in deadlock.message


def test_a_deleted_vector_barrier_is_a_same_pipe_race(monkeypatch, tmp_path):
    """On the 910b the vector pipe overlaps its own instructions: without the barrier
    after the add, the scaling reads the sum the add is still writing."""
    edit = after(NAME, r"T\.tile\.add\(acc_s_ub, acc_s_ub, acc_s_ub_\)", r"T\.barrier_all\(\)")
    port, path = load(NAME, "910b", monkeypatch, tmp_path, ((*edit, ""),))
    with pytest.raises(SimError) as caught:
        _run(port, 128, 64)
    race = caught.value.diagnostics[0]
    add, mul = (line_of(path, r"T\.tile\.add\(acc_s_ub, acc_s_ub, acc_s_ub_\)"),
                line_of(path, r"T\.tile\.mul\(acc_s_ub, acc_s_ub, sm_scale\)"))
    assert race.line == mul and f"at {path}:{add}:" in race.message
    assert "no pipe_barrier v (or all) orders them" in race.message
    assert race.message.endswith(f'missing T.pipe_barrier("V") before line {mul}')


AUTO_SYNC = ((r"^@tilelang\.jit\(", 0, "@tilelang.jit(out_idx=[3], workspace_idx=[4,5,6], "
              "pass_configs={tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True})"),)


@pytest.mark.parametrize("profile", PROFILES)
def test_auto_sync_next_to_the_authors(profile, monkeypatch, tmp_path):
    """TL_ASCEND_AUTO_SYNC drops the author's barriers and places tilec's flags (and, on
    the 910b, vector barriers) around the author's cross-core flags, which it keeps."""
    author, _ = load(NAME, profile, monkeypatch, tmp_path)
    mine = _run(author, 128, 128)
    auto, _ = load(NAME, profile, monkeypatch, tmp_path / "auto", AUTO_SYNC)
    tilecs = _run(auto, 128, 128)
    ours, theirs = mine.report().sync_counts, tilecs.report().sync_counts
    assert ours["set_flag"] == 0 and ours["pipe_barrier_all"] > 0
    assert theirs["pipe_barrier_all"] == 0 and theirs["set_flag"] == theirs["wait_flag"] > 0
    assert sum(theirs.values()) < sum(ours.values())
    assert ("pipe_barrier" in theirs and theirs["pipe_barrier"] > 0) == (profile == "910b")
    for kernel in (mine, tilecs):
        assert kernel.source().count("CrossCoreSetFlag") == 4
    print(f"{profile}: author's {mine.report().cycles} cycles {ours}; "
          f"tilec's {tilecs.report().cycles} cycles {theirs}")
