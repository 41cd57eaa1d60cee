"""Every registered pass follows the naming and documentation rules, and
has its lit test: the registry is what tile-opt and users see."""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from tilec import passes
from tilec.passes.registry import instantiate

ALL_PASSES = list(passes.passes())


def test_registry_is_not_empty():
    assert {p.argument for p in ALL_PASSES} >= {"tile-canonicalize-ops", "tile-verify-kernels"}


@pytest.mark.parametrize("cls", ALL_PASSES, ids=lambda c: c.argument)
def test_pass_names_agree(cls):
    assert re.fullmatch(r"tile-[a-z]+(-[a-z0-9]+)+", cls.argument), cls.argument
    words = cls.argument.removeprefix("tile-").split("-")
    module = inspect.getmodule(cls)
    assert module.__name__ == "tilec.passes." + "_".join(words)
    assert cls.__name__ == "".join(w.capitalize() for w in words) + "Pass"


@pytest.mark.parametrize("cls", ALL_PASSES, ids=lambda c: c.argument)
def test_pass_is_documented_and_tested(cls, repo):
    assert cls.summary and not cls.summary.endswith(".")
    assert inspect.getdoc(cls)
    assert inspect.getmodule(cls).__doc__.startswith(cls.argument + ":")
    test_file = f"{cls.argument}.mlir"
    in_transforms = (repo / "test" / "Transforms" / test_file).is_file()
    assert in_transforms or any((repo / "test" / "Conversion").rglob(test_file))


@pytest.mark.parametrize("cls", ALL_PASSES, ids=lambda c: c.argument)
def test_pass_options_round_trip(cls):
    default = cls()
    assert instantiate(cls, "") == default
    assert default.pipeline_text() == cls.argument
    for opt in cls.options():
        assert opt.help, f"option {opt.flag} of {cls.argument} has no help text"


def test_pipelines_expand_to_registered_passes():
    for pipeline in passes.pipelines():
        parsed = passes.parse_pipeline(pipeline.argument)
        assert parsed.arguments(), pipeline.argument


def test_every_pass_module_is_registered(repo):
    pass_modules = {
        p.stem
        for p in (repo / "passes").glob("*.py")
        # Private modules (`_name.py`) hold helpers shared by passes.
        if not p.stem.startswith("_")
        and p.stem not in {"registry", "pipeline", "all_passes", "upstream", "pipelines_builtin"}
    }
    registered = {inspect.getmodule(c).__name__.rsplit(".", 1)[1] for c in ALL_PASSES}
    assert pass_modules == registered
    for name in pass_modules:
        importlib.import_module(f"tilec.passes.{name}")
