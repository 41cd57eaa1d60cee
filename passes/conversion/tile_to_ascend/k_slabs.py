"""tile-ascend-k-slabs: an L1 load of several K steps of a GEMM's K loop, whatever
`block_K` says.

A TileLang GEMM walks K in steps of `block_K` (64 is usual), copying a
block_M x block_K tile of A and a block_K x block_N tile of B into L1 per
step. On the NPU that makes each copy from GM short: A's rows are block_K
elements (128 B of f16), a quarter of a DMA burst, which the DMA moves at a
fraction of its rate, and every copy pays its start-up. The cube, fed from
L0, does not care how deep the L1 tile is. So a K loop whose body only copies
its gemms' operands from GM and multiplies them walks K in slabs of `u`
iterations: one copy of u x block_K per operand, into an L1 tile u times as
deep, and one gemm over the slab, which the cube lowering cuts back into
L0-sized steps on two L0 buffers (`cube_gemm`). `u` grows the slab to a DMA
burst of K elements (512 B: 256 f16), as far as the slabs' slots (one per
stage of the pipelined loop) fit L1, and divides the loop's (static) trip
count, so that no slab reads past the K range the loop walked.

Before (block_K = 64, 32 iterations):

    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 2 {
      %ko = arith.muli %k, %c64 : index
      tile.copy %A[%m, %ko], %a[%c0, %c0] : ..., memref<128x64xf16, #tile.scope<l1>>
      tile.copy %B[%ko, %n], %b[%c0, %c0] : ..., memref<64x256xf16, #tile.scope<l1>>
      tile.gemm %a, %b, %acc : ...
    }

After (4 iterations per slab):

    tile.pipelined %k = %c0 to %c32 step %c4 num_stages = 2 {
      %ko = arith.muli %k, %c64 : index
      tile.copy %A[%m, %ko], %a[%c0, %c0] : ..., memref<128x256xf16, #tile.scope<l1>>
      tile.copy %B[%ko, %n], %b[%c0, %c0] : ..., memref<256x256xf16, #tile.scope<l1>>
      tile.gemm %a, %b, %acc : ...
    }

Anything else in the body (vector work, copies out, a gemm whose operand is
not copied from GM per iteration along its K) leaves the loop as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_to_ascend.ops import buffers
from tilec.passes.conversion.tile_to_ascend.place_tiles import copy_operands
from tilec.passes.conversion.tile_to_ascend.plan_memory import align_up, buffer_bytes
from tilec.passes.registry import Pass, register_pass
from tilec.targets import target_of
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend.profiles import Profile

_INDEX_OPS = frozenset({"arith.constant", "arith.muli", "arith.addi", "arith.subi",
                        "arith.divsi", "arith.divui", "arith.remsi", "arith.remui",
                        "arith.minsi", "arith.maxsi", "arith.index_cast"})
"""Ops a slab loop's body may hold besides its copies and gemms: index arithmetic."""
_K_DIM = {0: ("transpose_a", 1, 0), 1: ("transpose_b", 0, 1)}
"""Per gemm operand: its transpose flag, and the dim of its tile that runs
along K without and with the flag."""


def _inside(value: ir.Value, loop: ir.Operation) -> ir.Operation | None:
    """The op of `loop`'s body that defines `value`, None for a value from outside."""
    owner = value.owner
    if not isinstance(owner, ir.Operation | ir.OpView):
        return None
    op = owner.operation
    return op if loop in set(irb.ancestors(op)) else None


def _depends_on(value: ir.Value, iv: ir.Value, loop: ir.Operation) -> bool:
    if value == iv:
        return True
    op = _inside(value, loop)
    return op is not None and any(_depends_on(v, iv, loop) for v in op.operands)


def _walks_k(value: ir.Value, iv: ir.Value, loop: ir.Operation, step: int,
             extent: int) -> bool:
    """Whether the offset `value` is `iv * c` with `c * step == extent`: consecutive
    iterations copy consecutive tiles along this dim."""
    if value == iv:
        return step == extent
    op = _inside(value, loop)
    if op is None or op.name != "arith.muli":
        return False
    lhs, rhs = op.operands
    factor = irb.constant_int(rhs) if lhs == iv else irb.constant_int(lhs) if rhs == iv \
        else None
    return factor is not None and factor * step == extent


def _operand_tiles(loop: ir.Operation, step: int) -> dict[ir.Value, int] | None:
    """The L1 tiles of the gemms in `loop`'s body with the dim of each that runs
    along K, when the body is only index arithmetic, a whole-tile copy from GM
    into each such tile that walks K with the loop, and gemms; else None."""
    body = loop.regions[0].blocks[0]
    iv = body.arguments[0]
    tiles: dict[ir.Value, int] = {}
    copies: dict[ir.Value, ir.Operation] = {}
    for inner in body.operations:
        op = inner.operation
        if op.name in _INDEX_OPS or op.name in ("tile.yield", "scf.yield"):
            continue
        if op.name == "tile.copy":
            src, _, dst, dst_offsets, pad = copy_operands(op)
            if not buffers.is_global(src[0]) or pad or "sizes" in op.attributes \
                    or any(irb.constant_int(o) != 0 for o in dst_offsets) \
                    or dst[0] in copies:
                return None
            copies[dst[0]] = op
        elif op.name == "tile.gemm":
            for position, (flag, plain, transposed) in _K_DIM.items():
                tile = op.operands[position]
                k_dim = transposed if flag in op.attributes else plain
                if tiles.setdefault(tile, k_dim) != k_dim:
                    return None
            if _inside(op.operands[2], loop) is not None:
                return None
        else:
            return None
    if not tiles or set(copies) != set(tiles):
        return None
    for tile, k_dim in tiles.items():
        owner = tile.owner
        if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "tile.alloc" \
                or str(buffers.memory_space(ir.MemRefType(tile.type))) != "l1":
            return None
        if any(use.owner.operation.name not in ("tile.copy", "tile.gemm")
               or _inside_op(use.owner.operation, loop) is None for use in tile.uses):
            return None
        offsets = copy_operands(copies[tile])[1]
        extent = ir.MemRefType(tile.type).shape[k_dim]
        if not _walks_k(offsets[k_dim], iv, loop, step, extent) or any(
                _depends_on(o, iv, loop) for d, o in enumerate(offsets) if d != k_dim):
            return None
    return tiles


def _inside_op(op: ir.Operation, loop: ir.Operation) -> ir.Operation | None:
    return op if loop in set(irb.ancestors(op)) else None


def _slab_factor(loop: ir.Operation, tiles: dict[ir.Value, int], trips: int,
                 func: ir.Operation, profile: Profile) -> int:
    """Iterations per slab: up to a DMA burst of K per row, a divisor of the trip
    count, with the slabs' slots (one per stage) fitting L1 beside its other tiles."""
    stages = _stages(loop)
    alignment = profile.alignment["l1"]
    others = sum(align_up(buffer_bytes(ir.MemRefType(a.results[0].type)), alignment)
                 for a in irb.collect(func, "tile.alloc")
                 if a.results[0] not in tiles
                 and str(buffers.memory_space(ir.MemRefType(a.results[0].type))) == "l1")
    depth = {ir.MemRefType(t.type).shape[d] for t, d in tiles.items()}
    if len(depth) != 1:
        return 1
    block_k = depth.pop()
    itemsize = max(irb.bit_width(ir.MemRefType(t.type).element_type) // 8 for t in tiles)
    wanted = max(1, profile.dma_burst_bytes // (block_k * itemsize))
    for factor in range(min(wanted, trips), 1, -1):
        slabs = sum(align_up(buffer_bytes(ir.MemRefType(t.type)) * factor, alignment)
                    for t in tiles)
        if trips % factor == 0 and others + stages * slabs <= profile.usable_bytes("l1"):
            return factor
    return 1


def _stages(loop: ir.Operation) -> int:
    attr = loop.attributes.get("num_stages")
    return max(1, ir.IntegerAttr(attr).value) if attr is not None else 1


def _deepen(tile: ir.Value, k_dim: int, factor: int) -> None:
    type_ = ir.MemRefType(tile.type)
    shape = list(type_.shape)
    shape[k_dim] *= factor
    tile.set_type(ir.MemRefType.get(shape, type_.element_type, type_.layout,
                                    type_.memory_space))


@register_pass
@dataclass(frozen=True)
class AscendKSlabsPass(Pass):
    """Walks the K loops that only feed gemms from GM in slabs of several
    iterations (one copy per operand per slab, one gemm over it)."""

    argument = "tile-ascend-k-slabs"
    anchor = "func.func"
    summary = "Copy GEMM operands into L1 in K slabs of several loop iterations"

    target: str = target_option(AscendTarget)

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            slab_k_loops(op, target_of(AscendTarget, self.target).profile)


def slab_k_loops(func: ir.Operation, profile: Profile) -> None:
    """Walks the K loops of `func` that only feed gemms from GM in slabs (see the
    module docstring). Runs on placed tiles (operands in L1)."""
    for loop in irb.collect(func, {"tile.pipelined", "scf.for"}):
        lower, upper, step = (irb.constant_int(v) for v in list(loop.operands)[:3])
        if lower is None or upper is None or not step or upper <= lower:
            continue
        tiles = _operand_tiles(loop, step)
        if tiles is None:
            continue
        trips = -(-(upper - lower) // step)
        factor = _slab_factor(loop, tiles, trips, func, profile)
        if factor == 1:
            continue
        for tile, k_dim in tiles.items():
            _deepen(tile, k_dim, factor)
        with ir.InsertionPoint(loop):
            loop.operands[2] = irb.index(step * factor)
