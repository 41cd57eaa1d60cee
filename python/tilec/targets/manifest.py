"""What a target is made of, as one object: its manifest.

A target is its folders — `tilec/targets/<t>/` (description and this manifest),
`tilec/backends/<t>/` and `tilec/passes/conversion/tile_to_<t>/` — and nothing else:
`tilec.targets` finds the manifest of each subpackage of its own (the `TARGET` of the
package) and of each installed `tilec.targets` entry point, and everything that needs
to know the targets (target specs, backends and the default target, the pass registry,
`tile-opt --emit`) reads the manifests, never a list of names.

The manifest names its backend, passes and emitters by import path (`module:attribute`,
as entry points do), loaded when first used: a target description must stay importable
without the backends and passes, which import it.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from tilec.targets.description import TargetDescription

if TYPE_CHECKING:
    from mlir import ir


@functools.cache
def load(reference: str) -> Any:
    """The object `reference` (`package.module:attribute`) names, imported on first use."""
    module, _, attribute = reference.partition(":")
    return getattr(importlib.import_module(module), attribute)


@dataclass(frozen=True)
class Emitter:
    """A `tile-opt --emit=<name>` choice: what a module the target's pipeline lowered
    prints as (`ptx`, `ascendc`). With `variants`, `<name>:<variant>` emits for that
    variant of the target (`ascendc:950`); the bare name means the first one."""

    name: str
    function: str
    """`module:function`, called with the lowered module and the target description."""
    help: str
    """One line for `tile-opt --help`."""
    variants: bool = False

    def emit(self, module: ir.Module, target: TargetDescription) -> str:
        function: Callable[[ir.Module, TargetDescription], str] = load(self.function)
        return function(module, target)


@dataclass(frozen=True)
class Target:
    """One target: its description, backend, passes, pipeline and emitters.

    `preference` orders the targets `tilec.compile` picks from when given none (the
    highest whose hardware is here; 0: never picked unless named), so a GPU with a
    working driver beats the host.
    """

    description: type[TargetDescription]
    backend: str
    """`module:class` of its `tilec.backends.base.Backend` (its compiler half; the
    backend's `driver` the other)."""
    passes: str
    """The package of its passes, each registering itself (`tile_to_<t>`)."""
    pipeline: str
    """The named pipeline from tile IR to what the backend's code generation takes
    (`tile-to-<t>`, with a `target=<spec>` option like every pass that needs one)."""
    emitters: tuple[Emitter, ...] = ()
    preference: int = 0

    @property
    def name(self) -> str:
        return self.description.name

    # Typed Any: the backends are a layer above the targets (test/python/test_layering.py).
    @property
    def backend_instance(self) -> Any:
        """The backend (one per process)."""
        return _instance(self.backend)

    @property
    def driver(self) -> Any:
        return self.backend_instance.driver

    def import_passes(self) -> None:
        """Registers the target's passes and pipelines (imports its `passes` package)."""
        importlib.import_module(self.passes)


@functools.cache
def _instance(reference: str) -> Any:
    return load(reference)()
