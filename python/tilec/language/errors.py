"""`DSLError`, the one error type of the DSL, and where in the user's code it points.

Every mistake a kernel author can make is reported as a `DSLError` at the
line of their Python source that caused it, rendered like a compiler
diagnostic: `file:line:col: error: message`, the source line, and a caret
under the column. The same rendering serves errors the DSL finds itself and
the MLIR verifier's diagnostics on the ops the DSL located at user lines.
"""

from __future__ import annotations

import linecache
from dataclasses import dataclass

from mlir import ir

from tilec.diagnostics import CompileError, Diagnostic


@dataclass(frozen=True)
class SourceLoc:
    """A position in the user's source: 1-based line and column."""

    file: str
    line: int
    col: int

    def mlir(self, context: ir.Context | None = None) -> ir.Location:
        return ir.Location.file(self.file, self.line, self.col, context)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


def _excerpt(diag: Diagnostic) -> list[str]:
    """The source line of `diag` and a caret under its column, when the file is readable."""
    if diag.file is None:
        return []
    line = linecache.getline(diag.file, diag.line).rstrip("\n")
    if not line.strip():
        return []
    return [line, " " * max(diag.col - 1, 0) + "^"]


def render(diag: Diagnostic) -> str:
    """`file:line:col: severity: message`, the source line and a caret, then the notes."""
    where = f"{diag.file}:{diag.line}:{diag.col}: " if diag.file is not None else ""
    lines = [f"{where}{diag.severity}: {diag.message}", *_excerpt(diag)]
    lines.extend(render(note) for note in diag.notes)
    return "\n".join(lines)


class DSLError(CompileError):
    """A kernel that the DSL cannot turn into valid tile IR, explained at the user's line.

    `DSLError(message, loc)` for an error the DSL found; `DSLError.from_diagnostics`
    for MLIR diagnostics (the verifier's) on ops located at user lines.
    """

    def __init__(self, message: str | list[Diagnostic], loc: SourceLoc | None = None):
        if isinstance(message, list):
            diagnostics = message
        elif loc is None:
            diagnostics = [Diagnostic("error", message)]
        else:
            diagnostics = [Diagnostic("error", message, loc.file, loc.line, loc.col)]
        super().__init__(diagnostics)
        self.args = ("\n".join(render(d) for d in self.diagnostics),)

    @property
    def message(self) -> str:
        """The first error's message, without location or excerpt."""
        return self.diagnostics[0].message

    @property
    def loc(self) -> SourceLoc | None:
        """Where the first error points, or None when it has no file position."""
        first = self.diagnostics[0]
        return None if first.file is None else SourceLoc(first.file, first.line, first.col)
