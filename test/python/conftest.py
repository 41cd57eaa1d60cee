"""Shared fixtures: a context with tilec's dialects, and repository paths."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tilec import ir

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def repo() -> Path:
    return REPO


@pytest.fixture
def cpu_stage():
    """The name of a convert-tile-to-cpu stage (`ops`) of a kernel compiled for `cpu` here:
    it names the variant (`target=cpu:avx512`) where the host's best is not the first."""
    from tilec.passes.conversion.tile_to_cpu.pipelines import tile_to_cpu
    from tilec.runtime.stages import stage_names
    from tilec.targets import get_target, host_spec

    names = stage_names(tile_to_cpu(get_target(host_spec("cpu"))))

    def named(ops: str) -> str:
        pattern = rf"convert-tile-to-cpu\{{ops={re.escape(ops)}( .*)?\}}"
        (name,) = [n for n in names if re.fullmatch(pattern, n)]
        return name

    return named


@pytest.fixture
def context():
    ctx = ir.make_context()
    with ctx, ir.Location.unknown(ctx):
        yield ctx


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long sweeps; CI runs them only with -m slow")
