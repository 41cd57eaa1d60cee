"""Lint of the lit tests: a check directive without its colon checks nothing,
silently, and a test named by no convention is found by nobody.

One naming convention, so that a file's place and name say what it tests and
`make test-pass PASS=<name>` finds every test of a pass. Names are lowercase words
joined by hyphens; a `<variant>` is such words too, `invalid` where the file checks
diagnostics (an `expected-error`, or a RUN line that expects failure with `not`).

- `Transforms/`, `Conversion/TileTo<Target>/`: a pass's or a pipeline's tests,
  `<argument>.mlir` and `<argument>-<variant>.mlir`, in the folder of its layer (the
  one holding `<argument>.mlir`, which test_pass_registry.py places). Their RUN lines
  run it.
- `Conversion/TileTo<Target>/ops/`: an op lowering's, `<stem>.mlir` and
  `<stem>-<variant>.mlir`, `<stem>` its module in passes/conversion/tile_to_<target>/ops/.
- `Target/<Format>/`: an emitter's (`tile-opt --emit=<format>`, as MLIR's
  test/Target/LLVMIR), `emit-<format>.mlir` and `emit-<format>-<variant>.mlir`.
- `Dialect/<Dialect>/`: `ops[-<variant>].mlir` (valid IR parses, verifies and
  round-trips) and `invalid[-<variant>].mlir` (what is diagnosed).
- A tool's folder, named for the tool (`tile-opt/`), and `Simulator/` (tilec.sim, run
  through tile-sim): `<topic>[-<variant>].mlir`, the topic a feature of the tool or a
  kernel, the variant what goes wrong with it (`vadd-race.mlir`).
- `Inputs/` beside any of them: files RUN lines read (`%S/Inputs/<name>.mlir`), named
  by the same word rule, each read by some test.
"""

from __future__ import annotations

import re
from pathlib import PurePath

import pytest
from lit_names import LitNames, lit_files

_PREFIX_FLAG = re.compile(r"--check-prefix(?:es)?[= ](\S+)")


def _prefixes(text: str) -> set[str]:
    found = {"CHECK"}
    for match in _PREFIX_FLAG.finditer(text):
        found.update(match.group(1).split(","))
    return found


def test_check_directives_have_colons(repo):
    problems = []
    for path in lit_files(repo):
        text = path.read_text()
        prefixes = "|".join(sorted(_prefixes(text), key=len, reverse=True))
        directive = re.compile(
            rf"//\s*({prefixes})(-(NEXT|SAME|NOT|DAG|LABEL|EMPTY|COUNT-\d+))?(?P<colon>:?)"
            rf"(?=\s|$)"
        )
        for number, line in enumerate(text.splitlines(), 1):
            match = directive.search(line)
            if match and not match["colon"]:
                problems.append(f"{path.relative_to(repo)}:{number}: {line.strip()}")
    assert not problems, "check directives without ':'\n" + "\n".join(problems)


def test_every_lit_test_has_a_run_line(repo):
    missing = [
        str(p.relative_to(repo))
        for p in lit_files(repo)
        if "Inputs" not in p.parts and "RUN:" not in p.read_text()
    ]
    assert not missing


def test_lit_files_follow_the_naming_convention(repo):
    convention = LitNames(repo)
    problems = []
    for path in lit_files(repo):
        why = convention.problem(path.relative_to(repo / "test"), path.read_text())
        if why is not None:
            problems.append(f"{path.relative_to(repo)}: {why}")
    assert not problems, f"lit files named against the convention ({__name__}):\n" + "\n".join(
        problems
    )


_RUN_PLAN = "// RUN: not tile-opt %s --tile-ascend-plan-memory 2>&1 | filecheck %s\n"
_RUN_ROUNDTRIP = "// RUN: tile-opt %s | tile-opt | filecheck %s\n"


@pytest.mark.parametrize(
    "path, text, why",
    [
        (
            "Conversion/TileToAscend/malformed-attributes.mlir",
            _RUN_PLAN,
            "should be Conversion/TileToAscend/tile-ascend-plan-memory-malformed-attributes.mlir",
        ),
        (
            "Transforms/tile-ascend-plan-memory-reuse.mlir",
            _RUN_PLAN,
            "belongs in Conversion/TileToAscend/tile-ascend-plan-memory-reuse.mlir",
        ),
        ("Conversion/TileToAscend/tile-ascend-plan-memory-x.mlir", _RUN_ROUNDTRIP, "no RUN"),
        (
            "Conversion/TileToAscend/tile-ascend-plan-memory-invalid.mlir",
            _RUN_PLAN.replace("not ", ""),
            "checks no diagnostic",
        ),
        ("Conversion/TileToAscend/ops/cube_gemms.mlir", "", "should be cube_gemm.mlir"),
        ("Conversion/TileToAscend/cube_gemm.mlir", "", "should be <pass-argument>"),
        ("Target/AscendC/ascendc_ir.mlir", "", "should be emit-ascendc-ascendc-ir.mlir"),
        ("Dialect/Ascend/fixpipe-dual-dst.mlir", _RUN_ROUNDTRIP, "should be ops-fixpipe"),
        ("Dialect/Ascend/bad-attrs.mlir", _RUN_PLAN, "should be invalid-bad-attrs.mlir"),
        ("Simulator/Inputs/vadd_double_buffer.mlir", "", "should be vadd-double-buffer.mlir"),
        ("Simulator/Inputs/never-read.mlir", "", "no test reads it"),
        ("tile-opt/Split_Input.mlir", "", "should be split-input.mlir"),
        ("Sim/vadd.mlir", "", "lit tests live in"),
    ],
)
def test_misnamed_lit_files_are_told_their_name(repo, path, text, why):
    assert why in (LitNames(repo).problem(PurePath(path), text) or "")
