"""A small fixed-seed fuzz campaign finds nothing, and the harness itself
tells findings apart and reduces them (README: Fuzzing)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from tilec.tools.fuzz_tile_opt import KINDS, Case, Outcome, cases, command_lines, reduce

# The default suite runs the first cases of each campaign (a lowered case runs the
# emitter and the simulator in processes of their own: ~0.5 s each); the slow one all.
CAMPAIGN = [50, pytest.param(150, marks=pytest.mark.slow)]


@pytest.mark.e2e
@pytest.mark.parametrize("count", CAMPAIGN)
@pytest.mark.parametrize("inputs", ["tile", "lowered"])
def test_sample_campaign_has_no_findings(tmp_path, inputs, count):
    """Tile IR through every pass and pipeline; lowered ascend IR through the AscendC
    emitter and tile-sim."""
    result = subprocess.run(
        [sys.executable, "-m", "tilec.tools.fuzz_tile_opt", "--cases", str(count), "--seed", "0",
         "--inputs", inputs, "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert result.returncode == 0, result.stdout + result.stderr
    assert summary["cases"] == count and summary["findings"] == [], summary
    assert 0 < summary["clean"] < count  # some cases reach the passes, some are rejected
    assert result.stdout.startswith(
        f"{count} cases ({summary['clean']} with exit code 0): 0 distinct")


def test_every_tilec_pass_and_pipeline_is_fuzzed():
    from tilec.passes import passes, pipelines

    flags = {flag for line in command_lines() for flag in line}
    for name in [cls.argument for cls in passes()] + [p.argument for p in pipelines()]:
        assert f"--{name}" in flags


def test_lowered_cases_go_to_the_emitter_and_the_simulator():
    lowered = [("910b", "func.func @k() attributes {ascend.kernel = #ascend.core<aiv>} {\n"
                        "  return\n}\n")]
    found = list(cases(60, seed=1, lowered=lowered, tile=False))
    tools = {(case.tool, case.flags[0]) for case in found}
    assert tools == {("tile-opt", "--emit=ascendc:910b"), ("tile-sim", "--profile")}
    assert list(cases(60, seed=1, lowered=lowered, tile=False)) == found


def test_ascend_and_cuda_pipelines_are_fuzzed_to_their_output():
    lines = command_lines()
    for flags in [("--tile-to-ascend=target=ascend:950", "--emit=ascendc:950"),
                  ("--tile-to-cuda=target=cuda:sm_90a", "--emit=ptx")]:
        assert flags in lines


def test_cases_are_reproducible():
    assert list(cases(20, seed=3)) == list(cases(20, seed=3))
    assert list(cases(20, seed=3)) != list(cases(20, seed=4))


def _exited(code: int) -> int:
    return code << 8  # a wait status


@pytest.mark.parametrize(
    ("status", "stderr", "signature"),
    [
        (_exited(0), "", None),
        (_exited(1), "x.mlir:1:2: error: expected type\n", None),
        (_exited(0), "x.mlir:3:1: warning: unused\n", None),
        (
            signal.SIGABRT,
            "python: IRCore.h:442: Assertion `errors.empty()' failed.\n",
            "crash: signal SIGABRT: Assertion `errors.empty()' failed",
        ),
        (signal.SIGSEGV, "", "crash: signal SIGSEGV"),
        (signal.SIGALRM, "", "crash: timeout"),
        (_exited(2), "", "crash: exit 2"),
        (
            _exited(1),
            "tile-opt: internal error: KeyError: 'k'\n",
            "internal error: KeyError",
        ),
        (
            _exited(1),
            "x.mlir:1:1: error: internal error in pass 'tile-x': IndexError: list index\n",
            "internal error: IndexError in pass 'tile-x'",
        ),
        (
            _exited(70),
            'Traceback (most recent call last):\n  File "/a/b/tile_opt.py", line 9, in run\n'
            "    x()\nValueError: no\n",
            "traceback: tile_opt.py:run ValueError",
        ),
        (_exited(1), "", "wrong exit: 1 without an error message"),
        (
            _exited(0),
            "Parser:1:1: error: 'bogus' is not a pass\n",
            "wrong exit: 0 after Parser:N:N: error: '…' is not a pass",
        ),
    ],
)
def test_outcomes_are_told_apart(status, stderr, signature):
    found = Outcome(status, stderr).signature()
    assert found == signature
    assert found is None or found.split(":")[0] in KINDS


class _FakeRunner:
    """Aborts on any input with a line saying BOOM."""

    def outcome(self, case: Case) -> Outcome:
        boom = any(line.strip() == b"BOOM" for line in case.data.split(b"\n"))
        return Outcome(signal.SIGABRT if boom else _exited(1), "" if boom else "error: no")


def test_findings_are_reduced_to_the_lines_that_keep_them():
    lines = [f"line {i}".encode() for i in range(40)]
    lines.insert(23, b"BOOM")
    case = Case(b"\n".join(lines), ("--cse",))
    reduced = reduce(case, "crash: signal SIGABRT", _FakeRunner())  # type: ignore[arg-type]
    assert reduced == Case(b"BOOM", ("--cse",))
    assert os.waitstatus_to_exitcode(_FakeRunner().outcome(reduced).status) == -signal.SIGABRT
