"""tile-cpu-inline-core-scopes: a tilelang-ascend expert kernel of one kind of core, on cpu.

An expert kernel's `T.Scope("C")` / `T.Scope("V")` programs are `scf.execute_region`s
marked `ascend.core_region`, and its author orders the NPU's pipes with flags and
barriers (`ascend.set_flag`, `wait_flag`, `pipe_barrier`). On cpu a core's program
is sequential code, already in order: where every scope is of one kind, the scopes
are inlined and the intra-core sync erased, and the kernel runs as written (the
`vid` of its grid picks each AIV's half as on the NPU). A kernel with both kinds of
scope is two programs that run at once and wait for each other's cross-core flags,
and cross-core flags and `T.sync_all` wait for other cores: no sequential order of
one block's code means the same, so those are located errors, as is a kernel
whose cube and vector work hand data through global tensors
(`ascend.combine_cores`, tilelang-ascend's AUTO_CV_COMBINE).

Before:

    scf.execute_region {
      tile.copy %A[%i, %c0], %a[%c0, %c0] ...
      ascend.pipe_barrier all
      tile.parallel ...
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}

After:

    tile.copy %A[%i, %c0], %a[%c0, %c0] ...
    tile.parallel ...
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, emit_error, register_pass
from tilec.targets.ascend import attributes as ascend_attr

_INTRA_CORE_SYNC = frozenset({"ascend.set_flag", "ascend.wait_flag", "ascend.pipe_barrier"})
_BETWEEN_CORES = frozenset({"ascend.cross_core_set_flag", "ascend.cross_core_wait_flag",
                            "ascend.sync_all"})
_SCOPE_NAMES = {"aic": 'T.Scope("C")', "aiv": 'T.Scope("V")'}


def _kind(region: ir.Operation) -> str:
    return str(region.attributes[ascend_attr.CORE_REGION]).split("<")[-1].rstrip(">")


@register_pass
@dataclass(frozen=True)
class CpuInlineCoreScopesPass(Pass):
    """Inlines the core scopes of a one-kind expert kernel and drops its intra-core sync."""

    argument = "tile-cpu-inline-core-scopes"
    anchor = "func.func"
    summary = "Run a tilelang-ascend expert kernel of one kind of core as sequential code"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for kernel in irb.collect(op, "tile.kernel"):
                if ascend_attr.COMBINE in kernel.attributes:
                    raise emit_error(kernel, f"{self.argument}: this kernel's cube and vector "
                                             f"work hand data through global tensors "
                                             f"(AUTO_CV_COMBINE): two programs that run at once "
                                             f"and wait for each other's flags, so it runs on "
                                             f"ascend only")
            scopes = [r for r in irb.collect(op, "scf.execute_region")
                      if ascend_attr.CORE_REGION in r.attributes]
            kinds = {_kind(r) for r in scopes}
            if len(kinds) > 1:
                second = next(r for r in scopes if _kind(r) != _kind(scopes[0]))
                raise emit_error(second, f"{self.argument}: this {_SCOPE_NAMES[_kind(second)]} "
                                         f"runs at the same time as the "
                                         f"{_SCOPE_NAMES[_kind(scopes[0])]} program and they "
                                         f"wait for each other's flags: the kernel runs on "
                                         f"ascend only")
            for sync in irb.collect(op, _BETWEEN_CORES):
                raise emit_error(sync, f"{self.argument}: '{sync.name}' waits for other cores, "
                                       f"which one block's sequential code cannot: the kernel "
                                       f"runs on ascend only")
            for sync in irb.collect(op, _INTRA_CORE_SYNC):
                sync.erase()
            for region in scopes:
                body = region.regions[0].blocks[0]
                irb.move_body(body, region)
                region.erase()
