"""`// expected-error @+1 {{...}}` checking, as mlir-opt's --verify-diagnostics.

Expectations are read from comments of the source buffer; every diagnostic
produced while processing it must match one (same severity, line and a
message containing the text, or matching the regex for `-re`), and every
expectation must be matched.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tilec.diagnostics import Diagnostic

_EXPECTED = re.compile(
    r"expected-(?P<kind>error|warning|note|remark)(?P<re>-re)?"
    r"\s*(?:@(?P<where>[+-]\d+|above|below|unknown))?\s*\{\{(?P<text>.*)\}\}"
)
# Added to verifier errors by MLIR; mlir-opt suppresses it in this mode.
_CURRENT_OP_NOTE = "see current operation"


@dataclass
class Expectation:
    kind: str
    line: int | None  # None for @unknown
    text: str
    is_regex: bool
    comment_line: int
    comment_col: int
    matched: bool = False

    def matches(self, diag: Diagnostic) -> bool:
        if diag.severity != self.kind:
            return False
        line = diag.line if diag.file is not None else None
        if line != self.line:
            return False
        if self.is_regex:
            return _regex_from_mlir(self.text).search(diag.message) is not None
        return self.text in diag.message


def _regex_from_mlir(text: str) -> re.Pattern[str]:
    """`-re` texts are literal except inside `{{...}}`, as in FileCheck."""
    parts = re.split(r"\{\{(.*?)\}\}", text)
    return re.compile(
        "".join(part if i % 2 else re.escape(part) for i, part in enumerate(parts))
    )


def parse_expectations(source: str) -> list[Expectation]:
    lines = source.split("\n")
    expectations: list[Expectation] = []
    for index, line in enumerate(lines):
        number = index + 1
        for match in _EXPECTED.finditer(line):
            where = match["where"]
            target: int | None = number
            if where == "unknown":
                target = None
            elif where == "above":
                target = _nearest(lines, index, -1)
            elif where == "below":
                target = _nearest(lines, index, +1)
            elif where:
                target = number + int(where)
            expectations.append(
                Expectation(
                    match["kind"],
                    target,
                    match["text"],
                    bool(match["re"]),
                    number,
                    match.start() + 1,
                )
            )
    return expectations


def _nearest(lines: list[str], index: int, step: int) -> int:
    """The closest line in direction `step` that holds no expectation itself."""
    i = index + step
    while 0 <= i < len(lines) and _EXPECTED.search(lines[i]):
        i += step
    return i + 1


def check(
    source: str, source_name: str, diagnostics: list[Diagnostic]
) -> list[Diagnostic]:
    """The verification failures (empty when every expectation is met)."""
    expectations = parse_expectations(source)
    failures: list[Diagnostic] = []
    for diag in _flatten(diagnostics):
        for expectation in expectations:
            if not expectation.matched and expectation.matches(diag):
                expectation.matched = True
                break
        else:
            failures.append(
                Diagnostic(
                    "error",
                    f"unexpected {diag.severity}: {diag.message}",
                    diag.file if diag.file is not None else source_name,
                    diag.line,
                    diag.col,
                )
            )
    for expectation in expectations:
        if not expectation.matched:
            failures.append(
                Diagnostic(
                    "error",
                    f'expected {expectation.kind} "{expectation.text}" was not produced',
                    source_name,
                    expectation.comment_line,
                    expectation.comment_col,
                )
            )
    return failures


def _flatten(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    flat: list[Diagnostic] = []
    for diag in diagnostics:
        flat.append(Diagnostic(diag.severity, diag.message, diag.file, diag.line, diag.col))
        flat.extend(
            note for note in _flatten(list(diag.notes))
            if not note.message.startswith(_CURRENT_OP_NOTE)
        )
    return flat
