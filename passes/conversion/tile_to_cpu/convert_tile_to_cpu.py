"""convert-tile-to-cpu: every tile op to scf, memref and vector code for the cpu.

The pass resolves each tile op of a function to its one cpu lowering (see
`tilec.passes.conversion.lowering`), reporting at the op when none applies,
before it rewrites anything. It then lowers the ops in dependency order:
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

from dataclasses import dataclass

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import lower_ops, resolve_all
from tilec.passes.conversion.tile_to_cpu import ops  # noqa: F401 (importing ops/ registers every lowering)
from tilec.passes.registry import Pass, import_package, option, register_pass
from tilec.targets import get_target

# The order ops are lowered in; ops of one phase do not depend on each other.
PHASES: tuple[tuple[str, ...], ...] = (
    ("tile.gemm",),
    ("tile.copy",),
    ("tile.atomic_add",),
    ("tile.reduce", "tile.cumsum"),
    ("tile.fill", "tile.clear"),
    ("tile.parallel",),
    ("tile.pipelined",),
    ("tile.barrier",),
    ("tile.alloc",),
    ("tile.kernel",),
)

import_package("tilec.passes.conversion.tile_to_cpu.ops")  # every lowering registers itself


def _check_ops(text: str) -> None:
    known = [name for phase in PHASES for name in phase]
    for name in filter(None, text.split(",")):
        if name not in known:
            raise ValueError(f"'{name}' is not a tile op with a cpu lowering ({', '.join(known)})")


def _check_cpu_target(text: str) -> None:
    if get_target(text).name != "cpu":
        raise ValueError(f"'{text}' is not a cpu target")


@register_pass
@dataclass(frozen=True)
class ConvertTileToCpuPass(Pass):
    """Resolves every tile op to its cpu lowering, then lowers them in order."""

    argument = "convert-tile-to-cpu"
    anchor = "func.func"
    summary = "Lower tile ops to scf/memref/vector code for the cpu target"

    ops: str = option(
        "", "comma-separated tile ops to lower in this run (default: all)", _check_ops
    )
    target: str = option("cpu", "the cpu variant (cpu:avx2, cpu:avx512)", _check_cpu_target)

    def run(self, op: ir.Operation) -> None:
        target = get_target(self.target)
        selected = set(filter(None, self.ops.split(","))) or None
        with op.context, op.location:
            resolve_all(op, target)
            for phase in PHASES:
                names = {name for name in phase if selected is None or name in selected}
                if names:
                    lower_ops(irb.collect(op, names), target)
            if "tile.entry" in op.attributes:
                # The JIT calls entry functions through their C interface
                # with memref descriptors.
                op.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get(op.context)
