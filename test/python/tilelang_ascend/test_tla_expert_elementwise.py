"""tilelang-ascend's expert element-wise add (examples/elementwise/elementwise_add.py: a
`T.Scope("V")` program per AIV, `vid` choosing its half of the rows, `T.barrier_all()`)
on both NPU profiles against numpy; the same kernel with its barriers turned into the
set/wait flags an author writes instead, and the misuses of those flags the simulator
reports at the author's lines: a flag set twice, a flag left set, a missing one."""

from __future__ import annotations

import numpy as np
import pytest
from tla_expert_ports import compiled, line_of, load

from tilec.diagnostics import CompileError
from tilec.sim import SimError

NAME = "elementwise_add"
BARRIER = r"T\.barrier_all\(\)"
BLOCKS = {"cpu": (128, 256), "910b": (128, 128), "950": (128, 256)}
"""The example's tiles (128 x 256, three 64 KiB UB tiles per AIV) on the 950; on the 910b
they need its whole UB (test_the_examples_blocks_fill_the_910b_ub), the others take
128 x 128."""


def _run(port, profile, M=384, N=512, blocks=None):
    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((M, N)).astype(np.float32) for _ in range(2))
    func = port.vec_add(M, N, *(blocks or BLOCKS[profile]))
    np.testing.assert_array_equal(func(a, b), a + b)
    return compiled(func)


def _flags(first: str, second: str) -> tuple[tuple[str, int, str], ...]:
    """The example's two barriers replaced by flags: MTE2 -> V before the add, V -> MTE3
    after it."""
    return ((BARRIER, 0, first), (BARRIER, 1, second))


ORDERED = _flags('T.set_flag("MTE2", "V", 0); T.wait_flag("MTE2", "V", 0)',
                 'T.set_flag("V", "MTE3", 0); T.wait_flag("V", "MTE3", 0)')


@pytest.mark.parametrize("profile", ["cpu", "910b", "950"])
def test_expert_elementwise_add_matches_numpy(profile, monkeypatch, tmp_path):
    port, _ = load(NAME, profile, monkeypatch, tmp_path)
    kernel = _run(port, profile)
    if profile == "cpu":  # one kind of scope: sequential code, the barriers dropped
        return
    report = kernel.report()
    assert report.ok and report.core_kind == "mix"  # both AIVs of each AI core
    assert report.sync_counts["pipe_barrier_all"] == 2 * 2 * (384 // 128) * (512 // BLOCKS[
        profile][1])
    assert "GetSubBlockIdx()" in kernel.source()


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_the_authors_flags_in_place_of_the_barriers(profile, monkeypatch, tmp_path):
    port, _ = load(NAME, profile, monkeypatch, tmp_path, ORDERED)
    kernel = _run(port, profile)
    counts = kernel.report().sync_counts
    assert counts["pipe_barrier_all"] == 0 and counts["set_flag"] == counts["wait_flag"] > 0
    source = kernel.source()
    assert "SetFlag<HardEvent::MTE2_V>(0)" in source and "WaitFlag<HardEvent::V_MTE3>(0)" \
        in source


def test_a_missing_flag_is_a_race_that_names_the_flag(monkeypatch, tmp_path):
    port, path = load(NAME, "910b", monkeypatch, tmp_path, ((BARRIER, 0, ""),))
    with pytest.raises(SimError) as caught:
        _run(port, "910b")
    race = caught.value.diagnostics[0]
    add, copy_a = line_of(path, r"T\.tile\.add"), line_of(path, r"T\.copy\(A\[")
    assert race.line == add and f"at {path}:{copy_a}:" in race.message
    assert race.message.startswith("race (read-after-write): ascend.vbin add on V")
    assert race.message.endswith(f'missing T.set_flag("MTE2", "V", id) after line {copy_a} '
                                 f'and T.wait_flag("MTE2", "V", id) before line {add}')


def test_a_flag_set_twice_is_an_error_at_the_second_set(monkeypatch, tmp_path):
    port, path = load(NAME, "910b", monkeypatch, tmp_path, _flags(
        'T.set_flag("MTE2", "V", 0); T.set_flag("MTE2", "V", 0); T.wait_flag("MTE2", "V", 0)',
        'T.set_flag("V", "MTE3", 0); T.wait_flag("V", "MTE3", 0)'))
    with pytest.raises(SimError) as caught:
        _run(port, "910b")
    twice = caught.value.diagnostics[0]
    sets = line_of(path, r'T\.set_flag\("MTE2", "V", 0\); T\.set_flag')
    assert (twice.line, twice.col) == (sets, 45)  # the second call on the line
    assert twice.message.startswith("ascend.set_flag mte2 -> v, 0 on block 0 aiv")
    assert "sets flag mte2 -> v, 0 that is already set" in twice.message


def test_a_flag_left_set_is_an_error_at_its_set(monkeypatch, tmp_path):
    port, path = load(NAME, "910b", monkeypatch, tmp_path,
                      _flags('T.set_flag("MTE2", "V", 0); T.wait_flag("MTE2", "V", 0)',
                             'T.set_flag("V", "MTE3", 0)'))
    with pytest.raises(SimError) as caught:
        _run(port, "910b")
    found = caught.value.diagnostics
    left = [d for d in found if "still set when the core finishes" in d.message]
    set_line = line_of(path, r'T\.set_flag\("V", "MTE3", 0\)')
    assert left and all(d.line == set_line for d in left)
    assert left[0].message.startswith("ascend.set_flag v -> mte3, 0 on block")
    # and with nothing waiting for the add, the store may read the tile before the add
    # has written it (here it does, and the next block's add overwrites what it read)
    store, add = line_of(path, r"T\.copy\(c_ub"), line_of(path, r"T\.tile\.add")
    race = next(d for d in found if d.message.startswith("race"))
    assert {race.line, int(race.message.rsplit(f" at {path}:", 1)[1].split(":")[0])} == {add, store}
    assert race.message.endswith(f'missing T.set_flag("V", "MTE3", id) after line {add} '
                                 f'and T.wait_flag("V", "MTE3", id) before line {store}')


def test_auto_sync_drops_the_authors_flags(monkeypatch, tmp_path):
    """With TL_ASCEND_AUTO_SYNC the author's flags go and tilec's take their place: as
    many set/wait pairs here (the kernel needs exactly those two), no PIPE_ALL."""
    auto = ((r"^@tilelang\.jit\(", 0, "@tilelang.jit(out_idx=[-1], pass_configs={"
             "tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True})"),)
    author, _ = load(NAME, "910b", monkeypatch, tmp_path, ORDERED)
    tilecs, _ = load(NAME, "910b", monkeypatch, tmp_path / "auto", (*ORDERED, *auto))
    ours = _run(author, "910b").report()
    theirs = _run(tilecs, "910b").report()
    assert theirs.sync_counts["pipe_barrier_all"] == 0
    assert theirs.sync_counts["set_flag"] >= ours.sync_counts["set_flag"] > 0
    print(f"author's {ours.cycles} cycles {ours.sync_counts}; "
          f"tilec's {theirs.cycles} cycles {theirs.sync_counts}")


SELECT = (r"T\.tile\.add\(", 0, "for i, j in T.Parallel(block_M // VEC_NUM, block_N): c_ub[i, j] = "
                                "T.if_then_else(a_ub[i, j] > b_ub[i, j], a_ub[i, j], b_ub[i, j])")
"""The add made a max through a select, whose AscendC Select takes AscendC's temporaries."""


def test_an_expert_kernel_without_select_may_plan_the_ub_ascendc_keeps_for_it(
        monkeypatch, tmp_path):
    """The 910b's UB is 192 KiB (TOTAL_UB_SIZE); AscendC keeps the top 8 KiB for the
    temporaries of Select. The expert kernel, which places its tiles itself, keeps the
    mark that gives it those bytes; with a select it loses it."""
    port, _ = load(NAME, "910b", monkeypatch, tmp_path)
    maxed, _ = load(NAME, "910b", monkeypatch, tmp_path / "select", (SELECT,))
    add = _run(port, "910b").ir("tile-ascend-check-addresses")
    assert "ascend.self_managed_ub" in add
    a = np.random.default_rng(1).standard_normal((256, 256)).astype(np.float32)
    b = np.random.default_rng(2).standard_normal((256, 256)).astype(np.float32)
    func = maxed.vec_add(256, 256, 128, 128)
    np.testing.assert_array_equal(func(a, b), np.maximum(a, b))
    assert "ascend.self_managed_ub" not in compiled(func).ir("tile-ascend-check-addresses")
    # three 64 x 232 f32 tiles and the select's mask: between 184 and 192 KiB
    wide = np.zeros((256, 464), np.float32)
    with pytest.raises(CompileError, match=r"ub overflow: 188\.50 KiB needed, 184\.00 KiB "):
        maxed.vec_add(256, 464, 128, 232)(wide, wide)


def test_the_examples_blocks_fill_the_910b_ub(monkeypatch, tmp_path):
    """The example's 128 x 256 blocks: three 64 KiB tiles per AIV, the whole 192 KiB."""
    port, _ = load(NAME, "910b", monkeypatch, tmp_path)
    kernel = _run(port, "910b", *(384, 512), blocks=(128, 256))
    assert "pipe.InitBuffer(ub_buf, 196608);" in kernel.source()
    assert "ub 192.00 KiB of 192.00 KiB" in kernel.report().report()
