"""tile-cpu-inline-core-scopes: a tilelang-ascend expert kernel of one kind of core, on cpu.

An expert kernel's `T.Scope("C")` / `T.Scope("V")` programs are `scf.execute_region`s
marked `ascend.core_region`, and its author orders the NPU's pipes with flags and
barriers (`ascend.set_flag`, `wait_flag`, `pipe_barrier`). On cpu a core's program
is sequential code, already in order: where every scope is of one kind, the scopes
are inlined and the intra-core sync erased, and the kernel runs as written (the
`vid` of its grid picks each AIV's half as on the NPU).

A kernel with both kinds of scope is two programs that run at once. Where the flags
between them go one way, from the cube to the vector cores (the cube's scopes come
first, never wait for a cross-core flag, and the AIVs' never set one: DeepSeek-V4's
int8 GEMM, matmul+add, the lightning indexer), running the cube's program and then
each AIV's in turn means the same: the AIVs wait for the cube anyway. Then each block
of the grid is one AI core: the `vid` dim of the grid becomes a loop around the
vector scopes, and the cross-core flags go. Flags both ways, and `T.sync_all`, wait
for other cores, which no sequential order of one block's code can: located errors,
as is a kernel whose cube and vector work hand data through global tensors
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
from mlir.dialects import scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, emit_error, register_pass
from tilec.targets.ascend import attributes as ascend_attr

_INTRA_CORE_SYNC = frozenset({"ascend.set_flag", "ascend.wait_flag", "ascend.pipe_barrier"})
_CROSS_CORE = frozenset({"ascend.cross_core_set_flag", "ascend.cross_core_wait_flag"})
_SCOPE_NAMES = {"aic": 'T.Scope("C")', "aiv": 'T.Scope("V")'}


def _kind(region: ir.Operation) -> str:
    return str(region.attributes[ascend_attr.CORE_REGION]).split("<")[-1].rstrip(">")


def _vid(kernel: ir.Operation) -> tuple[int, ir.Value] | None:
    """The grid dim that is `vid` (`ascend.vid_dim`) and its block argument, if any."""
    if ascend_attr.VID not in kernel.attributes:
        return None
    dim = ir.IntegerAttr(kernel.attributes[ascend_attr.VID]).value
    return dim, kernel.regions[0].blocks[0].arguments[dim]


def _inside(op: ir.Operation, regions: list[ir.Operation]) -> bool:
    return any(r in regions for r in irb.ancestors(op))


def _one_way(kernel: ir.Operation, scopes: list[ir.Operation]) -> bool:
    """Whether `kernel`'s scopes are the cube's, then the AIVs', with cross-core flags from
    the cube to the AIVs only, and its `vid` (if it has one) read by the AIVs' only."""
    kinds = [_kind(r) for r in scopes]
    if kinds != sorted(kinds):  # "aic" < "aiv": every cube scope first
        return False
    for region in scopes:
        wrong = "ascend.cross_core_wait_flag" if _kind(region) == "aic" \
            else "ascend.cross_core_set_flag"
        if irb.collect(region, wrong):
            return False
    vid = _vid(kernel)
    vector = [r for r in scopes if _kind(r) == "aiv"]
    return vid is None or all(_inside(use.owner, vector) for use in vid[1].uses)


def _aivs_in_turn(kernel: ir.Operation, scopes: list[ir.Operation]) -> None:
    """One block per AI core: the grid's `vid` dim a loop around each vector scope."""
    vid = _vid(kernel)
    if vid is None:
        return
    dim, value = vid
    for region in (r for r in scopes if _kind(r) == "aiv"):
        with ir.InsertionPoint(region), region.location:
            loop = scf.ForOp(irb.index(0), kernel.operands[dim], irb.index(1))
        with ir.InsertionPoint(loop.body), region.location:
            scf.YieldOp([])
        region.move_before(loop.body.operations[0])
        for use in list(value.uses):
            if _inside(use.owner, [region]):
                use.owner.operands[use.operand_number] = loop.induction_variable
    with ir.InsertionPoint(kernel), kernel.location:
        kernel.operands[dim] = irb.index(1)
    del kernel.attributes[ascend_attr.VID]


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
            for sync in irb.collect(op, "ascend.sync_all"):
                raise emit_error(sync, f"{self.argument}: '{sync.name}' waits for other cores, "
                                       f"which one block's sequential code cannot: the kernel "
                                       f"runs on ascend only")
            scopes = [r for r in irb.collect(op, "scf.execute_region")
                      if ascend_attr.CORE_REGION in r.attributes]
            ordered = []
            for kernel in irb.collect(op, "tile.kernel"):
                mine = [r for r in scopes if irb.enclosing(r, {"tile.kernel"}) == kernel]
                if len({_kind(r) for r in mine}) < 2:
                    continue
                if not _one_way(kernel, mine):
                    second = next(r for r in mine if _kind(r) != _kind(mine[0]))
                    raise emit_error(second, f"{self.argument}: this "
                                             f"{_SCOPE_NAMES[_kind(second)]} runs at the same "
                                             f"time as the {_SCOPE_NAMES[_kind(mine[0])]} "
                                             f"program and they wait for each other's flags: "
                                             f"the kernel runs on ascend only")
                _aivs_in_turn(kernel, mine)
                ordered.append(kernel)
            for sync in irb.collect(op, _CROSS_CORE):
                if irb.enclosing(sync, {"tile.kernel"}) not in ordered:
                    raise emit_error(sync, f"{self.argument}: '{sync.name}' waits for other "
                                           f"cores, which one block's sequential code cannot: "
                                           f"the kernel runs on ascend only")
                sync.erase()
            for sync in irb.collect(op, _INTRA_CORE_SYNC):
                sync.erase()
            for region in scopes:
                body = region.regions[0].blocks[0]
                irb.move_body(body, region)
                region.erase()
