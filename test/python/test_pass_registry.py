"""Every registered pass and op lowering follows the naming and documentation
rules, and has its lit test: the registries are what tile-opt and users see.

Names follow MLIR: target-neutral transforms are `tile-<verb>-<object>` in
`passes/<verb>_<object>.py`; a target's transforms are
`tile-<target>-<verb>-<object>` and its conversion `convert-tile-to-<target>`,
both at the top of `passes/conversion/tile_to_<target>/`. Op lowerings live in
its `ops/`, each lowering module `<op>.py` with its lit test
`test/Conversion/TileTo<Target>/ops/<op>.mlir`; what passes compute and share
lives in its `analysis/`, and what every target's conversion shares directly
in `passes/conversion/`. Where a module sits says what it is: no list to keep.
"""

from __future__ import annotations

import importlib
import inspect
import re

import pytest

from tilec import passes
from tilec.passes.conversion import lowering as lowering_registry
from tilec.passes.conversion.lowering import lowerings
from tilec.passes.registry import instantiate
from tilec.targets import target_names

ALL_PASSES = list(passes.passes())
TARGETS = target_names()
# The machinery around passes (the registry, pipelines, upstream passes), not a pass.
FRAMEWORK = {"registry", "pipeline", "upstream"}


def _camel(words: list[str]) -> str:
    return "".join(w.capitalize() for w in words)


def _expected_place(argument: str) -> tuple[str, str, str]:
    """(module, class, test directory) a pass of this argument must have."""
    converted = re.fullmatch(r"convert-tile-to-([a-z]+)", argument)
    if converted:
        target = converted.group(1)
        folder = f"conversion.tile_to_{target}"
        return (
            f"{folder}.convert_tile_to_{target}",
            f"ConvertTileTo{target.capitalize()}Pass",
            f"Conversion/TileTo{target.capitalize()}",
        )
    words = argument.removeprefix("tile-").split("-")
    if words[0] in TARGETS:
        target, rest = words[0], words[1:]
        return (
            f"conversion.tile_to_{target}.{'_'.join(rest)}",
            _camel(words) + "Pass",
            f"Conversion/TileTo{target.capitalize()}",
        )
    return "_".join(words), _camel(words) + "Pass", "Transforms"


def test_registry_is_not_empty():
    assert {p.argument for p in ALL_PASSES} >= {
        "tile-canonicalize-ops",
        "tile-verify-kernels",
        "convert-tile-to-cpu",
    }


@pytest.mark.parametrize("cls", ALL_PASSES, ids=lambda c: c.argument)
def test_pass_names_agree(cls):
    assert re.fullmatch(r"(tile|convert-tile-to)-[a-z]+(-[a-z0-9]+)*", cls.argument)
    module, class_name, _ = _expected_place(cls.argument)
    assert inspect.getmodule(cls).__name__ == "tilec.passes." + module
    assert cls.__name__ == class_name


@pytest.mark.parametrize("cls", ALL_PASSES, ids=lambda c: c.argument)
def test_pass_is_documented_and_tested(cls, repo):
    assert cls.summary and not cls.summary.endswith(".")
    assert inspect.getdoc(cls)
    assert inspect.getmodule(cls).__doc__.startswith(cls.argument + ":")
    _, _, test_dir = _expected_place(cls.argument)
    assert (repo / "test" / test_dir / f"{cls.argument}.mlir").is_file()


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


def _lowering_modules(target: str) -> set[str]:
    return {
        inspect.getmodule(type(lowering)).__name__
        for found in lowerings(target).values()
        for lowering in found
    }


def _role(module: str) -> str:
    """What a module of passes/ must be, from where it sits."""
    parts = module.split(".")
    if len(parts) == 1:
        if module in FRAMEWORK:
            return "framework"
        return "pipelines" if module.startswith("pipelines") else "pass"
    if len(parts) == 2:
        return "library"  # passes/conversion/*.py: shared by every target's conversion
    if len(parts) == 3:
        return "pipelines" if parts[2] == "pipelines" else "pass"
    return {"ops": "lowering", "analysis": "library"}[parts[2]]


def test_every_pass_module_is_where_its_role_says(repo):
    modules = {
        ".".join(p.relative_to(repo / "passes").with_suffix("").parts)
        for p in (repo / "passes").rglob("*.py")
        if p.stem != "__init__"
    }
    registered = {inspect.getmodule(c).__name__.removeprefix("tilec.passes.") for c in ALL_PASSES}
    lowering_modules = {
        m.removeprefix("tilec.passes.") for t in TARGETS for m in _lowering_modules(t)
    }
    pipeline_modules = {
        inspect.getmodule(p.build).__name__.removeprefix("tilec.passes.")
        for p in passes.pipelines()
    }
    for name in sorted(modules):
        role = _role(name)
        assert (name in registered) == (role == "pass"), (name, role)
        assert (name in pipeline_modules) <= (role == "pipelines"), (name, role)
        # ops/ may hold a helper its lowerings share (ascend's byte_views), nothing else may
        # hold a lowering.
        assert (name in lowering_modules) <= (role == "lowering"), (name, role)
        importlib.import_module(f"tilec.passes.{name}")
    assert registered <= modules and lowering_modules <= modules


@pytest.mark.parametrize("target", ["cpu", "cuda", "ascend"])
def test_lowerings_are_named_and_tested(target, repo):
    seen: dict[str, object] = {}
    for op_name, found in lowerings(target).items():
        for lowering in found:
            # One lowering may serve several ops (fill and clear); names are unique.
            assert lowering.name.startswith(f"{target}-")
            assert seen.setdefault(lowering.name, lowering) is lowering
            assert inspect.getdoc(type(lowering))
            module = inspect.getmodule(type(lowering)).__name__
            assert module.startswith(f"tilec.passes.conversion.tile_to_{target}.")
            stem = module.rsplit(".", 1)[1]
            test_dir = repo / "test" / "Conversion" / f"TileTo{target.capitalize()}" / "ops"
            assert (test_dir / f"{stem}.mlir").is_file(), (op_name, stem)


@pytest.mark.parametrize("target", ["cpu", "cuda", "ascend"])
def test_each_op_is_lowered_in_one_declared_phase(target):
    ordered = lowering_registry.phases(target)
    assert [phase for phase, _ in ordered] == sorted({phase for phase, _ in ordered})
    assert sorted(name for _, names in ordered for name in names) == sorted(lowerings(target))


def test_lowerings_of_one_op_that_disagree_on_the_phase_are_an_error(monkeypatch):
    registry = dict(lowering_registry._LOWERINGS)
    (erased,) = registry["cpu", "tile.barrier"]

    class _Late(type(erased)):
        name = "cpu-barrier-late"
        phase = lowering_registry.Phase.KERNEL

    registry["cpu", "tile.barrier"] = [erased, _Late()]
    monkeypatch.setattr(lowering_registry, "_LOWERINGS", registry)
    with pytest.raises(ValueError, match=r"cpu lowerings of 'tile\.barrier' differ in phase"):
        lowering_registry.phases("cpu")
