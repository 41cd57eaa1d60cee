"""The DSL tests' kernels, compiled for ascend and run in the simulator on both profiles.

The tests of test/python/language/ and the TileLang ports of
test/python/tilelang/ named below compile without a target, so
`$TILEC_TARGET` decides where they run: this module collects them again
(the same functions, fixtures and parameters; no kernel is copied) and runs
each one with TILEC_TARGET set to each ascend profile, so every numeric
check of those tests holds on the NPU's lowering (races and deadlocks found
by the simulator fail the call). The few that do not work on ascend yet are
left out below, each with the reason.
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tilec import backends

pytestmark = pytest.mark.e2e

_TESTS = Path(__file__).resolve().parents[1]
_MODULES = {
    "test_dsl_cpu": _TESTS / "language",
    "test_dsl_control_flow": _TESTS / "language",
    "test_dsl_tilelang_cpu": _TESTS / "language",
    # TileLang's split-KV decode kernels: mix kernels whose softmax rewrites
    # the accumulator of the first gemm before it is the second gemm's operand.
    "test_tl_mha_inference": _TESTS / "tilelang",
    "test_tl_mla_decode": _TESTS / "tilelang",
    "test_tl_gqa_decode": _TESTS / "tilelang",
}

NOT_ON_ASCEND = {
    "test_fill_and_scalar_atomic_add_convert_their_value": (
        "both blocks store the same tile to the same GM bytes, a write-after-write race "
        "the simulator reports"
    ),
}


def _module(name: str) -> object:
    """The test module `name`, the same object pytest uses when it collects it."""
    if name in sys.modules:
        return sys.modules[name]
    folder = _MODULES[name]
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))  # what pytest's prepend import mode does there
    spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _tests() -> dict[str, Callable]:
    found: dict[str, Callable] = {}
    for module_name in _MODULES:
        module = _module(module_name)
        for name, value in vars(module).items():
            if name.startswith("test_") and callable(value) and name not in NOT_ON_ASCEND:
                assert name not in found, f"{name} is defined in two DSL test modules"
                found[name] = value
    return found


# Collected here as this module's own tests: pytest keeps their marks
# (parametrize) and fixtures.
globals().update(_tests())


@pytest.fixture(autouse=True, params=["910b", "950"])
def ascend_target(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("TILEC_TARGET", f"ascend:{request.param}")
    return request.param


def test_kernels_without_a_target_compile_for_ascend(ascend_target: str) -> None:
    """What every test collected here relies on: no target means $TILEC_TARGET."""
    target, _ = backends.resolve(None)
    assert target.spec == f"ascend:{ascend_target}"


def test_every_left_out_test_exists() -> None:
    """A stale entry of NOT_ON_ASCEND would hide nothing and mislead."""
    names = {n for m in _MODULES for n in vars(_module(m)) if n.startswith("test_")}
    assert set(NOT_ON_ASCEND) <= names
