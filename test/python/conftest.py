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


# Whole kernels end to end: the library, and the TileLang and tilelang-ascend ports.
E2E_FOLDERS = {"kernels", "tilelang", "tilelang_ascend"}


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: long sweeps; CI runs them only with -m slow")
    config.addinivalue_line(
        "markers",
        "e2e: kernels run whole through the Ascend simulator, the cuda emulator, the AscendC "
        "CPU model or cpu JIT, many or big; CI runs them, a pass developer's loop skips them "
        "(-m 'not slow and not e2e': a -m replaces the default 'not slow'). The folders in "
        "E2E_FOLDERS, modules by pytestmark",
    )


@pytest.hookimpl(tryfirst=True)  # before -m deselects
def pytest_collection_modifyitems(items):
    here = Path(__file__).parent
    for item in items:
        if item.path.is_relative_to(here) and item.path.relative_to(here).parts[0] in E2E_FOLDERS:
            item.add_marker(pytest.mark.e2e)
