"""tile-ascend-sync-within-ops: order the steps of each DSL op in a kernel whose
author synchronizes its pipes.

An expert kernel (`ascend.author_sync`, see tile-ascend-split-scopes) orders
its DSL ops itself: `T.barrier_all()` or a flag between a `T.copy` and the
`T.gemm` that reads it. A DSL op may lower to several ascend ops, though —
a gemm to `load_l0a`/`load_l0b` on MTE1 and an `mmad` on M that reads what
they wrote, a vector op to a broadcast and the op — and the author cannot
name the steps in between, just as tilelang-ascend's `gemm_v0` library call
synchronizes its own steps. This pass does that and nothing else: between two
steps of one DSL op (ascend ops at one source location, consecutive in their
block) that touch the same buffer, one writing it, it puts an
`ascend.pipe_barrier all`; a loop that one DSL op made gets one at the end of
its body when its steps conflict across iterations. Whatever the author's
own sync leaves unordered between DSL ops stays so, for the simulator to
report at the author's lines.

Before (T.gemm of two L1 tiles, at line 24):

    ascend.load_l0a %a1, %a0 sizes [64, 32]       // line 24, MTE1
    ascend.load_l0b %b1, %b0 sizes [32, 64]       // line 24, MTE1
    ascend.mmad %a0, %b0, %c sizes [64, 64, 32]   // line 24, M: reads %a0, %b0

After:

    ascend.load_l0a %a1, %a0 sizes [64, 32]
    ascend.load_l0b %b1, %b0 sizes [32, 64]
    ascend.pipe_barrier all
    ascend.mmad %a0, %b0, %c sizes [64, 64, 32]
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from tilec.dialects import ascend
from tilec.passes.conversion.tile_to_ascend.split_scopes import INTRA_CORE_SYNC
from tilec.passes.registry import Pass, register_pass
from tilec.targets.ascend import attributes as ascend_attr

_VIEWS = frozenset({"memref.subview", "memref.cast", "memref.collapse_shape",
                    "memref.expand_shape", "memref.reinterpret_cast", "memref.view"})
_WRITTEN = {"ascend.copy": 1, "ascend.copy_nd2nz": 1, "ascend.load_l0a": 1,
            "ascend.load_l0b": 1, "ascend.mmad": 2, "ascend.fixpipe": 1, "memref.store": 0}
"""Which memref operand each op writes, counted among its memref operands (index
operands such as a copy's offsets come between them); a vector op writes its first."""
_BREAKS = frozenset({*INTRA_CORE_SYNC, "ascend.cross_core_set_flag",
                     "ascend.cross_core_wait_flag", "ascend.sync_all"})
"""The author's sync: a DSL op of its own."""


def _root(value: ir.Value) -> ir.Value:
    """The buffer a view (of a view...) shows."""
    while isinstance(value, ir.OpResult) and value.owner.name in _VIEWS:
        value = value.owner.operands[0]
    return value


@dataclass
class _Step:
    """An op (or a region op holding ops) of one DSL op: the buffers it touches."""

    op: ir.Operation
    reads: list[ir.Value] = field(default_factory=list)
    writes: list[ir.Value] = field(default_factory=list)

    def conflicts(self, later: _Step) -> bool:
        def meets(xs: list[ir.Value], ys: list[ir.Value]) -> bool:
            return any(x == y for x in xs for y in ys)
        return (meets(self.writes, later.reads) or meets(self.writes, later.writes)
                or meets(self.reads, later.writes))


def _touches(op: ir.Operation, step: _Step) -> None:
    """Adds the buffers `op` (and what it nests) reads and writes to `step`."""
    name = op.name
    memrefs = [v for v in op.operands if isinstance(v.type, ir.MemRefType)]
    if (name.startswith("ascend.") or name in ("memref.load", "memref.store")) and memrefs:
        written = _WRITTEN.get(name, 0 if name.startswith("ascend.v") else None)
        for n, value in enumerate(memrefs):
            (step.writes if n == written else step.reads).append(_root(value))
        if name == "ascend.mmad" and "init" not in op.attributes:
            step.reads.append(_root(op.operands[2]))
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                _touches(inner.operation, step)


def _barrier(before: ir.Operation) -> None:
    with ir.InsertionPoint(before), before.location:
        ascend.pipe_barrier(ascend.pipe_attr("all"))


def _order(block: ir.Block) -> None:
    """Barriers between the conflicting steps of each DSL op in `block`."""
    steps: list[_Step] = []
    location = None
    for op in [o.operation for o in block.operations]:
        for region in op.regions:
            for inner in region.blocks:
                _order(inner)
        if op.name in _BREAKS:
            steps, location = [], None
            continue
        step = _Step(op)
        _touches(op, step)
        if not step.reads and not step.writes:
            continue  # scalar code and terminators
        here = str(op.location)
        if here != location:
            steps, location = [], here
        if any(earlier.conflicts(step) for earlier in steps):
            _barrier(op)
            steps = []
        steps.append(step)
        if op.name == "scf.for" and _owned(op, here):
            body = op.regions[0].blocks[0]
            if step.conflicts(step):
                _barrier(list(body.operations)[-1].operation)


def _owned(loop: ir.Operation, location: str) -> bool:
    """Whether every op in `loop` comes from the DSL op at `location` (a loop the
    lowering made, not the author's)."""
    ops = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        ops.append(op)
        return ir.WalkResult.ADVANCE

    loop.walk(visit)
    return all(str(op.location) == location for op in ops if op.name != "scf.yield")


@register_pass
@dataclass(frozen=True)
class AscendSyncWithinOpsPass(Pass):
    """Orders the ascend ops that one DSL op lowered to, in kernels whose
    author synchronizes the pipes (`ascend.author_sync`)."""

    argument = "tile-ascend-sync-within-ops"
    anchor = "func.func"
    summary = "Order the steps of each DSL op in kernels their author synchronizes"

    def run(self, op: ir.Operation) -> None:
        if ascend_attr.AUTHOR_SYNC not in op.attributes:
            return
        with op.context:
            for block in op.regions[0].blocks:
                _order(block)
