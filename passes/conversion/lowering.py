"""The contract of a tile op lowering, and the registry that resolves one per op.

Every lowering of a tile op to a target answers three questions, as
TileLang's per-op `Lower(target)` does:

- `applies(op, target)`: can it lower this op on this target variant? It
  returns None when it can, else the reason it cannot (shown to the user
  when no candidate applies);
- `infer(op, target)`: the decision the lowering depends on — where a tile
  lives, how an operand is laid out, how a loop is cut — made before any IR
  changes and handed to `lower` (its type is the lowering's `PlanT`);
- `lower(op, plan, target)`: replaces the op at its place.

It also declares its `phase`: when a conversion lowers it relative to the
other ops, since some lowerings need others done first or not yet (cpu's gemm
makes scratch tiles, so the tiles come after it). A target's order is the
order of the phases its lowerings declare (`phases`): adding an op is adding
its lowerings, with no table to update.

A lowering may name others it `supersedes`: where it applies, they are not
candidates (a target variant's faster path over the generic one: wgmma
over mma.sync on sm_90a). A conversion first resolves every tile op of a
function to exactly one lowering and reports, at each op, when none or several apply, so a kernel
that one target cannot run fails before anything is rewritten:

    error: no cuda lowering of 'tile.gemm' for cuda:sm_70; candidates: ...
"""

from __future__ import annotations

import abc
import enum
from collections import defaultdict
from typing import Any, ClassVar, Generic, TypeVar, cast

from mlir import ir

from tilec.passes.registry import PassFailure
from tilec.targets import TargetDescription

# Terminators belong to the op whose region they end and are lowered with it.
_OWNED_BY_PARENT = frozenset({"tile.yield"})

PlanT = TypeVar("PlanT")
TargetT = TypeVar("TargetT", bound=TargetDescription)


class Phase(enum.IntEnum):
    """When a conversion lowers an op: every op of one phase (found in one
    walk, none depending on another), then the next phase's. A target uses
    the phases its lowerings declare, in this order."""

    EARLY_TILES = enum.auto()
    """Tiles placed first, so that every other lowering sees real buffers (cuda)."""
    LOOP_SCHEDULES = enum.auto()
    """Software pipelines, which restructure the tile ops of their loop (cuda)."""
    GEMMS = enum.auto()
    COPIES = enum.auto()
    ATOMIC_ADDS = enum.auto()
    REDUCTIONS = enum.auto()
    FILLS = enum.auto()
    REGIONS = enum.auto()
    """Element-wise regions: after the ops that may leave scalar code in them,
    before the loops around them become scf."""
    LATE_ATOMIC_ADDS = enum.auto()
    """Atomic adds after the regions, which lower the scalar adds at their
    points as one atomic add of a tile (ascend)."""
    LOOPS = enum.auto()
    BARRIERS = enum.auto()
    TILES = enum.auto()
    """Tiles placed once the ops on them (some making scratch tiles) are lowered."""
    KERNEL = enum.auto()
    """The grid around everything else, last."""


class TileOpLowering(abc.ABC, Generic[PlanT, TargetT]):
    """One way to lower the tile ops named in `op_names` on target `target`,
    deciding a `PlanT` first on a `TargetT` description."""

    target: ClassVar[str]
    op_names: ClassVar[tuple[str, ...]]
    name: ClassVar[str]
    """Short, unique name shown among the candidates of an error."""
    phase: ClassVar[Phase]
    """When the conversion lowers the ops of `op_names`."""
    supersedes: ClassVar[tuple[str, ...]] = ()
    """Names of the lowerings this one replaces wherever it applies."""
    restructures: ClassVar[bool] = False
    """Whether it clones or erases the tile ops nested in the op (a software
    pipeline's stages): handles to them found before it ran are stale."""

    def applies(self, op: ir.Operation, target: TargetT) -> str | None:
        """None when this lowering can lower `op` on `target`, else why not."""
        return None

    def infer(self, op: ir.Operation, target: TargetT) -> PlanT:
        """The placement or layout `lower` needs, decided before any rewrite;
        a lowering that decides nothing has the plan None (`PlanT` is None)."""
        return cast(PlanT, None)

    @abc.abstractmethod
    def lower(self, op: ir.Operation, plan: PlanT, target: TargetT) -> None:
        """Replaces `op` (and erases it) with target IR built at its place."""


AnyLowering = TileOpLowering[Any, Any]
_LOWERINGS: dict[tuple[str, str], list[AnyLowering]] = defaultdict(list)


def register_lowering(cls: type[AnyLowering]) -> type[AnyLowering]:
    """Class decorator: one instance of `cls` serves each of its ops."""
    if not isinstance(getattr(cls, "phase", None), Phase):
        raise ValueError(f"lowering '{cls.name}' declares no phase")
    instance = cls()
    for op_name in cls.op_names:
        candidates = _LOWERINGS[cls.target, op_name]
        if any(c.name == cls.name for c in candidates):
            raise ValueError(f"lowering '{cls.name}' is registered twice for {op_name}")
        candidates.append(instance)
    return cls


def lowerings(target: str) -> dict[str, list[AnyLowering]]:
    """The registered lowerings of `target`, by op name."""
    return {op: list(found) for (t, op), found in _LOWERINGS.items() if t == target}


def phases(target: str) -> list[tuple[Phase, tuple[str, ...]]]:
    """The phases of `target`'s lowerings in order, each with its op names
    (in the order they registered); ValueError when the lowerings of one op
    declare different phases."""
    by_phase: dict[Phase, list[str]] = defaultdict(list)
    for op_name, found in lowerings(target).items():
        declared = {lowering.phase for lowering in found}
        if len(declared) != 1:
            names = ", ".join(f"{c.name} ({c.phase.name})" for c in found)
            raise ValueError(f"the {target} lowerings of '{op_name}' differ in phase: {names}")
        by_phase[declared.pop()].append(op_name)
    return [(phase, tuple(by_phase[phase])) for phase in sorted(by_phase)]


def is_lowered_op(op: ir.Operation) -> bool:
    """Whether a conversion must find a lowering for `op`."""
    return op.name.startswith("tile.") and op.name not in _OWNED_BY_PARENT


def resolve(op: ir.Operation, target: TargetDescription) -> AnyLowering | str:
    """The one lowering of `op` on `target`, or the message saying why there
    is none or more than one."""
    candidates = _LOWERINGS.get((target.name, op.name), [])
    reasons = {c.name: c.applies(op, target) for c in candidates}
    chosen = [c for c in candidates if reasons[c.name] is None]
    replaced = {name for c in chosen for name in c.supersedes}
    chosen = [c for c in chosen if c.name not in replaced]
    if len(chosen) == 1:
        return chosen[0]
    if chosen:
        names = ", ".join(c.name for c in chosen)
        return f"several {target.name} lowerings of '{op.name}' apply on {target.spec}: {names}"
    listed = "; ".join(f"{name} ({why})" for name, why in reasons.items()) or "none"
    return f"no {target.name} lowering of '{op.name}' for {target.spec}; candidates: {listed}"


def resolve_all(root: ir.Operation, target: TargetDescription) -> None:
    """Resolves every tile op under `root`, reporting each failure at its op;
    raises PassFailure after reporting when any op has no single lowering."""
    failed = False

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal failed
        op = op.operation
        if is_lowered_op(op):
            found = resolve(op, target)
            if isinstance(found, str):
                op.location.emit_error(found)
                failed = True
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    if failed:
        raise PassFailure("no lowering")


def lower_ops(ops: list[ir.Operation], target: TargetDescription) -> None:
    """Lowers `ops` (collected before any of them changes) in order, each by
    its resolved lowering: infer first, then lower."""
    for op in ops:
        lowering = resolve(op, target)
        if isinstance(lowering, str):
            op.location.emit_error(lowering)
            raise PassFailure(lowering)
        with ir.InsertionPoint(op), op.location:
            plan = lowering.infer(op, target)
            lowering.lower(op, plan, target)
