"""Textual pass pipelines that mix tilec's Python passes with upstream passes.

`builtin.module(tile-canonicalize,canonicalize,func.func(cse,tile-foo{x=1}))`
is parsed into a tree, tilec passes and named pipelines are looked up in the
registry, and everything else is handed to MLIR's own pipeline parser. The
bindings abort the process when a Python pass is nested on `func.func`, so a
tilec pass written under an op nest is scheduled at module level and handed
the nested ops itself; function passes are independent per function, so the
result is the same as true nesting.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from mlir import ir
from mlir.passmanager import PassManager

from tilec.diagnostics import CompileError, Diagnostic, capture_errors
from tilec.passes.registry import NamedPipeline, Pass, PassFailure, instantiate, lookup
from tilec.targets.ascend.attributes import InvalidAttribute

_NAME = re.compile(r"[A-Za-z0-9_.\-]+")


@dataclass
class Element:
    """One pipeline element: a pass (no children) or an op nest (children)."""

    name: str
    options: str = ""
    children: list[Element] | None = None


@dataclass
class _Leaf:
    path: tuple[str, ...]
    element: Element
    tilec_pass: Pass | None = None

    def stage_name(self) -> str:
        """The element as written in the pipeline, options included: the name
        of the IR after it (`convert-tile-to-cpu{ops=tile.gemm}`)."""
        return _upstream_text(self.element)


@dataclass
class Pipeline:
    """A parsed, resolved pipeline ready to build pass managers from."""

    leaves: list[_Leaf] = field(default_factory=list)

    def arguments(self) -> list[str]:
        return [leaf.element.name for leaf in self.leaves]

    @staticmethod
    def of(items: Sequence[Pass | str]) -> Pipeline:
        """A module-level pipeline from pass objects and pipeline texts, in order."""
        pipeline = Pipeline()
        for item in items:
            if isinstance(item, Pass):
                pipeline.leaves.append(_Leaf((), Element(item.argument), item))
            else:
                pipeline.leaves.extend(parse_pipeline(item).leaves)
        return pipeline


def _error(message: str) -> CompileError:
    return CompileError(Diagnostic("error", message))


def parse_elements(text: str) -> list[Element]:
    """Parses `a{x=1},b(c,d)` into elements; raises CompileError on bad syntax."""
    pos = 0

    def fail(message: str) -> CompileError:
        return _error(f"invalid pass pipeline '{text}': {message} at offset {pos}")

    def skip_spaces() -> None:
        nonlocal pos
        while pos < len(text) and text[pos].isspace():
            pos += 1

    def parse_list() -> list[Element]:
        nonlocal pos
        elements = [parse_element()]
        skip_spaces()
        while pos < len(text) and text[pos] == ",":
            pos += 1
            elements.append(parse_element())
            skip_spaces()
        return elements

    def parse_element() -> Element:
        nonlocal pos
        skip_spaces()
        match = _NAME.match(text, pos)
        if match is None:
            raise fail("expected a pass or op name")
        pos = match.end()
        element = Element(match.group())
        if pos < len(text) and text[pos] == "{":
            depth, start = 0, pos
            while pos < len(text):
                depth += {"{": 1, "}": -1}.get(text[pos], 0)
                pos += 1
                if depth == 0:
                    break
            if depth != 0:
                raise fail("unbalanced '{'")
            element.options = text[start + 1 : pos - 1].strip()
        skip_spaces()
        if pos < len(text) and text[pos] == "(":
            pos += 1
            skip_spaces()
            element.children = [] if text[pos : pos + 1] == ")" else parse_list()
            skip_spaces()
            if pos >= len(text) or text[pos] != ")":
                raise fail("expected ')'")
            pos += 1
        return element

    if not text.strip():
        return []
    elements = parse_list()
    skip_spaces()
    if pos != len(text):
        raise fail(f"unexpected '{text[pos]}'")
    return elements


def parse_pipeline(text: str) -> Pipeline:
    """Resolves a pipeline; a top-level `builtin.module(...)` is optional."""
    elements = parse_elements(text)
    [first, *rest] = elements or [Element("")]
    if not rest and first.name == "builtin.module" and first.children is not None:
        elements = first.children
    pipeline = Pipeline()
    for element in elements:
        _resolve(element, (), pipeline, expanding=())
    return pipeline


def _resolve(
    element: Element, path: tuple[str, ...], pipeline: Pipeline, expanding: tuple[str, ...]
) -> None:
    if element.children is not None:
        for child in element.children:
            _resolve(child, (*path, element.name), pipeline, expanding)
        return
    entry = lookup(element.name)
    if isinstance(entry, NamedPipeline):
        if element.name in expanding:
            raise _error(f"pipeline '{element.name}' expands to itself")
        for inner in parse_elements(entry.pipeline_text(element.options)):
            _resolve(inner, path, pipeline, (*expanding, element.name))
        return
    if entry is not None:
        tilec_pass = instantiate(entry, element.options)
        if path and entry.anchor is not None and path[-1] != entry.anchor:
            raise _error(
                f"pass '{entry.argument}' runs on '{entry.anchor}' but is nested under '{path[-1]}'"
            )
        pipeline.leaves.append(_Leaf(path, element, tilec_pass))
        return
    pipeline.leaves.append(_Leaf(path, element))


def _nest(path: tuple[str, ...], inner: str) -> str:
    for op_name in reversed(path):
        inner = f"{op_name}({inner})"
    return inner


def _upstream_text(element: Element) -> str:
    return f"{element.name}{{{element.options}}}" if element.options else element.name


# Upstream options whose value is a pipeline that the pass parses only when
# it runs, printing a parse error to stderr and going on without it.
_LAZY_PIPELINE_OPTIONS = {"inline": ("default-pipeline",)}

# How MLIR's pipeline parser and LLVM's option parser word a rejection.
_BAD_VALUE = re.compile(r"for the --(?P<option>[\w-]+) option: (?P<why>.*?)!?$", re.M)
_NO_OPTION = re.compile(r"no such option (?P<option>\S+)")
_PARSER_ERROR = re.compile(r"error: (?P<why>.+)")
_FAILED_TO_ADD = re.compile(r"failed to add `(?P<name>[^`]*)` with options `(?P<options>[^`]*)`")


def _check_upstream(leaf: _Leaf, context: ir.Context) -> None:
    """Validates one upstream element, turning the parsers' messages into ours."""
    element = leaf.element
    reason = _rejection(_nest(leaf.path, _upstream_text(element)), context)
    if reason is not None:
        raise _error(_reword(reason))
    values = _option_values(element.options)
    for option in _LAZY_PIPELINE_OPTIONS.get(element.name, ()):
        reason = _rejection(values.get(option, ""), context)
        if reason is not None:
            raise _error(
                f"invalid value for option '{option}' of pass '{element.name}': "
                f"{_reword(reason)}"
            )


def _rejection(text: str, context: ir.Context) -> str | None:
    """Why MLIR rejects the pipeline `builtin.module(text)`, or None.

    LLVM's option parser prints a bad option value on the process's stderr
    rather than into the exception, so that is captured around the parse.
    """
    if not text:
        return None
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as sink:
        os.dup2(sink.fileno(), 2)
        try:
            PassManager.parse(f"builtin.module({text})", context)
        except ValueError as exc:
            message = str(exc)
        else:
            message = None
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        sink.seek(0)
        printed = sink.read().decode(errors="replace")
    return None if message is None else f"{printed}\n{message}"


def _reword(reason: str) -> str:
    """One line in tilec's words from what MLIR printed and raised."""
    added = _FAILED_TO_ADD.search(reason)
    of_pass = f" of pass '{added['name']}'" if added else ""
    if found := _BAD_VALUE.search(reason):
        return f"invalid value for option '{found['option']}'{of_pass}: {found['why']}"
    if added and (found := _NO_OPTION.search(reason)):
        return f"pass '{added['name']}' has no option '{found['option']}'"
    found = _PARSER_ERROR.search(reason)
    if found is None:
        lines = [line.strip() for line in reason.splitlines() if line.strip()]
        return lines[-1] if lines else "rejected by MLIR"
    if added:
        return f"invalid options '{added['options']}' for pass '{added['name']}': {found['why']}"
    return found["why"]


def _option_values(options: str) -> dict[str, str]:
    """`a=1 b={x y} c='z'` as {a: 1, b: x y, c: z}, split the way MLIR's
    pass-option parser splits it: at spaces outside quotes and braces."""
    values: dict[str, str] = {}
    for word in _option_words(options):
        key, _, value = word.partition("=")
        if len(value) >= 2 and (value[0], value[-1]) in (("{", "}"), ("'", "'"), ('"', '"')):
            value = value[1:-1]
        values[key] = value
    return values


def _option_words(options: str) -> Iterator[str]:
    start, depth, quote = 0, 0, ""
    for pos, char in enumerate(options):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "{}":
            depth += 1 if char == "{" else -1
        elif char == " " and depth == 0:
            if pos > start:
                yield options[start:pos]
            start = pos + 1
    if options[start:]:
        yield options[start:]


def _anchor_ops(
    root: ir.Operation, path: tuple[str, ...], anchor: str | None
) -> list[ir.Operation]:
    """The ops a module-level-scheduled pass must visit, collected before it runs."""
    ops = [root]
    for op_name in path:
        ops = [child for op in ops for child in _children(op) if child.name == op_name]
    if anchor is None or (path and path[-1] == anchor):
        return ops
    return [nested for op in ops for nested in _walk(op) if nested.name == anchor]


def _children(op: ir.Operation) -> Iterator[ir.Operation]:
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                yield child.operation


def _walk(op: ir.Operation) -> Iterator[ir.Operation]:
    for child in _children(op):
        yield child
        yield from _walk(child)


def _python_pass(leaf: _Leaf, tilec_pass: Pass):
    def run(op: ir.Operation, external_pass) -> None:
        anchor = op.operation
        try:
            for anchor in _anchor_ops(op.operation, leaf.path, tilec_pass.anchor):
                tilec_pass.run(anchor)
        except PassFailure:
            external_pass.signal_pass_failure()
        except InvalidAttribute as exc:  # damaged input: at the op that carries it
            exc.owner.location.emit_error(f"{tilec_pass.argument}: {exc.message}")
            external_pass.signal_pass_failure()
        except Exception as exc:  # a bug in a pass must not escape as a traceback
            anchor.location.emit_error(
                f"internal error in pass '{tilec_pass.argument}': {type(exc).__name__}: {exc}"
            )
            external_pass.signal_pass_failure()

    return run


# Upstream passes that lower memrefs to LLVM. MemRefToLLVM asserts (and
# aborts the process) on a memref whose elements are narrower than a byte,
# so a check in front of each turns such IR into a located error; on cpu,
# tile-widen-bools makes bool tensors and tiles byte-sized first. A memory
# space without an address space (another target's) fails there without a
# location, so it is refused in front too.
_MEMREF_TO_LLVM = frozenset({"finalize-memref-to-llvm", "convert-to-llvm"})


def _refuse_sub_byte_memrefs(op: ir.Operation, external_pass) -> None:
    found = False

    def visit(inner: ir.Operation) -> ir.WalkResult:
        nonlocal found
        values = [*inner.results]
        for region in inner.regions:
            for block in region.blocks:
                values.extend(block.arguments)
        for value in values:
            if not isinstance(value.type, ir.MemRefType):
                continue
            memref = ir.MemRefType(value.type)
            element = memref.element_type
            if isinstance(element, ir.IntegerType) and ir.IntegerType(element).width < 8:
                inner.location.emit_error(
                    f"a memref of {element} cannot be lowered to LLVM (its elements are "
                    "narrower than a byte); widen it first (tile-widen-bools)"
                )
                found = True
                return ir.WalkResult.INTERRUPT
            space = memref.memory_space
            if space is not None and not isinstance(space, ir.IntegerAttr):
                # MemRefToLLVM fails on it with an error that has no location
                inner.location.emit_error(
                    f"a memref in memory space {space} cannot be lowered to LLVM (it has no "
                    f"address space there): is this IR for another target?")
                found = True
                return ir.WalkResult.INTERRUPT
        return ir.WalkResult.ADVANCE

    op.walk(visit)
    if found:
        external_pass.signal_pass_failure()


def build_pass_manager(pipeline: Pipeline, context: ir.Context) -> PassManager:
    """One PassManager running the leaves in order; consecutive upstream
    leaves under the same nest share one textual segment."""
    pm = PassManager("builtin.module", context)
    pending: list[str] = []
    pending_path: tuple[str, ...] | None = None

    def flush() -> None:
        nonlocal pending, pending_path
        if pending:
            pm.add(_nest(pending_path or (), ",".join(pending)))
        pending, pending_path = [], None

    for leaf in pipeline.leaves:
        if leaf.tilec_pass is None:
            _check_upstream(leaf, context)
            text = _upstream_text(leaf.element)
            if leaf.element.name in _MEMREF_TO_LLVM:
                flush()
                pm.add(
                    _refuse_sub_byte_memrefs,
                    name="RefuseSubByteMemrefs",
                    argument="refuse-sub-byte-memrefs",
                    description="a located error for the memrefs MemRefToLLVM would abort on",
                )
            if pending_path is not None and pending_path != leaf.path:
                flush()
            pending.append(text)
            pending_path = leaf.path
            continue
        flush()
        pm.add(
            _python_pass(leaf, leaf.tilec_pass),
            name=type(leaf.tilec_pass).__name__,
            # With its options, so that each run of a pass configured per
            # stage (convert-tile-to-cpu{ops=...}) is told apart in IR dumps.
            argument=leaf.tilec_pass.pipeline_text(),
            description=leaf.tilec_pass.summary,
        )
    flush()
    return pm


def run_pipeline(
    module: ir.Module | ir.Operation,
    pipeline: str | Pipeline | Sequence[Pass | str],
    *,
    print_ir_after_all: bool = False,
    print_ir_before_all: bool = False,
    timing: bool = False,
    verify_each: bool = True,
) -> None:
    """Runs `pipeline` on `module` in place; raises CompileError with the
    diagnostics of the first failing pass. IR dumps and the timing report go to
    stderr in mlir-opt's format."""
    op = module.operation
    if isinstance(pipeline, str):
        pipeline = parse_pipeline(pipeline)
    elif not isinstance(pipeline, Pipeline):
        pipeline = Pipeline.of(pipeline)
    pm = build_pass_manager(pipeline, op.context)
    pm.enable_verifier(verify_each)
    if print_ir_after_all or print_ir_before_all:
        pm.enable_ir_printing(
            print_before_all=print_ir_before_all, print_after_all=print_ir_after_all
        )
    if timing:
        pm.enable_timing()
    try:
        run_pass_manager(pm, op)
    finally:
        del pm  # the timing report is printed when the pass manager goes away


def run_pass_manager(pm: PassManager, op: ir.Operation) -> None:
    """Runs `pm` on `op`; raises CompileError with the errors emitted during
    the run, also when every pass reported success (see `capture_errors`:
    without it such a run aborts the process). Every pipeline runs here."""
    failure = None
    with capture_errors(op.context) as errors:
        try:
            pm.run(op)
        except ir.MLIRError as exc:
            failure = str(exc)
    if errors or failure is not None:
        raise CompileError(errors or [Diagnostic("error", failure or "pass pipeline failed")])
