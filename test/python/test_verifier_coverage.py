"""Every verifier message of both dialects has an `expected-error` case in
the dialect's invalid.mlir (house style: each user-facing message is tested)."""

from __future__ import annotations

import re

import pytest

# The literal that starts a message: emitOpError() << "..." or emitError(loc, "...").
_MESSAGE_START = re.compile(r'(?:emitOpError|emitError)\((?:[^()]|\([^()]*\))*\)\s*<<\s*"([^"]+)"')
_MESSAGE_CALL = re.compile(r'(?:emitOpError|emitError)\((?:[^(),]*,\s*)?"([^"]+)"')


@pytest.mark.parametrize("dialect", ["Tile", "Ascend"])
def test_every_verifier_message_has_a_negative_test(repo, dialect):
    sources = "".join(p.read_text() for p in (repo / "dialects" / dialect.lower()).glob("*.cpp"))
    invalid = (repo / "test" / "Dialect" / dialect / "invalid.mlir").read_text()
    expected = " ".join(re.findall(r"\{\{(.*)\}\}", invalid))
    fragments = {
        f.strip() for f in _MESSAGE_START.findall(sources) + _MESSAGE_CALL.findall(sources)
    }
    assert len(fragments) > 20
    missing = sorted(f for f in fragments if f and f not in expected)
    assert not missing, f"verifier messages without an expected-error case: {missing}"
