"""What tile ops mean, where every target's lowerings need the same answer.

A copy's extent and which of its dimensions each operand follows, and how
a reduce kind combines values, are properties of the `tile` dialect, not of
a target: the cpu, cuda and ascend lowerings all read them here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, math, vector

from tilec.passes.conversion import ir_builders as irb


def copy_dims(sizes: list[int], rank: int) -> list[int]:
    """The copy dimensions an operand of `rank` follows: the extent with its
    first unit dimensions dropped until the ranks agree (as the verifier)."""
    to_drop = len(sizes) - rank
    kept = []
    for dim, size in enumerate(sizes):
        if size == 1 and to_drop > 0:
            to_drop -= 1
            continue
        kept.append(dim)
    return kept


def copy_sizes(op: ir.Operation, src: ir.MemRefType, dst: ir.MemRefType,
               on_chip: Callable[[ir.Value], bool] | None = None) -> list[int]:
    """The extent of a `tile.copy`: its `sizes`, else the shape of its
    on-chip side (the destination when both are). `on_chip` tells an operand
    on chip (default: it has a memory space; a target that gives global
    memory a space of its own passes its own test)."""
    if "sizes" in op.attributes:
        return list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
    if on_chip is None:
        dst_on_chip = dst.memory_space is not None
        src_on_chip = src.memory_space is not None
    else:
        src_on_chip, dst_on_chip = on_chip(op.operands[0]), on_chip(op.operands[1 + src.rank])
    return list(dst.shape if dst_on_chip or not src_on_chip else src.shape)


def _reads_only(user: ir.Operation, operand: int) -> bool:
    """Whether `user` only reads its `operand`-th operand (a tile)."""
    name = user.name
    if name in ("memref.load", "vector.load", "vector.transfer_read", "vector.maskedload",
                "memref.dim"):
        return True
    if name == "tile.gemm":
        return operand in (0, 1)
    if name in ("tile.reduce", "tile.cumsum"):
        return operand == 0
    if name == "tile.copy":
        return operand == 0  # the source (its offsets are indices)
    return False


def may_pad_rest(copy: ir.Operation, dst: ir.Value,
                 reads_only: Callable[[ir.Operation, int], bool] | None = None) -> bool:
    """Whether a copy that writes only part of the on-chip tile `dst` may fill the rest
    with its pad. A tile.copy writes only its region (TileLang's meaning: a tile
    assembled from pieces keeps every piece); where nothing else writes the tile the
    rest is undefined, and filling it keeps a later gemm over the whole tile from
    meeting NaN garbage. So: only when `copy` writes the tile's leading corner (a
    copy at another offset places a piece, and may run again, in a loop, for the
    next piece: filling would erase the pieces before it) and is the only op that
    may write `dst` (every other use is a read: of a tile op, of a load, or what the
    target's `reads_only` says of its own ops)."""
    src_rank = ir.MemRefType(copy.operands[0].type).rank
    dst_rank = ir.MemRefType(dst.type).rank
    offsets = list(copy.operands)[2 + src_rank:2 + src_rank + dst_rank]
    if any(irb.constant_int(offset) != 0 for offset in offsets):
        return False
    for use in dst.uses:
        user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if user == copy.operation:
            continue
        if _reads_only(user, use.operand_number):
            continue
        if reads_only is None or not reads_only(user, use.operand_number):
            return False
    return True


_FINITE_BOUNDS = {"f8E4M3FN": 448.0}
"""Types without infinities: max and min start from their largest finite value."""


@dataclass(frozen=True)
class ReduceKind:
    """How one reduce kind combines values of element type `element`."""

    name: str
    element: ir.Type

    @property
    def takes_abs(self) -> bool:
        return self.name in ("abssum", "absmax")

    @property
    def base(self) -> str:
        return {"abssum": "sum", "absmax": "max"}.get(self.name, self.name)

    def prepare(self, value: ir.Value) -> ir.Value:
        if not self.takes_abs:
            return value
        return math.absf(value) if irb.is_float(self.element) else math.absi(value)

    def combine(self, a: ir.Value, b: ir.Value) -> ir.Value:
        floating = irb.is_float(self.element)
        op: Callable[[ir.Value, ir.Value], ir.Value] = {
            ("sum", True): arith.addf,
            ("sum", False): arith.addi,
            ("max", True): arith.maximumf,
            ("max", False): arith.maxsi,
            ("min", True): arith.minimumf,
            ("min", False): arith.minsi,
        }[self.base, floating]
        return op(a, b)

    def vector_kind(self) -> vector.CombiningKind:
        floating = irb.is_float(self.element)
        return {
            ("sum", True): vector.CombiningKind.ADD,
            ("sum", False): vector.CombiningKind.ADD,
            ("max", True): vector.CombiningKind.MAXIMUMF,
            ("max", False): vector.CombiningKind.MAXSI,
            ("min", True): vector.CombiningKind.MINIMUMF,
            ("min", False): vector.CombiningKind.MINSI,
        }[self.base, floating]

    def identity(self, type_: ir.Type) -> ir.Value:
        """The neutral element (absolute values make zero neutral for absmax)."""
        if self.base == "sum" or self.name == "absmax":
            return irb.zero(type_)
        if irb.is_float(self.element):
            bound = _FINITE_BOUNDS.get(str(self.element), float("inf"))
            attr = ir.FloatAttr.get(self.element, -bound if self.base == "max" else bound)
        else:
            width = irb.bit_width(self.element)
            bound = -(1 << (width - 1)) if self.base == "max" else (1 << (width - 1)) - 1
            attr = ir.IntegerAttr.get(self.element, bound)
        if isinstance(type_, ir.VectorType):
            return arith.constant(type_, ir.DenseElementsAttr.get_splat(type_, attr))
        return arith.constant(type_, attr)
