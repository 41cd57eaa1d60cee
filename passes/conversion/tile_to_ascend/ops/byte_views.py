"""UB tiles whose bytes can be read as another element type of the same width.

A vector instruction reads the bytes of its operands as the element type the
instruction names, so the same UB tile can be an int16 operand of one
instruction and a half operand of the next (AscendC's
`LocalTensor<T>::ReinterpretCast<U>()`, asc-devkit
`include/basic_api/kernel_tensor.h`): an `arith.bitcast` in element-wise code
costs nothing there. MLIR's memrefs have one element type, and the only
upstream op that reinterprets bytes is `memref.view` of a 1-D i8 buffer; so a
tile that element-wise code bitcasts is *byte-backed*, a `memref.view` of an
i8 buffer, and its bitcast another view of those bytes. The memory planner,
the sync pass, the simulator and the AscendC emitter see a view (same root,
same bytes) as they see a subview.

Byte buffers are scratch (`ByteScratch`): like `buffers.Scratch`'s tiles they
live while one op is lowered, so the next op's lowering takes them again, for
any tile of at most their size.

Before (`ByteScratch.take`, then `reinterpreted`):

    %bits = memref.alloc() : memref<16x64xi16, #tile.scope<ub>>

After:

    %raw = memref.alloc() {tilec.byte_scratch} : memref<2048xi8, #tile.scope<ub>>
    %bits = memref.view %raw[%c0][] : memref<2048xi8, #tile.scope<ub>>
        to memref<16x64xi16, #tile.scope<ub>>
    %half = memref.view %raw[%c0][] : memref<2048xi8, #tile.scope<ub>>
        to memref<16x64xf16, #tile.scope<ub>>
"""

from __future__ import annotations

import math

from mlir import ir
from mlir.dialects import memref

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.ops import buffers

BYTE_SCRATCH = "tilec.byte_scratch"
"""Marks the i8 buffer of byte-backed temporaries; the conversion removes it at the end."""


def reinterpretable(source: ir.Type, target: ir.Type) -> bool:
    """Whether values of `source` can be read as `target` from the same bytes (one
    width, no bools: an i1 tile holds a byte per element)."""
    if irb.is_bool(source) or irb.is_bool(target):
        return False
    return irb.bit_width(source) == irb.bit_width(target)


def _nbytes(shape: list[int], element: ir.Type) -> int:
    return math.prod(shape) * irb.bit_width(element) // 8


class ByteScratch:
    """Byte-backed UB temporaries for one op's lowering, reusing the byte buffers of
    earlier lowerings (the smallest that holds a tile)."""

    def __init__(self, op: ir.Operation):
        self._op = op
        self._free = [inner.results[0] for inner in buffers.entry_block(op).operations
                      if BYTE_SCRATCH in inner.attributes]

    def take(self, shape: list[int], element: ir.Type) -> ir.Value:
        """A UB tile of `shape` and `element` that `reinterpreted` can read as another
        type."""
        nbytes = _nbytes(shape, element)
        fitting = [raw for raw in self._free if ir.MemRefType(raw.type).shape[0] >= nbytes]
        if fitting:
            raw = min(fitting, key=lambda r: ir.MemRefType(r.type).shape[0])
            self._free.remove(raw)
        else:
            with buffers.function_entry(self._op), ir.Location.unknown():
                raw = memref.alloc(buffers.ub_type([nbytes], ir.IntegerType.get_signless(8)),
                                   [], [])
            raw.owner.attributes[BYTE_SCRATCH] = ir.UnitAttr.get()
        with ir.InsertionPoint.after(raw.owner), ir.Location.unknown():
            return memref.view(buffers.ub_type(shape, element), raw, irb.index(0), [])

    def give_back(self, tile: ir.Value) -> None:
        """`tile` (from `take`, or a view of its bytes) is dead."""
        self._free.append(tile.owner.operands[0])


def is_backed(tile: ir.Value) -> bool:
    """Whether `tile` is a view of a `ByteScratch` buffer."""
    owner = tile.owner
    if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "memref.view":
        return False
    source = owner.operands[0].owner
    return isinstance(source, ir.Operation | ir.OpView) and BYTE_SCRATCH in source.attributes


def reinterpreted(tile: ir.Value, element: ir.Type) -> ir.Value | None:
    """The bytes of `tile` read as `element` (a view beside it), or None when `tile`
    is not byte-backed (`ByteScratch`)."""
    if not is_backed(tile):
        return None
    owner = tile.owner
    type_ = ir.MemRefType(tile.type)
    source, shift, *sizes = owner.operands
    with ir.InsertionPoint.after(owner), owner.location:
        return memref.view(ir.MemRefType.get(type_.shape, element, None, type_.memory_space),
                           source, shift, list(sizes))
