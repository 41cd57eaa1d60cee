"""Every `Example:` block in the ODS descriptions parses, verifies and
round-trips: documentation that no longer parses is a bug."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tilec import ir

_REPO = Path(__file__).resolve().parents[2]
_BLOCK = re.compile(r"```mlir\n(.*?)```", re.S)


def _examples() -> list[tuple[str, str]]:
    found = []
    for td in sorted((_REPO / "dialects").rglob("*.td")):
        for match in _BLOCK.finditer(td.read_text()):
            line = td.read_text()[: match.start()].count("\n") + 2
            found.append((f"{td.name}:{line}", match.group(1)))
    return found


EXAMPLES = _examples()


def test_dialects_have_examples():
    assert len(EXAMPLES) >= 20


@pytest.mark.parametrize(("where", "text"), EXAMPLES, ids=[w for w, _ in EXAMPLES])
def test_example_round_trips(context, where, text):
    printed = str(ir.parse_module(text, where))
    assert str(ir.parse_module(printed, where + "(printed)")) == printed


@pytest.mark.parametrize("dialect", ["Tile", "Ascend"])
def test_op_test_files_print_identically_after_a_round_trip(context, dialect):
    """print(parse(text)) is a fixed point for every op form the lit tests use."""
    path = _REPO / "test" / "Dialect" / dialect / "ops.mlir"
    for index, chunk in enumerate(path.read_text().split("// -----")):
        printed = str(ir.parse_module(chunk, f"{path.name}#{index}"))
        assert str(ir.parse_module(printed, f"{path.name}#{index}(printed)")) == printed
