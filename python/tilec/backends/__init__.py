"""Backends by target name, and the choice of a target when none is given.

`tilec.compile(kernel, target=...)` and `tilec.jit` resolve a target spec
(`cpu`, `cuda:sm_90a`, `ascend:950`) to its description (`tilec.targets`)
and its backend here. Without a target the first of `PREFERENCE` whose
hardware is present and whose lowering exists is chosen, unless
`TILEC_TARGET` names one; the compiled kernel says which (`kernel.target`).
"""

from __future__ import annotations

import os

from tilec.backends.ascend.compiler import AscendBackend
from tilec.backends.base import Backend, OptionError, Options, parse_options
from tilec.backends.cpu.compiler import CpuBackend
from tilec.backends.cuda.compiler import CudaBackend
from tilec.targets import TargetDescription, TargetError, get_target, host_spec

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

_BACKENDS: dict[str, Backend] = {
    backend.name: backend for backend in (CpuBackend(), CudaBackend(), AscendBackend())
}
# Most capable first: a GPU with a working driver beats the host.
PREFERENCE = ("cuda", "cpu")
ENVIRONMENT = "TILEC_TARGET"


def backend_for(target: TargetDescription) -> Backend:
    return _BACKENDS[target.name]


def default_target() -> str:
    """`$TILEC_TARGET`, else the best target present here."""
    configured = os.environ.get(ENVIRONMENT)
    if configured:
        return configured
    for name in PREFERENCE:
        backend = _BACKENDS[name]
        if backend.driver.present():
            return name
    return "cpu"


def configure(spec: str | None, given: dict[str, object]) -> tuple[TargetDescription, Backend,
                                                                   Options]:
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


def resolve(spec: str | None) -> tuple[TargetDescription, Backend]:
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
