"""Shared fixtures: a context with tilec's dialects, and repository paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from tilec import ir

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def context():
    ctx = ir.make_context()
    with ctx, ir.Location.unknown(ctx):
        yield ctx


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long sweeps; CI runs them only with -m slow")
