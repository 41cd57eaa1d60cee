"""The simulator's findings and failures as `tilec.diagnostics` records.

Races, deadlocks and flag misuse are findings about the simulated program:
they are collected as diagnostics and the simulation goes on where it can.
Anything that stops the simulation (an unsupported op, an out-of-bounds
access, a buffer over capacity, bad inputs) is raised as `SimError`, a
`CompileError`, so the CLI prints it like tile-opt does and a user never
sees a traceback.

Sites carry their location as the text `file:line:col` (what messages
print); `at` turns it back into a record.
"""

from __future__ import annotations

import re

from tilec.diagnostics import CompileError, Diagnostic

_FILE_LOC = re.compile(r'"((?:[^"\\]|\\.)*)":(\d+):(\d+)')
UNKNOWN = "<unknown>"


def format_location(location: object) -> str:
    """`file:line:col` of an MLIR location (the first file position inside
    fused/call-site/name locations), or `<unknown>`."""
    match = _FILE_LOC.search(str(location))
    if match is None:
        return UNKNOWN
    return f"{match.group(1)}:{match.group(2)}:{match.group(3)}"


def at(location: str, severity: str, message: str,
       notes: tuple[Diagnostic, ...] = ()) -> Diagnostic:
    """A diagnostic at `location` (`file:line:col` or `<unknown>`)."""
    if location == UNKNOWN:
        return Diagnostic(severity, message, notes=notes)
    file, line, col = location.rsplit(":", 2)
    return Diagnostic(severity, message, file, int(line), int(col), notes)


def note(location: str, message: str) -> Diagnostic:
    return at(location, "note", message)


def error(location: str, message: str, *notes: Diagnostic) -> Diagnostic:
    return at(location, "error", message, tuple(notes))


class SimError(CompileError):
    """A problem that stops the simulation, described by diagnostics."""


def fail(location: str, message: str, *notes: Diagnostic) -> SimError:
    """A `SimError` to raise: `raise fail(loc, "...")`."""
    return SimError(error(location, message, *notes))
