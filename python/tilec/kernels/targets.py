"""Where a library call runs, and what it ran.

The target is chosen by configuration, never by rewriting the caller: a
`use_target("ascend:950")` block, else `$TILEC_TARGET`, else the data — a
CUDA tensor runs the cuda target, host tensors and numpy arrays the cpu
target (as DeepSelect picks its CUDA or NPU backend by the machine). Every
kernel a call launches is compiled for that target once per variant (its dims
are symbolic, so one build serves every shape; builds are kept in the disk
cache of `tilec.jit` for later processes) and recorded, so that
`last_report()` tells the caller what the call did: which kernels, where, and
on ascend the simulator's measurements.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from tilec import backends
from tilec.diagnostics import CompileError
from tilec.ir import make_context
from tilec.language import DSLError
from tilec.runtime.compiler import CompiledKernel, load_module
from tilec.runtime.jit import load_or_build

_CHOSEN: ContextVar[str | None] = ContextVar("tilec_kernels_target", default=None)
ENV = "TILEC_TARGET"


@contextmanager
def use_target(spec: str) -> Iterator[None]:
    """Runs the library calls of the block on `spec` (`"cpu"`, `"ascend:910b"`,
    `"ascend:950"`, `"cuda:sm_90a"`), whatever their tensors are."""
    backends.configure(spec, {})  # a bad spec is an error here, not at a call
    token = _CHOSEN.set(spec)
    try:
        yield
    finally:
        _CHOSEN.reset(token)


def _on_cuda(value: object) -> bool:
    return bool(getattr(value, "is_cuda", False))


def target_for(*tensors: object) -> str:
    """The target of a call on `tensors`: the use_target block's, $TILEC_TARGET's, or
    cuda for CUDA tensors and cpu for host data."""
    chosen = _CHOSEN.get() or os.environ.get(ENV)
    if chosen:
        return backends.configure(chosen, {})[0].spec
    return "cuda" if any(_on_cuda(t) for t in tensors) else "cpu"


@dataclass(frozen=True)
class Launch:
    """One kernel a library call ran: its name, the target, on ascend the simulator's
    `SimResult` (cycles, pipe utilization, bandwidth), and for an op that chooses its
    tiles (`tuning`) the config it ran."""

    kernel: str
    target: str
    sim: object | None = None
    config: dict[str, object] | None = None

    def __repr__(self) -> str:
        cycles = f", cycles={self.sim.cycles}" if self.sim is not None else ""  # type: ignore[attr-defined]
        config = f", config={self.config}" if self.config is not None else ""
        return f"Launch(kernel={self.kernel!r}, target={self.target!r}{cycles}{config})"


class _Calls(threading.local):
    def __init__(self) -> None:
        self.depth = 0
        self.launches: list[Launch] = []


_calls = _Calls()


@contextmanager
def library_call() -> Iterator[None]:
    """Around one API call: the launches of the outermost call on this thread are
    what `last_report()` gives afterwards."""
    if _calls.depth == 0:
        _calls.launches = []
    _calls.depth += 1
    try:
        yield
    finally:
        _calls.depth -= 1


def last_report() -> list[Launch]:
    """The kernels the last library call on this thread launched, in order."""
    return list(_calls.launches)


_compiled: dict[tuple[object, ...], CompiledKernel] = {}
_compile_lock = threading.Lock()


def _compiled_for(kernel: object, target: str) -> CompiledKernel:
    """`kernel` compiled for `target`, through the disk cache (`$TILEC_CACHE_DIR`), so a
    later process loads what an earlier one built."""
    description, backend, options = backends.configure(target, {})
    module = load_module(kernel, make_context())
    return load_or_build(module, description, backend, options)


def has_float64(target: str) -> bool:
    """Whether `target` computes in float64, which the library's bit-exact float32 helpers
    (a correctly rounded exp, a fused multiply-add) use; the NPUs have no float64."""
    description, _, _ = backends.configure(target, {})
    return "f64" in description.element_types


class TargetUnsupported(NotImplementedError):
    """A library op the chosen target cannot run; the message names the op, the target
    and what to do instead."""


def compiled(api: str, variant: tuple[object, ...], build: Callable[[], object],
             target: str) -> CompiledKernel:
    """The kernel `build()` makes for the op `api`, compiled for `target` once per
    `variant`."""
    key = (target, api, *variant)
    with _compile_lock:
        kernel = _compiled.get(key)
        if kernel is None:
            try:
                kernel = _compiled_for(build(), target)
            except DSLError:
                raise  # a mistake in the library's kernel, not a limit of the target
            except CompileError as exc:
                first = exc.diagnostics[0].message if exc.diagnostics else str(exc)
                raise TargetUnsupported(
                    f"{api} cannot run on {target}: {first}; run it on another target "
                    "(tilec.kernels.use_target(...) or $TILEC_TARGET)"
                ) from None
            _compiled[key] = kernel
    return kernel


def launch(api: str, variant: tuple[object, ...], build: Callable[[], object], target: str,
           *args: object, config: dict[str, object] | None = None) -> None:
    """Runs the kernel `build()` makes for the op `api` (compiled for `target` once per
    `variant`) on `args`, and records the launch (with the tile `config` it was built
    with, for an op that chooses its tiles)."""
    kernel = compiled(api, variant, build, target)
    kernel(*args)
    sim = kernel.report() if target.startswith("ascend") else None
    _calls.launches.append(Launch(kernel.name, kernel.target, sim, config))
