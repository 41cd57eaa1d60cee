"""`DSLError`, the one error type of the DSL, and where in the user's code it points.

Every mistake a kernel author can make is reported as a `DSLError` at the
line of their Python source that caused it, rendered like any compiler
diagnostic (`tilec.diagnostics.Diagnostic.render`: the message, the source
line and a caret). The same rendering serves errors the DSL finds itself and
the MLIR verifier's diagnostics on the ops the DSL located at user lines.
"""

from __future__ import annotations

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

    @property
    def message(self) -> str:
        """The first error's message, without location or excerpt."""
        return self.diagnostics[0].message

    @property
    def loc(self) -> SourceLoc | None:
        """Where the first error points, or None when it has no file position."""
        first = self.diagnostics[0]
        return None if first.file is None else SourceLoc(first.file, first.line, first.col)
