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
from mlir.dialects import arith, memref, scf

from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import emit_error
from tilec.targets.ascend import attributes as ascend_attr

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
        op.name == "memref.load" and only_read(op.operands[0]))


def only_read(memref: ir.Value) -> bool:
    """`memref` is a kernel argument (or a view of one) that the kernel only
    reads (`_only_copied`)."""
    base = memref
    while isinstance(base, ir.OpResult) and base.owner.name in VIEWS:
        base = base.owner.operands[0]
    return isinstance(base, ir.BlockArgument) and _only_copied(base)


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
        for region in op.regions:
            for block in region.blocks:
                for inner_op in block.operations:
                    _assign(inner_op.operation, kind_of, result_kind, handoffs)
        # The work nested at any depth: a loop holding a gemm and an `if` that
        # holds vector work runs on both kinds of core, like the `if`.
        inner = {side_of(o) for o in _nested(op) if o.name not in CONTROL} - {"both"}
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


def _nested(op: ir.Operation) -> list[ir.Operation]:
    """The ops in the regions of `op`, at any depth."""
    found = []
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                found.append(inner.operation)
                found.extend(_nested(inner.operation))
    return found


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


def read_through_tiles(values: list[ir.Value], body: ir.Block) -> bool:
    """Scalar reads of an on-chip tile that the kernel body filled once, by
    a copy from a tensor the kernel only reads (a block-sparse mask row),
    become guarded reads of that tensor where `values` (the conditions of
    `if`s both cores run) depend on them: the tile lives on one kind of
    core, the tensor both can read. A read past the tensor's end gives the
    copy's pad, as the copy does (`tile.copy`); one of an element the copy
    does not write is undefined either way. Whether it changed anything."""
    loads, dims = [], []
    pending, seen = list(values), []
    while pending:
        owner = pending.pop().owner
        if not isinstance(owner, ir.Operation | ir.OpView):
            continue
        for inner in irb.every_op(owner.operation):
            if any(inner == known for known in seen):
                continue
            seen.append(inner)
            pending.extend(inner.operands)
            if inner.name == "memref.load":
                loads.append(inner)
            elif inner.name == "memref.dim":
                dims.append(inner)
    changed = any([_fold_dim(dim) for dim in dims])
    for load in loads:
        copy = _filled_from(load, body)
        if copy is None:
            continue
        tile_value = load.operands[0]
        _read_source(load, copy)
        changed = True
        if all(irb.use_owner(use) == copy for use in tile_value.uses):
            copy.erase()  # nothing else reads the tile
            tile_value.owner.erase()
    return changed


def _fold_dim(dim: ir.Operation) -> bool:
    """A constant for the `memref.dim` of a static tile (a tile is one core's);
    whether it was one."""
    type_ = ir.MemRefType(dim.operands[0].type)
    axis = irb.constant_int(dim.operands[1])
    if isinstance(dim.operands[0], ir.BlockArgument) or axis is None \
            or type_.is_dynamic_dim(axis):
        return False
    with ir.InsertionPoint(dim), dim.location:
        dim.results[0].replace_all_uses_with(irb.index(type_.shape[axis]))
    dim.erase()
    return True


def _filled_from(load: ir.Operation, body: ir.Block) -> ir.Operation | None:
    """The copy that alone writes the tile `load` reads, where it is in the
    kernel body before the load and copies from a tensor only read (None:
    not so)."""
    tile_value = load.operands[0]
    if not isinstance(tile_value, ir.OpResult) or tile_value.owner.name != "tile.alloc":
        return None
    writers = []
    for use in tile_value.uses:
        user = irb.use_owner(use)
        if user.name == "tile.copy" and use.operand_number > 0:
            writers.append(user)
        elif user.name not in ("memref.load", "memref.dim"):
            return None
    if len(writers) != 1:
        return None
    (copy,) = writers
    counts = list(copy.attributes["operandSegmentSizes"])
    source = copy.operands[0]
    if copy.block != body or not is_before(copy, load, body) \
            or counts[1] < len(list(load.operands)) - 1 \
            or not only_read(source):
        return None
    return copy


def is_before(first: ir.Operation, then: ir.Operation, body: ir.Block) -> bool:
    """Whether `first`, an op of `body`, comes before the op of `body` that holds `then`."""
    while then.block != body:
        then = then.parent.operation if hasattr(then.parent, "operation") else then.parent
    for op in body.operations:
        if op.operation == then:
            return False
        if op.operation == first:
            return True
    return False


def _only_copied(tensor: ir.Value) -> bool:
    """Whether the kernel only reads `tensor`: scalar loads, `memref.dim`,
    copies out of it."""
    for use in tensor.uses:
        user = irb.use_owner(use)
        if user.name in VIEWS:
            if not _only_copied(user.results[0]):
                return False
        elif not (user.name in ("memref.load", "memref.dim")
                  or (user.name == "tile.copy" and use.operand_number == 0)):
            return False
    return True


def _read_source(load: ir.Operation, copy: ir.Operation) -> None:
    """Replaces `load` of the tile `copy` fills by the read of the element
    of the copy's source it got (the copy maps the tile's dimensions onto
    the source's last ones: its leading extents are units)."""
    counts = list(copy.attributes["operandSegmentSizes"])
    operands = list(copy.operands)
    source = operands[0]
    src_offsets = operands[1:1 + counts[1]]
    dst_offsets = operands[2 + counts[1]:2 + counts[1] + counts[3]]
    pad = operands[-1] if counts[4] else None
    indices = list(load.operands[1:])
    lead = len(src_offsets) - len(indices)
    result = load.results[0]
    with ir.InsertionPoint(load), load.location:
        at = list(src_offsets[:lead]) + [
            arith.addi(offset, arith.subi(index, start))
            for offset, index, start in zip(src_offsets[lead:], indices, dst_offsets, strict=True)]
        inside = None
        for dim, index in enumerate(at):
            below = arith.cmpi(arith.CmpIPredicate.ult, index,
                               memref.dim(source, irb.index(dim)))
            inside = below if inside is None else arith.andi(inside, below)
        branch = scf.IfOp(inside, [result.type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            scf.YieldOp([irb.convert(memref.load(source, at), result.type)])
        with ir.InsertionPoint(branch.else_block):
            scf.YieldOp([irb.convert(pad, result.type) if pad is not None
                         else irb.zero(result.type)])
    result.replace_all_uses_with(branch.results[0])
    load.erase()


def core_copy(kernel: ir.Operation, core: str) -> ir.Operation:
    """A copy of `kernel`, before it, in a new scf.execute_region marked as the half
    that `core` (aic, aiv) runs. Tile ops may not sit in an ascend.core region (it
    needs an ascend.kernel function, whose GM is #ascend.mem<gm>): until the
    conversion, each core's half is a marked scf.execute_region."""
    with ir.InsertionPoint(kernel), kernel.location:
        region = scf.ExecuteRegionOp([])
        region.attributes[ascend_attr.CORE_REGION] = ascend.core_attr(core)
        block = region.regions[0].blocks.append()
    with ir.InsertionPoint(block), kernel.location:
        copy = kernel.clone().operation
        scf.YieldOp([])
    return copy
