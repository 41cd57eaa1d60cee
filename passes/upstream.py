"""The upstream MLIR passes and pipelines available to tilec pipelines.

The bindings register every upstream pass but cannot list them; the pinned
`mlir-opt` from the same wheels has the same registry and prints it in its
help, so that is read once and cached.
"""

from __future__ import annotations

import functools
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import mlir

_ENTRY = re.compile(r"^ {6}--(?P<name>[A-Za-z0-9_.\-]+)(?:=<[^>]*>)?\s+-\s+(?P<summary>.*)$")


@dataclass(frozen=True)
class UpstreamPass:
    argument: str
    summary: str
    is_pipeline: bool


def mlir_opt_path() -> Path:
    """The mlir-opt shipped with the pinned mlir wheels."""
    return Path(next(iter(mlir.__path__))) / "bin" / "mlir-opt"


@functools.cache
def upstream_passes() -> tuple[UpstreamPass, ...]:
    """Every upstream pass and pass pipeline, in mlir-opt's order."""
    try:
        help_text = subprocess.run(
            [str(mlir_opt_path()), "--help"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return ()
    entries: list[UpstreamPass] = []
    section = None
    for line in help_text.splitlines():
        stripped = line.strip()
        if stripped == "Passes:":
            section = "passes"
            continue
        if stripped == "Pass Pipelines:":
            section = "pipelines"
            continue
        if section and line.startswith("  ") and not line.startswith("    "):
            section = None
        match = _ENTRY.match(line) if section else None
        if match:
            entries.append(
                UpstreamPass(match["name"], match["summary"].strip(), section == "pipelines")
            )
    return tuple(entries)
