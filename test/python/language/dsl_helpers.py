"""Helpers for the DSL tests: find tagged source lines, list ops and their locations."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from tilec import ir
from tilec.language import DSLError, PrimFunc


def tagged_line(path: str, tag: str) -> int:
    """The number of the one line of `path` that ends with the comment `# <tag>`."""
    lines = [
        number
        for number, text in enumerate(Path(path).read_text().splitlines(), start=1)
        if text.rstrip().endswith(f"# {tag}")
    ]
    assert len(lines) == 1, f"tag {tag!r} is on lines {lines} of {path}"
    return lines[0]


def tagged_col(path: str, tag: str, snippet: str) -> int:
    """The 1-based column of `snippet` on the line tagged `tag`."""
    text = Path(path).read_text().splitlines()[tagged_line(path, tag) - 1]
    assert snippet in text, f"{snippet!r} is not on the line tagged {tag!r}"
    return text.index(snippet) + 1


@dataclass(frozen=True)
class OpInfo:
    name: str
    file: str
    line: int
    col: int
    op: ir.Operation


def ops(module: ir.Module) -> list[OpInfo]:
    """Every op nested in the module's functions, in program order, with its file location."""
    found: list[OpInfo] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        loc = op.location
        if op.name != "builtin.module":
            assert loc.is_a_file(), f"{op.name} has no file location: {loc}"
            found.append(OpInfo(op.name, loc.filename, loc.start_line, loc.start_col, op))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def names(module: ir.Module) -> list[str]:
    return [info.name for info in ops(module)]


def build(kernel: PrimFunc) -> ir.Module:
    """The kernel's module in the current context (the `context` fixture)."""
    return kernel.build(ir.Context.current)


def expect_error(action: Callable[[], object], path: str, tag: str, *fragments: str) -> DSLError:
    """Runs `action`, which must raise a DSLError at the line tagged `tag` of `path`
    whose message contains every fragment; checks the rendered excerpt too."""
    with pytest.raises(DSLError) as info:
        action()
    err = info.value
    line = tagged_line(path, tag)
    assert err.loc is not None, str(err)
    assert (err.loc.file, err.loc.line) == (path, line), str(err)
    for fragment in fragments:
        assert fragment in err.message, f"{fragment!r} not in {err.message!r}"
    source = Path(path).read_text().splitlines()[line - 1]
    header, excerpt, caret = str(err).splitlines()[:3]
    assert header == f"{path}:{line}:{err.loc.col}: error: {err.message}"
    assert excerpt == source
    assert caret == " " * (err.loc.col - 1) + "^"
    # The user sees their own line, not tilec's internals.
    assert err.__suppress_context__ or err.__context__ is None
    return err
