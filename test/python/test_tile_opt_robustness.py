"""Malformed and random inputs never make tile-opt print a traceback or
abort: each gets diagnostics and exit code 1 (or is valid and gets 0).

The inputs and the runner are the fuzz harness's (tilec.tools.fuzz_tile_opt):
every input runs in a forked child, so an abort shows up as a finding
naming the input and the command, without killing the test runner.
"""

from __future__ import annotations

import random

from tilec.tools.fuzz_tile_opt import Case, Runner, corpus, generic_op, mutate, op_names


def _assert_fine(runner: Runner, cases: list[Case]) -> None:
    bad = [
        f"{outcome.signature()}: {case.data[:300]!r} {' '.join(case.flags)}"
        for case, outcome in runner.run(cases)
        if outcome.signature() is not None
    ]
    assert not bad, "\n".join(bad[:5])


def test_malformed_inputs_get_diagnostics_not_crashes(repo, tmp_path):
    seeds = corpus(repo)
    rng = random.Random(1234)
    cases = [Case(mutate(rng.choice(seeds), rng, seeds), ("--tile-cleanup",)) for _ in range(300)]
    _assert_fine(Runner(tmp_path), cases)


def test_generic_form_ops_get_diagnostics_not_crashes(repo, tmp_path):
    rng = random.Random(99)
    names = op_names(repo)
    cases = [Case(generic_op(rng, names), ("--tile-cleanup",)) for _ in range(400)]
    _assert_fine(Runner(tmp_path), cases)
