"""MLIR diagnostics as plain records, collected and printed the mlir-opt way.

Everything tilec reports to a user goes through here, so tile-opt, the
Python API and the tests share one format: `file:line:col: error: message`
(or `error: message` when there is no file location), then its notes.
"""

from __future__ import annotations

import linecache
import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TextIO

from mlir import ir

_FILE_LOC = re.compile(r'loc\("(?P<file>(?:[^"\\]|\\.)*)":(?P<line>\d+):(?P<col>\d+)')
_SEVERITY = {
    ir.DiagnosticSeverity.ERROR: "error",
    ir.DiagnosticSeverity.WARNING: "warning",
    ir.DiagnosticSeverity.NOTE: "note",
    ir.DiagnosticSeverity.REMARK: "remark",
}


@dataclass(frozen=True)
class Diagnostic:
    severity: str
    message: str
    file: str | None = None
    line: int = 0
    col: int = 0
    notes: tuple[Diagnostic, ...] = field(default=())

    @staticmethod
    def from_location(severity: str, message: str, location: ir.Location | str) -> Diagnostic:
        """A record for `message` at the first file position found in `location`.

        Fused, call-site and name locations carry their file position inside,
        so a textual search covers every kind.
        """
        match = _FILE_LOC.search(str(location))
        if match is None:
            return Diagnostic(severity, message)
        return Diagnostic(
            severity, message, match["file"], int(match["line"]), int(match["col"])
        )

    @staticmethod
    def from_mlir(diag: ir.Diagnostic | ir.DiagnosticInfo) -> Diagnostic:
        base = Diagnostic.from_location(
            _SEVERITY.get(diag.severity, "error"), diag.message, diag.location
        )
        notes = tuple(Diagnostic.from_mlir(n) for n in diag.notes)
        return Diagnostic(base.severity, base.message, base.file, base.line, base.col, notes)

    def render(self) -> str:
        """`file:line:col: severity: message`, then, as mlir-opt does, the
        source line and a caret under the column when the file can be read,
        then the notes."""
        where = f"{self.file}:{self.line}:{self.col}: " if self.file is not None else ""
        lines = [f"{where}{self.severity}: {self.message}", *self._excerpt()]
        lines.extend(note.render() for note in self.notes)
        return "\n".join(lines)

    def _excerpt(self) -> list[str]:
        if self.file is None or self.line < 1:
            return []
        line = linecache.getline(self.file, self.line).rstrip("\n")
        if not line.strip():
            return []
        return [line, " " * max(self.col - 1, 0) + "^"]


class CompileError(Exception):
    """A failure that has already been described by diagnostics."""

    def __init__(self, diagnostics: list[Diagnostic] | Diagnostic):
        self.diagnostics = diagnostics if isinstance(diagnostics, list) else [diagnostics]
        super().__init__("\n".join(d.render() for d in self.diagnostics))


def error(message: str, location: ir.Location | str | None = None) -> CompileError:
    """A CompileError with one error diagnostic, at `location` when given."""
    if location is None:
        return CompileError(Diagnostic("error", message))
    return CompileError(Diagnostic.from_location("error", message, location))


def from_mlir_error(exc: ir.MLIRError) -> CompileError:
    """The CompileError carrying an MLIRError's diagnostics (its text when it has none)."""
    diagnostics = [Diagnostic.from_mlir(d) for d in exc.error_diagnostics]
    return CompileError(diagnostics or [Diagnostic("error", str(exc))])


@contextmanager
def collect(context: ir.Context) -> Iterator[list[Diagnostic]]:
    """Collects every diagnostic emitted in `context` while the block runs.

    The diagnostics are marked handled, so nothing reaches stderr on its own.
    """
    collected: list[Diagnostic] = []

    def handler(diag: ir.Diagnostic) -> bool:
        collected.append(Diagnostic.from_mlir(diag))
        return True

    handle = context.attach_diagnostic_handler(handler)
    try:
        yield collected
    finally:
        handle.detach()


@contextmanager
def capture_errors(context: ir.Context) -> Iterator[list[Diagnostic]]:
    """Records the errors emitted in `context` while the block runs, marked
    handled; warnings, notes and remarks go on to the other handlers.

    This is what must surround a call of the bindings that runs passes.
    `PassManager.run` puts an `ErrorCapture` on the context that takes every
    error for the MLIRError it raises when the run fails, and asserts
    (aborting the process) when the run succeeds with errors taken, which
    upstream passes do: a type converter reports a memory space it cannot
    map and the conversion leaves the op alone. With `emit_error_diagnostics`
    the capture hands the errors to the handlers instead, so they end up here
    and the caller decides what they mean; MLIRErrors raised inside the block
    then carry no diagnostics of their own.
    """
    recorded: list[Diagnostic] = []

    def handler(diag: ir.Diagnostic) -> bool:
        if diag.severity != ir.DiagnosticSeverity.ERROR:
            return False
        recorded.append(Diagnostic.from_mlir(diag))
        return True

    handle = context.attach_diagnostic_handler(handler)
    emitting = context.emit_error_diagnostics
    context.emit_error_diagnostics = True
    try:
        yield recorded
    finally:
        context.emit_error_diagnostics = emitting
        handle.detach()


def print_all(diagnostics: list[Diagnostic], stream: TextIO | None = None) -> None:
    out = stream or sys.stderr
    for diag in diagnostics:
        print(diag.render(), file=out)
