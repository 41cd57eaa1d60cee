"""tile-ascend-check-addresses: the byte offsets an author gave tiles
(`T.annotate_address`) must not put two tiles in use at once on the same bytes.

tilelang-ascend's expert kernels place their on-chip tiles themselves and
reuse bytes between tiles of different phases (flash attention's score tile
in L1 over the K tile of the same iteration, four UB temporaries at one
offset). tile-ascend-plan-memory keeps such offsets (`ascend.offset` on the
alloc, carried over from the `tile.alloc`) and places every other buffer
around them, but it does not second-guess them: two annotated tiles whose
bytes overlap while both hold live data would silently corrupt each other,
with every flag in place. This pass, right before planning, checks each pair
of annotated buffers of one memory with the planner's own liveness (the
tight, iteration-private one: a tile rewritten before it is read in every
iteration of a loop is dead between iterations) and reports the first pair
that overlaps while both are live, at the later tile's allocation.

It also settles how much UB an expert kernel may plan: its function keeps
`ascend.self_managed_ub` (from tile-ascend-split-scopes), and with it the
UB AscendC keeps for its own temporaries, only when it has no op whose
AscendC call takes them (`API_TEMPORARIES`).

Example of a rejected plan:

    %a = memref.alloc() {ascend.offset = 0 : i64} : memref<32x64xf32, #ascend.mem<ub>>
    %b = memref.alloc() {ascend.offset = 4096 : i64} : memref<32x64xf32, #ascend.mem<ub>>
    ascend.vdup %a, %zero ...
    ascend.vdup %b, %zero ...
    ascend.vbin add %a, %a, %b ...   // %a and %b live at once, bytes [4096, 8192) shared
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from itertools import combinations

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.plan_memory import (
    Buffer,
    Privacy,
    ProgramOrder,
    buffer_bytes,
    describe_location,
    live_range,
    on_chip_allocs,
    on_chip_space,
)
from tilec.passes.registry import Pass, emit_error, register_pass
from tilec.targets.ascend import attributes as ascend_attr

API_TEMPORARIES = frozenset({"ascend.vsel"})
"""The ops whose AscendC call takes AscendC's UB temporaries: Select puts them at
TMP_UB_OFFSET (dav_c220/kernel_operator_vec_cmpsel_impl.h), the top 8 KiB of the 910b's
UB (`Profile.api_temporaries`), which a kernel without them may use
(`ascend.self_managed_ub`)."""


def _annotated(func: ir.Operation, order: ProgramOrder) -> list[Buffer]:
    buffers = []
    for alloc in on_chip_allocs(func):
        offset = ascend_attr.integer(alloc, ascend_attr.OFFSET)
        if offset is None:
            continue
        type_ = ir.MemRefType(alloc.results[0].type)
        start, end = live_range(alloc, order, Privacy(alloc))
        buffers.append(Buffer(alloc, on_chip_space(type_), buffer_bytes(type_), start, end,
                              offset))
    return buffers


@register_pass
@dataclass(frozen=True)
class AscendCheckAddressesPass(Pass):
    """Reports two author-placed on-chip buffers that share bytes while both are live."""

    argument = "tile-ascend-check-addresses"
    anchor = "func.func"
    summary = "Check that T.annotate_address puts no two live tiles on the same bytes"

    def run(self, op: ir.Operation) -> None:
        if irb.collect(op, set(API_TEMPORARIES)):
            with contextlib.suppress(KeyError):
                del op.attributes[ascend_attr.SELF_MANAGED_UB]
        order = ProgramOrder(op)
        buffers = sorted(_annotated(op, order), key=lambda b: order.first[b.alloc])
        for first, second in combinations(buffers, 2):
            lo = max(first.offset, second.offset)
            hi = min(first.offset + first.nbytes, second.offset + second.nbytes)
            if first.space == second.space and lo < hi and first.live_with(second):
                raise emit_error(
                    second.alloc,
                    f"tile-ascend-check-addresses: T.annotate_address puts this "
                    f"{second.space} tile ({second.nbytes} B at offset {second.offset}) on "
                    f"bytes [{lo}, {hi}) of the tile allocated at "
                    f"{describe_location(first.alloc.location)} ({first.nbytes} B at offset "
                    f"{first.offset}), and both hold data at once; give one of them "
                    f"other bytes")
