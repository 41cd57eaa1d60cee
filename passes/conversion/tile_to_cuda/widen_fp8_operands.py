"""tile-cuda-widen-fp8-operands: 8-bit float gemm operands as f16 tiles where mma.sync runs.

tilec's mma.sync gemms take f16, bf16 or i8 operands (layouts.py);
only sm_90a's wgmma takes 8-bit floats. So, as TileLang does on Ampere, an
f8E4M3FN or f8E5M2 operand of a gemm that does not run on wgmma is
converted to f16 before the gemm: a tile of its shape and scope, in f16,
filled by a converting `tile.copy` of the operand right before the gemm,
which then reads it. f16 holds every value of both formats exactly (e4m3's
largest is 448, e5m2's 57344, both below f16's 65504; their smallest
subnormals, 2^-9 and 2^-16, are f16 normals), so the products and sums are
those of the f8 values, as on the cpu. The f16 tile costs twice the f8
tile's bytes of the same scope.

Before:

    tile.gemm %a, %b, %c {transpose_b} : memref<64x32xf8E4M3FN, #tile.scope<shared>>, ...

After:

    %a16 = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    ...
    tile.copy %a[%c0, %c0], %a16[%c0, %c0] : memref<64x32xf8E4M3FN, ...>, memref<64x32xf16, ...>
    tile.gemm %a16, %b16, %c {transpose_b} : memref<64x32xf16, #tile.scope<shared>>, ...
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import gemm_wgmma
from tilec.passes.registry import Pass, register_pass
from tilec.targets import target_of
from tilec.targets.cuda import CudaTarget

FP8 = frozenset({"f8E4M3FN", "f8E5M2"})


def _widened(operand: ir.Value, gemm: ir.Operation) -> ir.Value:
    """An f16 tile holding `operand`'s values, copied into it right before `gemm`."""
    type_ = ir.MemRefType(operand.type)
    with irb.scratch_insertion_point(gemm), gemm.location:
        wide = tile.alloc(ir.MemRefType.get(type_.shape, ir.F16Type.get(),
                                            memory_space=type_.memory_space))
    with ir.InsertionPoint(gemm), gemm.location:
        zeros = [irb.index(0)] * type_.rank
        tile.copy(operand, zeros, wide, zeros)
    return wide


def widen(func: ir.Operation, has_wgmma: bool) -> None:
    """Widens the 8-bit float operands of the gemms of `func` that do not run on wgmma."""
    gemms = [op for op in irb.collect(func, "tile.gemm") if gemm_wgmma(op, has_wgmma) is None]
    for gemm in gemms:
        for number in (0, 1):
            operand = gemm.operands[number]
            if str(ir.MemRefType(operand.type).element_type) in FP8:
                gemm.operands[number] = _widened(operand, gemm)


@register_pass
@dataclass(frozen=True)
class CudaWidenFp8OperandsPass(Pass):
    """Converts the 8-bit float operands of gemms that run on mma.sync to f16 tiles."""

    argument = "tile-cuda-widen-fp8-operands"
    anchor = "func.func"
    summary = "Convert 8-bit float operands of gemms not on wgmma to f16 tiles"

    target: str = target_option(CudaTarget)

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            widen(op, target_of(CudaTarget, self.target).has_wgmma)
