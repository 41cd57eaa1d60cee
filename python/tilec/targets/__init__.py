"""Target descriptions by name: `get_target("cuda:sm_90a")`.

A spec is `name` (the target's first variant) or `name:variant`. An unknown
name or variant is a `TargetError` that lists what exists, so a typo in
`tilec.compile(..., target=...)` or `tile-verify-kernels{target=...}` says
what was meant. Where a kernel is compiled to run here (`tilec.compile`,
`tilec.jit`), a bare name means the best variant this machine runs instead
(`host_spec`: `cpu` is `cpu:avx512` on a host with AVX-512); pass options and
tile-opt pipelines keep the first variant, so their output does not depend on
the machine.
"""

from __future__ import annotations

import functools

from tilec.targets.ascend import AscendTarget
from tilec.targets.cpu import CpuTarget
from tilec.targets.cuda import CudaTarget
from tilec.targets.description import (
    ASCEND_BUFFER_SCOPES,
    PORTABLE_SCOPES,
    TargetDescription,
)

__all__ = [
    "ASCEND_BUFFER_SCOPES",
    "PORTABLE_SCOPES",
    "AscendTarget",
    "CpuTarget",
    "CudaTarget",
    "TargetDescription",
    "TargetError",
    "get_target",
    "host_spec",
    "target_names",
]

_KINDS: dict[str, type[TargetDescription]] = {
    kind.name: kind for kind in (CpuTarget, CudaTarget, AscendTarget)
}


class TargetError(ValueError):
    """An unknown target or variant; the message names the candidates."""


def target_names() -> list[str]:
    return list(_KINDS)


def all_specs() -> list[str]:
    return [f"{name}:{v}" for name, kind in _KINDS.items() for v in kind.variants]


@functools.cache
def get_target(spec: str) -> TargetDescription:
    """The description of `spec` (`cpu`, `cuda:sm_80`, `ascend:950`, ...)."""
    if not isinstance(spec, str):
        raise TargetError(f"a target is a name such as 'cpu', not {type(spec).__name__}")
    name, _, variant = spec.partition(":")
    kind = _KINDS.get(name)
    if kind is None:
        raise TargetError(f"unknown target '{name}'; targets: {', '.join(_KINDS)}")
    variant = variant or kind.variants[0]
    if variant not in kind.variants:
        raise TargetError(
            f"unknown {name} variant '{variant}'; variants: {', '.join(kind.variants)}"
        )
    return kind.create(variant)  # type: ignore[attr-defined]


def host_spec(spec: str) -> str:
    """`spec`, with a bare target name (`cpu`) made the best variant of it this machine
    runs (`cpu:avx512` where the host has AVX-512)."""
    kind = _KINDS.get(spec) if isinstance(spec, str) else None
    return spec if kind is None else f"{spec}:{kind.host_variant()}"
