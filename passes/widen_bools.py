"""tile-widen-bools: bool (i1) tensors and tiles are bytes.

numpy stores a bool in one byte, and MLIR's LLVM lowering has no memory
layout for i1 elements (MemRefToLLVM asserts and aborts the process, on cpu
and for NVVM alike); AscendC has no bool tensors either. On
tile IR, before the tile ops are lowered, this pass rewrites every memref of
i1 — function arguments (a numpy bool array's descriptor is that of an i8
array), `tile.alloc` tiles, workspaces and views — to a memref of i8 that
holds 0 or 1, while bools stay i1 in registers: a `memref.load` gives
`byte != 0` (a nonzero byte is true, as numpy reads one), a `memref.store`
writes `extui` of the bool, and `tile.fill` and a copy's pad widen their
value. A `tile.copy` between bools and another element type keeps its cast
semantics (to bool: != 0; from bool: 0 or 1): the pass marks the side that
holds bytes (`tile.bool_src`, `tile.bool_dst`) and the copy lowering
converts through i1. `tile.reduce` max/min/absmax of 0/1 bytes are any/all.
A sum of bools is a bool, as everything stored into a bool is (`!= 0`): a
reduce sum is any, a cumsum the running any, and an atomic add an atomic or;
the pass marks them `tile.bool_any` for their lowerings, which combine the
bytes with an or instead of adding them (a byte would wrap at 256). A gemm
of bools is an error, and so is any other op on a bool memref that the pass
does not know. Only the cpu lowerings read the marks so far: with
`conversions=false` (cuda, ascend) an op that would need one is a located
error rather than a silently wrong byte.

Before:

    %t = tile.alloc : memref<8xi1, #tile.scope<fragment>>
    tile.copy %A[%i], %t[%c0] : memref<?xf32>, memref<8xi1, #tile.scope<fragment>>
    %b = memref.load %t[%c0] : memref<8xi1, #tile.scope<fragment>>
    %n = arith.xori %b, %true : i1
    memref.store %n, %t[%c0] : memref<8xi1, #tile.scope<fragment>>

After:

    %t = tile.alloc : memref<8xi8, #tile.scope<fragment>>
    tile.copy %A[%i], %t[%c0] {tile.bool_dst} : memref<?xf32>, memref<8xi8, #tile.scope<fragment>>
    %byte = memref.load %t[%c0] : memref<8xi8, #tile.scope<fragment>>
    %b = arith.cmpi ne, %byte, %c0_i8 : i8
    %n = arith.xori %b, %true : i1
    %w = arith.extui %n : i1 to i8
    memref.store %w, %t[%c0] : memref<8xi8, #tile.scope<fragment>>
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, emit_error, option, register_pass

# The unit attributes that mark a converting tile.copy's side of bytes.
BOOL_SRC = "tile.bool_src"
BOOL_DST = "tile.bool_dst"
# The unit attribute that marks a sum of bools (reduce, cumsum, atomic add) as an or.
BOOL_ANY = "tile.bool_any"

# Ops that only pass a bool memref along or allocate one: retyping the
# memref is all they need.
_TYPE_ONLY = irb.ELEMENT_AGNOSTIC | {"tile.alloc", "tile.clear"}
# The operand that ops writing a bool memref store.
_STORED_VALUE = {"memref.store": 0, "tile.fill": 1}
# Reductions that 0/1 bytes compute exactly: max is any, min is all.
_BYTE_EXACT_REDUCTIONS = frozenset({"max", "min", "absmax"})
# Sums of bools, which are ors of their bytes.
_SUMS = frozenset({"tile.cumsum", "tile.atomic_add"})


def _holds_bools(type_: ir.Type) -> bool:
    return isinstance(type_, ir.MemRefType) and irb.is_bool(ir.MemRefType(type_).element_type)


def _widened(type_: ir.Type) -> ir.Type:
    if not _holds_bools(type_):
        return type_
    memref = ir.MemRefType(type_)
    byte = ir.IntegerType.get_signless(8)
    return ir.MemRefType.get(memref.shape, byte, memref.layout, memref.memory_space)


def _touches_bools(op: ir.Operation) -> bool:
    values = [*op.operands, *irb.defined_values(op)]
    return any(_holds_bools(v.type) for v in values)


def _widen_operand(op: ir.Operation, position: int) -> None:
    """Replaces the bool operand at `position` with its byte, built before `op`."""
    with ir.InsertionPoint(op), op.location:
        op.operands[position] = irb.byte_from_bool(op.operands[position])


def _rewrite_load(op: ir.Operation) -> None:
    """The load reads the byte; its users get `byte != 0`."""
    loaded = op.results[0]
    loaded.set_type(ir.IntegerType.get_signless(8))
    with ir.InsertionPoint.after(op), op.location:
        value = irb.bool_from_byte(loaded)
    loaded.replace_all_uses_except(value, value.owner.operation)


def _mark(op: ir.Operation, mark: str, conversions: bool, what: str) -> None:
    if not conversions:
        raise emit_error(op, f"{what} is not supported on this target yet (bools are stored as "
                             f"bytes; only plain loads, stores and copies of them are)")
    op.attributes[mark] = ir.UnitAttr.get()


def _rewrite_copy(op: ir.Operation, conversions: bool) -> None:
    src_rank = ir.MemRefType(op.operands[0].type).rank
    src_bools = _holds_bools(op.operands[0].type)
    dst_bools = _holds_bools(op.operands[1 + src_rank].type)
    if src_bools != dst_bools:
        other = ir.MemRefType(op.operands[1 + src_rank if src_bools else 0].type).element_type
        _mark(op, BOOL_SRC if src_bools else BOOL_DST, conversions,
              f"a tile.copy {'from bools to' if src_bools else 'to bools from'} {other}")
    dst_rank = ir.MemRefType(op.operands[1 + src_rank].type).rank
    pad = 2 + src_rank + dst_rank
    if src_bools and len(op.operands) > pad:
        _widen_operand(op, pad)


def _rewrite(op: ir.Operation, conversions: bool) -> None:
    """Makes `op`, which touches a bool memref, work on its bytes (the
    memref types themselves are widened afterwards)."""
    name = op.name
    if name in _TYPE_ONLY:
        return
    if name == "memref.load":
        _rewrite_load(op)
    elif name in _STORED_VALUE:
        _widen_operand(op, _STORED_VALUE[name])
    elif name == "tile.copy":
        _rewrite_copy(op, conversions)
    elif name == "tile.reduce":
        kind = str(tile.reduce_kind_of(op.attributes["kind"]))
        if kind not in _BYTE_EXACT_REDUCTIONS:
            _mark(op, BOOL_ANY, conversions, f"a {kind} reduction of bools")
    elif name in _SUMS:
        _mark(op, BOOL_ANY, conversions, f"'{name}' of bools")
        if name == "tile.atomic_add" and not isinstance(op.operands[0].type, ir.MemRefType):
            _widen_operand(op, 0)
    else:
        raise emit_error(
            op, f"'{name}' on bool memrefs is not supported (bools are stored as bytes)"
        )


@register_pass
@dataclass(frozen=True)
class WidenBoolsPass(Pass):
    """Stores bool tensors and tiles as bytes, converting at each access."""

    argument = "tile-widen-bools"
    anchor = "func.func"
    summary = "Store bool (i1) tensors and tiles as bytes, converting at each access"

    conversions: bool = option(
        True, "mark the ops that convert between bools and other values (copies, sums) for "
              "the target's lowerings; false: such an op is an error")

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for inner in irb.every_op(op):
                if _touches_bools(inner):
                    _rewrite(inner, self.conversions)
            irb.retype(op, _widened)
