"""The machine model of the ascend target (`tilec.targets.ascend.machine`): one record of
the pipes and of the rules the simulator, the sync pass and the emitter share."""

from __future__ import annotations

import pytest

from tilec.dialects import ascend
from tilec.targets.ascend import machine
from tilec.targets.ascend.profiles import PROFILES


def test_the_pipes_are_the_dialects():
    assert list(machine.PIPES) == [p.name for p in ascend.Pipe if p.name != "all"]
    assert [getattr(machine, name) for name in machine.PIPE_NAMES] == list(range(7))


@pytest.mark.parametrize("profile", sorted(PROFILES))
def test_every_profile_names_known_pipes_and_paths(profile):
    spec = PROFILES[profile]
    for kind, names in spec.ordered_pipes.items():
        assert names <= set(machine.PIPES), kind
        assert "s" in names  # PipeBarrier(ISASI).md: the hardware orders the scalar pipe
        pipes = machine.ordered_pipes(spec, kind)
        assert pipes <= machine.PIPES_OF_CORE[kind] | {machine.V}
    assert machine.ordered_pipes(spec, "mix") == (machine.ordered_pipes(spec, "aic")
                                                 & machine.ordered_pipes(spec, "aiv"))
    assert spec.copy_paths <= set(machine.COPY_PIPES)


def test_the_950_orders_its_vector_pipe_and_the_910b_does_not():
    assert machine.V in machine.ordered_pipes(PROFILES["950"], "aiv")
    assert machine.V not in machine.ordered_pipes(PROFILES["910b"], "aiv")
    assert machine.ordered_pipes(PROFILES["910b"], "aic") == {machine.S}


@pytest.mark.parametrize(("m", "n", "ordered"), [(32, 32, False), (16, 144, False),
                                                 (48, 64, True), (160, 16, True)])
def test_mmads_order_themselves_from_ten_fractals_of_c(m, n, ordered):
    assert machine.mmad_orders_itself(m, n) is ordered


@pytest.mark.parametrize("block_dim", range(1, 9))
def test_each_core_of_a_mix_kernel_finds_the_block_of_its_aic(block_dim):
    seen = set()
    for block in range(block_dim):
        aic = machine.hardware_block_idx("mix", "aic", block, 0)
        aivs = [machine.hardware_block_idx("mix", "aiv", block, sub) for sub in (0, 1)]
        seen.update(aivs)
        assert aic == block
        for index, core in ((aic, "aic"), *((i, "aiv") for i in aivs)):
            assert machine.logical_block("mix", core, index) == block
        assert machine.logical_block("aiv", "aiv", block) == block
    # GetBlockIdx() of the AIVs of a MIX_AIC_1_2 kernel covers [0, 2 * blockDim)
    assert seen == set(range(2 * block_dim))
