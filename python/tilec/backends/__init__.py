"""Backends by target name, and the choice of a target when none is given.

`tilec.compile(kernel, target=...)` and `tilec.jit` resolve a target spec
(`cpu`, `cuda:sm_90a`, `ascend:950`) to its description (`tilec.targets`)
and its backend (the target's manifest names it). Without a target the
most preferred target whose hardware is present is chosen (`Target.preference`:
a GPU with a working driver beats the host), unless `TILEC_TARGET` names one;
the compiled kernel says which (`kernel.target`).
"""

from __future__ import annotations

import os
from typing import Any

from tilec.backends.base import Backend, OptionError, Options, parse_options
from tilec.targets import (
    TargetDescription,
    TargetError,
    get_target,
    host_spec,
    manifest,
    manifests,
)

__all__ = [
    "Backend",
    "OptionError",
    "Options",
    "TargetError",
    "backend_for",
    "configure",
    "default_target",
    "parse_options",
    "resolve",
]

ENVIRONMENT = "TILEC_TARGET"


def backend_for(target: TargetDescription) -> Backend[Any, Any, Any]:
    return manifest(target.name).backend_instance


def default_target() -> str:
    """`$TILEC_TARGET`, else the most preferred target present here (the least
    preferred of them, the host, where none is)."""
    configured = os.environ.get(ENVIRONMENT)
    if configured:
        return configured
    ranked = sorted((t for t in manifests() if t.preference > 0),
                    key=lambda t: t.preference, reverse=True)
    return next((t.name for t in ranked if t.driver.present()), ranked[-1].name)


def configure(spec: str | None, given: dict[str, object]
              ) -> tuple[TargetDescription, Backend[Any, Any, Any], Options]:
    """`resolve(spec)` with the compile options `given`, checked, and the
    target as they refine it."""
    target, backend = resolve(spec)
    options = parse_options(backend.options_type, given, target.spec)
    configured = backend.configure(target, options)
    if spec is not None and ":" in spec and configured.variant != target.variant:
        # `target="ascend:910b", profile="950"`: neither silently wins
        raise OptionError(f"the target '{spec}' and the options (which ask for "
                          f"'{configured.spec}') name different variants: give one of them")
    return configured, backend, options


def resolve(spec: str | None) -> tuple[TargetDescription, Backend[Any, Any, Any]]:
    """The description and backend of `spec` (None: `default_target()`); a bare
    target name is the best variant of it here (`tilec.targets.host_spec`)."""
    if spec is None:
        spec = default_target()
        try:
            target = get_target(host_spec(spec))
        except TargetError as exc:
            raise TargetError(f"${ENVIRONMENT}: {exc}") from None
    else:
        target = get_target(host_spec(spec))
    return target, backend_for(target)
