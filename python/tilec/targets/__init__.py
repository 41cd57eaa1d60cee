"""Target descriptions by name: `get_target("cuda:sm_90a")`, and the targets' manifests.

A spec is `name` (the target's first variant) or `name:variant`. An unknown
name or variant is a `TargetError` that lists what exists, so a typo in
`tilec.compile(..., target=...)` or `tile-verify-kernels{target=...}` says
what was meant. Where a kernel is compiled to run here (`tilec.compile`,
`tilec.jit`), a bare name means the best variant this machine runs instead
(`host_spec`: `cpu` is `cpu:avx512` on a host with AVX-512); pass options and
tile-opt pipelines keep the first variant, so their output does not depend on
the machine.

The targets are found, not listed (`tilec.targets.manifest`): each subpackage of
this one is a target whose `TARGET` is its manifest; an installed distribution adds
one with a `tilec.targets` entry point naming its manifest, and a program with
`register_target`.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from importlib.metadata import entry_points
from typing import TypeVar

# The built-in descriptions, as their users import them; a target is found without
# being named here (`_built_in`).
from tilec.targets.ascend import AscendTarget
from tilec.targets.cpu import CpuTarget
from tilec.targets.cuda import CudaTarget
from tilec.targets.description import (
    ASCEND_BUFFER_SCOPES,
    PORTABLE_SCOPES,
    TargetDescription,
)
from tilec.targets.manifest import Emitter, Target

__all__ = [
    "ASCEND_BUFFER_SCOPES",
    "PORTABLE_SCOPES",
    "AscendTarget",
    "CpuTarget",
    "CudaTarget",
    "Emitter",
    "Target",
    "TargetDescription",
    "TargetError",
    "get_target",
    "host_spec",
    "manifest",
    "manifests",
    "register_target",
    "target_names",
    "target_of",
]

ENTRY_POINTS = "tilec.targets"
"""The entry point group of targets installed from outside tilec."""

_REGISTERED: dict[str, Target] = {}

Description = TypeVar("Description", bound=TargetDescription)


class TargetError(ValueError):
    """An unknown target or variant; the message names the candidates."""


def register_target(target: Target) -> Target:
    """Adds `target` (a program's own; a package's is found without this)."""
    if find(target.name) is not None:
        raise TargetError(f"target '{target.name}' is registered twice")
    _REGISTERED[target.name] = target
    get_target.cache_clear()
    return target


@functools.cache
def _built_in() -> dict[str, Target]:
    found = {}
    for module in pkgutil.iter_modules(__path__):
        if module.ispkg:
            target = importlib.import_module(f"{__name__}.{module.name}").TARGET
            found[target.name] = target
    return found


@functools.cache
def _installed() -> dict[str, Target]:
    found = {}
    for point in entry_points(group=ENTRY_POINTS):
        target = point.load()
        if not isinstance(target, Target):
            raise TargetError(f"entry point '{point.name}' of {ENTRY_POINTS} names "
                              f"{type(target).__name__}, not a tilec.targets.Target")
        found[target.name] = target
    return found


def _all() -> dict[str, Target]:
    found = dict(_built_in())
    for name, target in [*_REGISTERED.items(), *_installed().items()]:
        found.setdefault(name, target)
    return found


def find(name: str) -> Target | None:
    """The manifest of the target `name`, or None."""
    return _all().get(name)


def manifests() -> list[Target]:
    """Every target's manifest: tilec's own, then those registered, then those installed."""
    return list(_all().values())


def manifest(name: str) -> Target:
    """The manifest of the target `name`; TargetError names the targets."""
    target = find(name)
    if target is None:
        raise TargetError(f"unknown target '{name}'; targets: {', '.join(target_names())}")
    return target


def target_names() -> list[str]:
    return [target.name for target in manifests()]


def all_specs() -> list[str]:
    return [f"{t.name}:{v}" for t in manifests() for v in t.description.variants]


@functools.cache
def get_target(spec: str) -> TargetDescription:
    """The description of `spec` (`cpu`, `cuda:sm_80`, `ascend:950`, ...)."""
    if not isinstance(spec, str):
        raise TargetError(f"a target is a name such as 'cpu', not {type(spec).__name__}")
    name, _, variant = spec.partition(":")
    kind = manifest(name).description
    variant = variant or kind.variants[0]
    if variant not in kind.variants:
        raise TargetError(
            f"unknown {name} variant '{variant}'; variants: {', '.join(kind.variants)}"
        )
    return kind.create(variant)


def target_of(kind: type[Description], spec: str) -> Description:
    """The description of `spec`, which must name a `kind` target (a pass's `target=`)."""
    target = get_target(spec)
    if not isinstance(target, kind):
        specs = ", ".join(f"{kind.name}:{variant}" for variant in kind.variants)
        article = "an" if kind.name[0] in "aeiou" else "a"
        raise TargetError(f"'{spec}' is not {article} {kind.name} target ({specs})")
    return target


def host_spec(spec: str) -> str:
    """`spec`, with a bare target name (`cpu`) made the best variant of it this machine
    runs (`cpu:avx512` where the host has AVX-512)."""
    target = find(spec) if isinstance(spec, str) else None
    return spec if target is None else f"{spec}:{target.description.host_variant()}"
