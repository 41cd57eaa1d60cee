"""convert-tile-to-cpu: every tile op to scf, memref and vector code for the cpu.

The pass resolves each tile op of a function to its one cpu lowering (see
`tilec.passes.conversion.lowering`), reporting at the op when none applies,
before it rewrites anything. It then lowers the ops phase by phase, in the
order their lowerings declare (`tilec.passes.conversion.lowering.Phase`):
gemm may create scratch tiles that the alloc lowering then places, tiles
are placed before the kernel around them becomes a block loop. `ops`
restricts one run to some of the ops, so that the `tile-to-cpu` pipeline
shows the IR after each op's lowering as a stage of its own.

Before:

    tile.kernel blocks(%bx) in (%n) threads = 128 {
      %t = tile.alloc : memref<64xf32, #tile.scope<fragment>>
      tile.fill %t, %v : memref<64xf32, #tile.scope<fragment>>, f32
      ...
    }

After:

    scf.parallel (%bx) = (%c0) to (%n) step (%c1) {
      %t = memref.alloca() {alignment = 64 : i64} : memref<64xf32, #tile.scope<fragment>>
      vector.store %s, %t[%c0] : memref<64xf32, #tile.scope<fragment>>, vector<8xf32>
      ...
    }
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from mlir import ir

from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_conversion import Phases, TileConversion
from tilec.passes.registry import import_package, option, register_pass
from tilec.targets import target_of
from tilec.targets.cpu import CpuTarget

import_package("tilec.passes.conversion.tile_to_cpu.ops")  # every lowering registers itself


def _check_ops(text: str) -> None:
    known = [name for phase in ConvertTileToCpuPass.phases() for name in phase]
    for name in filter(None, text.split(",")):
        if name not in known:
            raise ValueError(f"'{name}' is not a tile op with a cpu lowering ({', '.join(known)})")


@register_pass
@dataclass(frozen=True)
class ConvertTileToCpuPass(TileConversion[CpuTarget]):
    """Resolves every tile op to its cpu lowering, then lowers them in order."""

    argument = "convert-tile-to-cpu"
    target_name = "cpu"
    summary = "Lower tile ops to scf/memref/vector code for the cpu target"

    ops: str = option(
        "", "comma-separated tile ops to lower in this run (default: all)", _check_ops
    )
    target: str = target_option(CpuTarget)

    def lowering_target(self) -> CpuTarget:
        return target_of(CpuTarget, self.target)

    def selected_phases(self) -> Phases:
        selected = set(filter(None, self.ops.split(",")))
        if not selected:
            return self.phases()
        phases = (tuple(name for name in phase if name in selected) for phase in self.phases())
        return tuple(phase for phase in phases if phase)

    @contextlib.contextmanager
    def around_lowering(self, func: ir.Operation, target: CpuTarget) -> Iterator[None]:
        yield
        if "tile.entry" in func.attributes:
            # The JIT calls entry functions through their C interface with
            # memref descriptors.
            func.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(func.context)
