"""Helpers for the simulator tests: the example kernels and edited copies of them.

The broken variants (a flag removed, a wait without a set) are made from the
example programs at test time, so they follow the examples as they evolve;
locations are looked up in the text rather than hard-coded.
"""

from __future__ import annotations

from pathlib import Path

INPUTS = Path(__file__).resolve().parents[2] / "Simulator" / "Inputs"


def read_input(name: str) -> str:
    return (INPUTS / name).read_text()


def line_of(text: str, needle: str, occurrence: int = 1) -> int:
    """1-based line of the `occurrence`-th line containing `needle`."""
    hits = [i + 1 for i, line in enumerate(text.split("\n")) if needle in line]
    assert len(hits) >= occurrence, f"{needle!r} occurs {len(hits)} times"
    return hits[occurrence - 1]


def location(name: str, text: str, needle: str, occurrence: int = 1) -> str:
    """`name:line:col` of the op whose name starts `needle` (MLIR locates an op
    at its name, after any results)."""
    line = line_of(text, needle, occurrence)
    return f"{name}:{line}:{text.split(chr(10))[line - 1].index(needle) + 1}"


def without_lines(text: str, *needles: str) -> str:
    """`text` without every line equal (after stripping) to one of `needles`."""
    kept = [line for line in text.split("\n") if line.strip() not in needles]
    assert len(kept) < len(text.split("\n")), f"none of {needles} found"
    return "\n".join(kept)


def position(diagnostic) -> str:
    """`file:line:col` of a diagnostic record."""
    return f"{diagnostic.file}:{diagnostic.line}:{diagnostic.col}"


def race_pairs(result) -> set[frozenset[str]]:
    """The unordered pairs of op locations that each race names (the op and its note)."""
    return {frozenset((position(race), position(race.notes[0]))) for race in result.races}
