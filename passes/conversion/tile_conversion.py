"""The driver every `convert-tile-to-<target>` pass runs.

A conversion does the same four things on every target: it checks what no
lowering of the target can take, resolves every tile op of the function to
its one lowering (`tilec.passes.conversion.lowering`), reporting every op
that has none before anything is rewritten, lowers the ops phase by phase in
the order their lowerings declare (`Phase`), and finishes the function for
the target. `TileConversion` owns that order; a target's pass says only which
target description it lowers for and what it does around it, in hooks:

- `check`: reports what the target cannot take, before resolution;
- `around_lowering`: a context manager whose code before its `yield` runs
  once every op is resolved, and after it once every op is lowered (state
  it keeps between the two, as ascend's "did this function hold a kernel",
  stays a local);
- `lower_phases`: how the phases' ops are found and lowered (cuda finds
  several phases' ops in one walk and puts barriers around them);
- `selected_phases`: which phases one run lowers (cpu's `ops=`).
"""

from __future__ import annotations

import abc
import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import ClassVar, Generic

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion import lowering
from tilec.passes.conversion.lowering import Phase, TargetT, lower_ops, resolve_all
from tilec.passes.registry import Pass

Phases = tuple[tuple[str, ...], ...]
"""The op names of each phase a run lowers, in order."""


@dataclass(frozen=True)
class TileConversion(Pass, Generic[TargetT]):
    """Resolves every tile op of a function to its `target_name` lowering, then
    lowers them phase by phase."""

    anchor = "func.func"
    target_name: ClassVar[str]
    """The target whose lowerings (`tilec.passes.conversion.tile_to_<target>.ops`) run."""

    @abc.abstractmethod
    def lowering_target(self) -> TargetT:
        """The target variant this run lowers for, from the pass's options."""

    @classmethod
    def declared_phases(cls) -> list[tuple[Phase, tuple[str, ...]]]:
        """The phases the target's lowerings declare, in order, with their ops."""
        return lowering.phases(cls.target_name)

    @classmethod
    def phases(cls) -> Phases:
        """The op names of each phase the target's lowerings declare, in order."""
        return tuple(names for _, names in cls.declared_phases())

    def selected_phases(self) -> Phases:
        """The phases this run lowers: all of them unless an option says otherwise."""
        return self.phases()

    def check(self, func: ir.Operation, target: TargetT) -> None:
        """Reports (and raises PassFailure for) what no lowering can take."""

    @contextlib.contextmanager
    def around_lowering(self, func: ir.Operation, target: TargetT) -> Iterator[None]:
        """The target's steps once every op is resolved (before the `yield`)
        and once every op is lowered (after it)."""
        yield

    def lower_phases(self, func: ir.Operation, target: TargetT, phases: Phases) -> None:
        """Lowers the ops of each phase in turn, found afresh for each."""
        for names in phases:
            lower_ops(irb.collect(func, set(names)), target)

    def run(self, op: ir.Operation) -> None:
        target = self.lowering_target()
        with op.context, op.location:
            self.check(op, target)
            resolve_all(op, target)
            with self.around_lowering(op, target):
                self.lower_phases(op, target, self.selected_phases())
