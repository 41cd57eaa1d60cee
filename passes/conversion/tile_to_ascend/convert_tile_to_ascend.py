"""convert-tile-to-ascend: every tile op to the `ascend` dialect, scf and arith.

The pass resolves each tile op of a function to its one ascend lowering
(cube path: `cube_*.py`, vector path: `vector_*.py`, structure: `kernel.py`,
tiles: `buffers.py`), reporting at the op when none or several apply,
before it rewrites anything. It lowers the ops in the phases their lowerings
declare (data movement and compute, then element-wise regions, loops, tiles
and the grid last), then turns global scratch into arguments the host
allocates (`global_scratch`), retypes every memref to its NPU memory (GM
arguments to `#ascend.mem<gm>`) and marks a function that held a
`tile.kernel` as an `ascend.kernel`: `aic` when its buffers are cube
buffers, `aiv` otherwise.

Before:

    func.func @k(%x: memref<?xf32>) attributes {tile.entry} {
      tile.kernel blocks(%bx) in (%n) threads = 128 {
        %t = tile.alloc : memref<64xf32, #tile.scope<ub>>
        tile.copy %x[%i], %t[%c0] : memref<?xf32>, memref<64xf32, #tile.scope<ub>>
      }
    }

After:

    func.func @k(%x: memref<?xf32, #ascend.mem<gm>>)
        attributes {ascend.kernel = #ascend.core<aiv>, tile.entry} {
      %t = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
      scf.for %b = %block_idx to %n step %block_num {
        ascend.copy %x[%i], %t[%c0] sizes [64] : ...
      }
    }
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from mlir import ir

from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_conversion import TileConversion
from tilec.passes.conversion.tile_to_ascend.analysis import global_scratch
from tilec.passes.conversion.tile_to_ascend.ops import buffers, byte_views, cube_gemm
from tilec.passes.conversion.tile_to_ascend.ops.padded_rows import pad_ub_rows
from tilec.passes.conversion.tile_to_ascend.split_cores import seal_cores
from tilec.passes.registry import PassFailure, import_package, register_pass
from tilec.targets import target_of
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend import attributes as ascend_attr

import_package("tilec.passes.conversion.tile_to_ascend.ops")  # every lowering registers itself

_MIXED = "needs both cube and vector cores (mixed kernels are not supported yet)"


def _core_of(func: ir.Operation) -> ascend.CoreType | None:
    """aic or aiv from the on-chip buffers of `func`, mix when it holds
    `ascend.core` regions (tile-ascend-split-cores made them); None (after
    reporting) when it has both kinds of buffer otherwise."""
    if irb.collect(func, "ascend.core"):
        return ascend.CoreType.mix
    spaces = {
        buffers.memory_space(ir.MemRefType(op.results[0].type))
        for op in irb.collect(func, "memref.alloc")
    }
    cube = spaces & buffers.CUBE_SPACES
    if cube and ascend.MemSpace.ub in spaces:
        func.location.emit_error(f"the kernel {_MIXED}")
        return None
    return ascend.CoreType.aic if cube else ascend.CoreType.aiv


@register_pass
@dataclass(frozen=True)
class ConvertTileToAscendPass(TileConversion[AscendTarget]):
    """Resolves every tile op to its ascend lowering, lowers them in order,
    and gives the function its NPU memory spaces and core kind."""

    argument = "convert-tile-to-ascend"
    target_name = "ascend"
    summary = "Lower tile ops to the ascend dialect (vector and cube cores)"

    target: str = target_option(AscendTarget)

    def lowering_target(self) -> AscendTarget:
        return target_of(AscendTarget, self.target)

    @contextlib.contextmanager
    def around_lowering(self, func: ir.Operation, target: AscendTarget) -> Iterator[None]:
        is_kernel = bool(irb.collect(func, "tile.kernel"))
        pad_ub_rows(func)
        cube_gemm.own_copies_for_transposed_reads(func, target)
        yield
        for alloc in irb.collect(func, {"memref.alloc", "memref.subview"}):
            for marker in (buffers.SCRATCH, buffers.IOTA, byte_views.BYTE_SCRATCH):
                if marker in alloc.attributes:
                    del alloc.attributes[marker]
        if is_kernel:
            global_scratch.scratch_to_arguments(func)
        irb.retype(func, buffers.ascend_type)
        seal_cores(func)
        if is_kernel:
            core = _core_of(func)
            if core is None:
                raise PassFailure("mixed kernel")
            func.attributes[ascend_attr.KERNEL] = ascend.core_attr(core)
