"""Errors that passes emit, whether they fail or not, and bad upstream
options, end as diagnostics and exit code 1 — from tile-opt, run_pipeline
and tilec.compile alike (issue 9).

Each case runs in a child process: what it guards against is an abort of
the whole process (the bindings' ErrorCapture assertion), which in the
test runner's own process would end the test run.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap

import pytest

SHARED = "func.func @f(%x: memref<4xf32, #tile.scope<shared>>) { return }\n"
GLOBAL = "func.func @f(%x: memref<?xf32, #ascend.mem<gm>>) { return }\n"
UNMAPPED = "error: conversion of memref memory space {} to integer address space failed"
FOREIGN = ("1:1: error: a memref in memory space #ascend.mem<gm> cannot be lowered to LLVM (it "
           "has no address space there)")
"""Through the cpu pipeline: the check in front of the memref lowering, at the op."""


def _python(code: str, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _tile_opt(source: str, *flags: str) -> subprocess.CompletedProcess[str]:
    return _python("import sys; from tilec.tools.tile_opt import main; sys.exit(main())",
                   "-", *flags, stdin=source)


@pytest.mark.parametrize(
    ("source", "flags", "message"),
    [
        (SHARED, ["--convert-func-to-llvm"], UNMAPPED.format("#tile.scope<shared>")),
        (GLOBAL, ["--tile-to-cpu"], FOREIGN),
        (
            SHARED,
            ["--inline=default-pipeline=bogus"],
            "error: invalid value for option 'default-pipeline' of pass 'inline': "
            "'bogus' does not refer to a registered pass or pass pipeline",
        ),
        (
            SHARED,
            ["--canonicalize=max-iterations=abc"],
            "error: invalid value for option 'max-iterations' of pass 'canonicalize': "
            "'abc' value invalid for long argument",
        ),
    ],
)
def test_tile_opt_reports_and_exits_1(source, flags, message):
    result = _tile_opt(source, *flags)
    assert result.returncode == 1, result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr and "Assertion" not in result.stderr
    assert not re.search(r"^error: *$", result.stderr, re.M), result.stderr


def test_compile_raises_compile_error():
    result = _python(
        """
        import sys
        import tilec
        from tilec.diagnostics import CompileError

        try:
            tilec.compile(sys.argv[1])
        except CompileError as exc:
            print(exc)
            sys.exit(1)
        """,
        GLOBAL.replace(") {", ") attributes {tile.entry} {"),
    )
    assert result.returncode == 1, result.stderr
    assert f"<string>:{FOREIGN}" in result.stdout


def test_run_pipeline_raises_for_a_pass_that_reports_without_failing():
    result = _python(
        """
        import sys
        from dataclasses import dataclass

        from tilec import ir
        from tilec.diagnostics import CompileError
        from tilec.passes import Pass, run_pipeline

        @dataclass(frozen=True)
        class Complains(Pass):
            argument = "tile-test-complains"
            summary = "Emits an error and carries on"

            def run(self, op):
                op.location.emit_error("complained")

        context = ir.make_context()
        module = ir.parse_module("module {}", "in.mlir", context)
        try:
            with context:
                run_pipeline(module, [Complains(), "canonicalize"])
        except CompileError as exc:
            print(exc)
            sys.exit(1)
        """
    )
    assert result.returncode == 1, result.stderr
    assert "in.mlir:1:1: error: complained" in result.stdout


def test_a_reader_that_goes_away_is_no_error():
    """`tile-opt --list-passes | head -1`: no 'Broken pipe' error, exit 0."""
    child = subprocess.Popen(
        [sys.executable, "-m", "tilec.tools.tile_opt", "--list-passes"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert child.stdout.readline()
    child.stdout.close()
    _, stderr = child.communicate(timeout=120)
    assert child.returncode == 0, stderr
    assert b"Broken pipe" not in stderr
