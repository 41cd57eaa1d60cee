"""Pipelines from Python: parsing, mixing with upstream passes, nesting,
failures reported as diagnostics."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest

from tilec import ir
from tilec.diagnostics import CompileError
from tilec.passes import Pass, emit_error, parse_pipeline, run_pipeline
from tilec.passes.canonicalize_ops import CanonicalizeOpsPass
from tilec.passes.pipeline import parse_elements
from tilec.passes.verify_kernels import VerifyKernelsPass

TWO_FUNCS = """
func.func @a() -> (i32, i32) {
  %x = arith.constant 1 : i32
  %y = arith.constant 1 : i32
  return %x, %y : i32, i32
}
func.func @b() {
  return
}
"""


@dataclass(frozen=True)
class _RecordFunctions(Pass):
    """Test pass: records the functions it is handed."""

    argument = "tile-record-functions"
    summary = "Record function names"
    anchor = "func.func"
    seen: list

    def run(self, op):
        self.seen.append(ir.StringAttr(op.attributes["sym_name"]).value)


@dataclass(frozen=True)
class _Broken(Pass):
    argument = "tile-broken-pass"
    summary = "Raises a Python error"

    def run(self, op):
        raise KeyError("oops")


@dataclass(frozen=True)
class _Rejects(Pass):
    argument = "tile-reject-functions"
    summary = "Fails on every function"
    anchor = "func.func"

    def run(self, op):
        raise emit_error(op, "rejected")


def test_elements_parse_nested_and_options():
    [root] = parse_elements("builtin.module(a{x=1 y=2},func.func(b, c{z={w}}))")
    assert root.name == "builtin.module"
    a, nest = root.children
    assert (a.name, a.options) == ("a", "x=1 y=2")
    assert nest.name == "func.func"
    assert [(c.name, c.options) for c in nest.children] == [("b", ""), ("c", "z={w}")]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a(", "expected a pass or op name"),
        ("a{x=1", "unbalanced '{'"),
        ("a)", "unexpected ')'"),
        ("tile-verify-kernels{target=x}", "invalid value 'x' for option 'target'"),
        (
            "gpu.module(tile-canonicalize-ops)",
            "runs on 'func.func' but is nested under 'gpu.module'",
        ),
    ],
)
def test_bad_pipelines_are_compile_errors(context, text, message):
    with pytest.raises(CompileError, match=re.escape(message)):
        parse_pipeline(text)


def test_named_pipeline_expands_in_place():
    assert parse_pipeline("cse,tile-cleanup").arguments() == [
        "cse",
        "tile-verify-kernels",
        "tile-canonicalize-ops",
        "canonicalize",
        "cse",
    ]


def test_function_pass_runs_on_each_function_in_order(context):
    module = ir.parse_module(TWO_FUNCS)
    seen: list[str] = []
    run_pipeline(module, [_RecordFunctions(seen), "cse", _RecordFunctions(seen)])
    assert seen == ["a", "b", "a", "b"]
    assert str(module).count("arith.constant") == 1


def test_pass_objects_and_text_mix(context):
    module = ir.parse_module(TWO_FUNCS)
    run_pipeline(module, [VerifyKernelsPass(target="cpu"), "func.func(cse)", CanonicalizeOpsPass()])
    assert str(module).count("arith.constant") == 1


def test_pass_errors_become_diagnostics(context):
    module = ir.parse_module(TWO_FUNCS, "two.mlir")
    with pytest.raises(CompileError) as info:
        run_pipeline(module, [_Rejects()])
    diag = info.value.diagnostics[0]
    assert (diag.file, diag.line, diag.message) == ("two.mlir", 2, "rejected")


def test_python_exceptions_in_passes_are_reported_not_raised(context):
    module = ir.parse_module(TWO_FUNCS)
    with pytest.raises(CompileError, match="internal error in pass 'tile-broken-pass': KeyError"):
        run_pipeline(module, [_Broken()])


def test_verifier_runs_after_python_passes(context):
    module = ir.parse_module(TWO_FUNCS)

    @dataclass(frozen=True)
    class _BreaksIR(Pass):
        argument = "tile-break-ir"
        summary = "Erases a return"

        def run(self, op):
            func = op.regions[0].blocks[0].operations[1]
            func.regions[0].blocks[0].operations[0].erase()

    with pytest.raises(CompileError, match=r"block with no terminator|empty block"):
        run_pipeline(module, [_BreaksIR()])
