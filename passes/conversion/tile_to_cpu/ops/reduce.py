"""The cpu lowerings of tile.reduce and tile.cumsum: vectorized loops.

A reduction along the last dimension keeps a register-wide vector of
partial results per row and finishes with a tree of shuffles and vector
combines (f32, f64) or `vector.reduction`; a reduction
along any other dimension keeps a vector of results over the last dimension
and combines whole rows into it, so both read memory contiguously.
`clear = false` starts from (or combines with) the old `dst`. `max`/`min`
propagate NaN (`arith.maximumf`/`minimumf`); `abssum`/`absmax` apply
`math.absf`/`absi` to each element first.

Bools (bytes, tile-widen-bools) marked `tile.bool_any` are summed as
an or: a sum is max, a running sum an `arith.ori`.

A cumsum along a dimension other than the last carries a vector of running
sums over the last dimension; along the last dimension it is a scalar loop
with the running sum as its loop-carried value. `reverse` walks the
dimension from its end.

Before:

    tile.reduce max %s, %m dim = 1 : memref<4x16xf32, ...>, memref<4xf32, ...>

After (schematically):

    scf.for %i = %c0 to %c4 step %c1 {
      %acc = scf.for %j = %c0 to %c16 step %c8 iter_args(%a = %ninf) -> (vector<8xf32>) {
        %v = vector.load %s[%i, %j] : memref<4x16xf32, ...>, vector<8xf32>
        %n = arith.maximumf %a, %v : vector<8xf32>
        scf.yield %n : vector<8xf32>
      }
      %lo = vector.shuffle %acc, %acc [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
      %hi = vector.shuffle %acc, %acc [4, 5, 6, 7] : vector<8xf32>, vector<8xf32>
      %h = arith.maximumf %lo, %hi : vector<4xf32>
      ... (to one lane)
      %r = vector.extract %h1[0] : f32 from vector<1xf32>
      memref.store %r, %m[%i] : memref<4xf32, ...>
    }
"""

from __future__ import annotations

from mlir import ir
from mlir.dialects import arith, memref, scf, vector

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_semantics import ReduceKind
from tilec.passes.widen_bools import BOOL_ANY
from tilec.targets import CpuTarget


# The largest value of the float types without an inf (their inf constant
# is NaN, which max and min would propagate); as neutral for max and min.
def _reduce_last_dim(
    kind: ReduceKind, src: ir.Value, dst: ir.Value, clear: bool, lanes: int
) -> None:
    shape = ir.MemRefType(src.type).shape
    extent = shape[-1]
    full = extent // lanes * lanes
    with irb.loop_nest(shape[:-1]) as ivs:
        partials = []
        if full:
            vector_type = ir.VectorType.get([lanes], kind.element)
            loop = scf.ForOp(
                irb.index(0), irb.index(full), irb.index(lanes), [kind.identity(vector_type)]
            )
            with ir.InsertionPoint(loop.body):
                chunk = vector.load(vector_type, src, [*ivs, loop.induction_variable])
                scf.YieldOp([kind.combine(loop.inner_iter_args[0], kind.prepare(chunk))])
            partials.append(loop.results[0])
        if extent > full:
            tail_type = ir.VectorType.get([extent - full], kind.element)
            partials.append(kind.prepare(vector.load(tail_type, src, [*ivs, irb.index(full)])))
        results = [_horizontal(kind, p) for p in partials]
        result = results[0] if len(results) == 1 else kind.combine(*results)
        where = ivs or [irb.index(0)]
        if not clear:
            result = kind.combine(memref.load(dst, where), result)
        memref.store(result, dst, where)


def _horizontal(kind: ReduceKind, partial: ir.Value) -> ir.Value:
    """The reduction of one vector's lanes. f32 and f64 of a power-of-two
    width halve in log2(width) steps of a shuffle and a vector combine:
    LLVM's `vector.reduction` of a float max (NaN and signed zeros handled
    lane by lane) or of a sum (summed in lane order) is a chain of scalar
    steps on x86. Integers (LLVM already reduces them as a tree), narrower
    floats (8-bit ones are bytes until tile-cpu-emulate-fp8, which has no
    shuffles) and other widths keep `vector.reduction`."""
    width = ir.VectorType(partial.type).shape[0]
    wide_float = irb.is_float(kind.element) and irb.bit_width(kind.element) >= 32
    if width & (width - 1) or not wide_float:
        return vector.reduction(kind.element, kind.vector_kind(), partial)
    while width > 1:
        width //= 2
        low = vector.shuffle(partial, partial, list(range(width)))
        high = vector.shuffle(partial, partial, list(range(width, 2 * width)))
        partial = kind.combine(low, high)
    return vector.extract(partial, [], [0])


def _reduce_inner_dim(
    kind: ReduceKind, src: ir.Value, dst: ir.Value, dim: int, clear: bool, lanes: int
) -> None:
    shape = ir.MemRefType(src.type).shape
    kept = [d for d in range(len(shape) - 1) if d != dim]
    with irb.loop_nest([shape[d] for d in kept]) as ivs:

        def chunk(start: ir.Value | int, width: int) -> None:
            type_ = ir.VectorType.get([width], kind.element)
            dst_index = [*ivs, irb.as_index(start)]
            initial = kind.identity(type_) if clear else vector.load(type_, dst, dst_index)
            loop = scf.ForOp(irb.index(0), irb.index(shape[dim]), irb.index(1), [initial])
            with ir.InsertionPoint(loop.body):
                by_dim = dict(zip(kept, ivs, strict=True))
                by_dim[dim] = loop.induction_variable
                src_index = [by_dim[d] for d in range(len(shape) - 1)] + [irb.as_index(start)]
                row = kind.prepare(vector.load(type_, src, src_index))
                scf.YieldOp([kind.combine(loop.inner_iter_args[0], row)])
            vector.store(loop.results[0], dst, dst_index)

        irb.for_each_chunk(shape[-1], lanes, chunk)


@register_lowering
class ReduceToVectorLoops(TileOpLowering[int, CpuTarget]):
    """tile.reduce as loops over register-wide vectors of partial results."""

    target = "cpu"
    op_names = ("tile.reduce",)
    name = "cpu-reduce-vector-loops"
    phase = Phase.REDUCTIONS

    def infer(self, op: ir.Operation, target: CpuTarget) -> int:
        return irb.lanes(target.vector_bytes, ir.MemRefType(op.operands[0].type).element_type)

    def lower(self, op: ir.Operation, plan: int, target: CpuTarget) -> None:
        src, dst = op.operands
        name = str(tile.reduce_kind_of(op.attributes["kind"]))
        if BOOL_ANY in op.attributes:
            name = "max"  # a sum of 0/1 bytes that are bools: any
        kind = ReduceKind(name, ir.MemRefType(src.type).element_type)
        dim = ir.IntegerAttr(op.attributes["dim"]).value
        clear = "clear" not in op.attributes or ir.BoolAttr(op.attributes["clear"]).value
        with ir.InsertionPoint(op), op.location:
            if dim == ir.MemRefType(src.type).rank - 1:
                _reduce_last_dim(kind, src, dst, clear, plan)
            else:
                _reduce_inner_dim(kind, src, dst, dim, clear, plan)
        op.erase()


def _position(iv: ir.Value, extent: int, reverse: bool) -> ir.Value:
    return arith.subi(irb.index(extent - 1), iv) if reverse else iv


@register_lowering
class CumsumToVectorLoops(TileOpLowering[int, CpuTarget]):
    """tile.cumsum as a running sum: of vectors over the last dim, or scalar
    along it."""

    target = "cpu"
    op_names = ("tile.cumsum",)
    name = "cpu-cumsum-running-sum"
    phase = Phase.REDUCTIONS

    def infer(self, op: ir.Operation, target: CpuTarget) -> int:
        return irb.lanes(target.vector_bytes, ir.MemRefType(op.operands[0].type).element_type)

    def lower(self, op: ir.Operation, plan: int, target: CpuTarget) -> None:
        src, dst = op.operands
        shape = ir.MemRefType(src.type).shape
        element = ir.MemRefType(src.type).element_type
        dim = ir.IntegerAttr(op.attributes["dim"]).value
        reverse = "reverse" in op.attributes and ir.BoolAttr(op.attributes["reverse"]).value
        add = arith.addf if irb.is_float(element) else arith.addi
        if BOOL_ANY in op.attributes:
            add = arith.ori  # a running sum of 0/1 bytes that are bools: any
        last = len(shape) - 1
        with ir.InsertionPoint(op), op.location:
            kept = [d for d in range(last) if d != dim]
            with irb.loop_nest([shape[d] for d in kept]) as ivs:
                by_dim = dict(zip(kept, ivs, strict=True))

                def running_sum(start: ir.Value | int | None, width: int) -> None:
                    # start None: a scalar sum along the last dim itself.
                    type_ = element if start is None else ir.VectorType.get([width], element)
                    loop = scf.ForOp(
                        irb.index(0), irb.index(shape[dim]), irb.index(1), [irb.zero(type_)]
                    )
                    with ir.InsertionPoint(loop.body):
                        by_dim[dim] = _position(loop.induction_variable, shape[dim], reverse)
                        index = [by_dim[d] for d in range(last)]
                        index.append(by_dim[dim] if start is None else irb.as_index(start))
                        if start is None:
                            total = add(loop.inner_iter_args[0], memref.load(src, index))
                            memref.store(total, dst, index)
                        else:
                            total = add(loop.inner_iter_args[0], vector.load(type_, src, index))
                            vector.store(total, dst, index)
                        scf.YieldOp([total])

                if dim == last:
                    running_sum(None, 1)
                else:
                    irb.for_each_chunk(shape[-1], plan, running_sum)
        op.erase()
