"""Part of tile-ascend-split-cores: which core kind runs each op of a mix kernel.

Every op of the kernel body gets a side, as a discardable attribute that
survives the cloning of the kernel into its AIC and AIV copies:

- `aic`: it works on cube tiles (L1, L0*, and a handed-down L0C tile
  before its handoff);
- `aiv`: it works on UB tiles (and a handed-down L0C tile from its
  handoff on, where the AIVs read their copy of it);
- `both`: scalar code, and the loops and conditions that hold work of both
  kinds (each core keeps the control flow and its own part of the body);
- `handoff`: a copy from a UB tile into a cube tile, replaced on both
  sides by the workspace protocol.

`prune` then removes the other side's ops from a copy.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir

from tilec.passes.registry import emit_error

SIDE = "ascend.split_side"
CONTROL = frozenset({"scf.for", "scf.if", "scf.while", "scf.execute_region", "scf.index_switch",
                     "tile.pipelined"})
VIEWS = ("memref.subview", "memref.collapse_shape", "memref.expand_shape", "memref.cast",
         "memref.reinterpret_cast")
"""Views: of a tile, on the tile's side (`kind_of` sees the tile); of GM, on both."""
_PURE_PREFIXES = ("arith.", "index.", "affine.apply", "affine.min", "affine.max", "memref.dim",
                  "ascend.block_idx", "ascend.block_num", "math.", *VIEWS)


def is_pure(op: ir.Operation) -> bool:
    """Scalar code both cores run (and the terminators); a scalar read of a kernel
    argument the kernel never writes (an offset, a count) is one too: both cores
    reading it see the same value, so neither needs it handed over."""
    return op.name in ("tile.yield", "scf.yield", "scf.condition") or (
        not op.regions and op.name.startswith(_PURE_PREFIXES)) or (
        op.name == "memref.load" and _only_read(op.operands[0]))


def _only_read(memref: ir.Value) -> bool:
    """`memref` is a kernel argument (or a view of one) that only scalar loads (and
    `memref.dim`) use."""
    base = memref
    while isinstance(base, ir.OpResult) and base.owner.name in VIEWS:
        base = base.owner.operands[0]
    if not isinstance(base, ir.BlockArgument):
        return False
    pending = [base]
    while pending:
        for use in pending.pop().uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if user.name in VIEWS:
                pending.extend(user.results)
            elif user.name not in ("memref.load", "memref.dim"):
                return False
    return True


def _kinds(op: ir.Operation, kind_of: Callable[[ir.Operation, ir.Value], str | None]) -> set[str]:
    found = {k for value in op.operands if (k := kind_of(op, value)) is not None}
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                found |= _kinds(inner.operation, kind_of)
    return found


def assign_sides(body: ir.Block, kind_of: Callable[[ir.Operation, ir.Value], str | None],
                 result_kind: Callable[[ir.Operation], str | None],
                 handoffs: list[ir.Operation]) -> None:
    """Marks every op of `body`, recursively through control flow.
    `kind_of(op, operand)` is "cube", "vector" or None for one operand use;
    `result_kind(op)` the same for what an op defines (allocs)."""
    for op in body.operations:
        _assign(op.operation, kind_of, result_kind, handoffs)


def _assign(op: ir.Operation, kind_of, result_kind, handoffs: list[ir.Operation]) -> str:
    if any(op == h for h in handoffs):
        side = "handoff"
    elif op.name in CONTROL:
        inner = {_assign(o.operation, kind_of, result_kind, handoffs)
                 for region in op.regions for block in region.blocks for o in block.operations}
        inner -= {"both"}
        side = inner.pop() if len(inner) == 1 and inner <= {"aic", "aiv"} else "both"
    else:
        kinds = _kinds(op, kind_of)
        own = result_kind(op)
        if own == "both":
            side = "both"
        else:
            if own is not None:
                kinds.add(own)
            if kinds == {"cube", "vector"}:
                raise emit_error(op, f"tile-ascend-split-cores: '{op.name}' works on cube and "
                                     f"vector tiles at once (not supported yet)")
            side = ("aic" if "cube" in kinds else "aiv" if "vector" in kinds
                    else "both" if is_pure(op) else "aiv")
    op.attributes[SIDE] = ir.StringAttr.get(side)
    return side


def side_of(op: ir.Operation) -> str | None:
    return ir.StringAttr(op.attributes[SIDE]).value if SIDE in op.attributes else None


def prune(block: ir.Block, keep: str) -> None:
    """Erases from `block` (recursively) the ops of the other side and the
    handoff copies; drops the marks of the rest."""
    for op in reversed([o.operation for o in block.operations]):
        side = side_of(op)
        if side is None:
            continue  # built for this core by the split
        if side not in (keep, "both"):
            for result in op.results:
                use = next(iter(result.uses), None)
                if use is not None:
                    user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
                    raise emit_error(user, f"tile-ascend-split-cores: '{user.name}' on the other "
                                           f"kind of core uses a value of '{op.name}'")
            op.erase()
            continue
        del op.attributes[SIDE]
        if side == "both":
            for region in op.regions:
                for inner in region.blocks:
                    prune(inner, keep)
        else:
            _unmark(op)


def _unmark(op: ir.Operation) -> None:
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                if SIDE in inner.operation.attributes:
                    del inner.operation.attributes[SIDE]
                _unmark(inner.operation)
