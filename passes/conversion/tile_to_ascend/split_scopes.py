"""tile-ascend-split-scopes: an expert kernel's `T.Scope("C")`/`T.Scope("V")`
programs become the AIC and AIV sides of a mix kernel, as written.

tilelang-ascend's expert mode writes the cube core's and the vector cores'
programs side by side in one `T.Kernel`: they run at the same time and hand
data through GM workspaces with cross-core flags, so they have no sequential
meaning and cannot go through tile-ascend-split-cores (which splits one
sequential program). The DSL marks each scope as an `scf.execute_region`
with `ascend.core_region = #ascend.core<aic|aiv>` directly in the
`tile.kernel` body. This pass gives the function the form split-cores
produces, one marked region per kind of core around its own copy of the
kernel, so the rest of the pipeline (lowering, planning, the simulator, the
emitter) treats it like any mix kernel:

- the copy for a kind keeps the bodies of that kind's scopes, in order, and
  the code outside the scopes (index arithmetic, allocations, sync ops);
  allocations and scalar code the copy does not use are dropped;
- a kernel with "C" scopes only runs on the AIC alone (its scopes are inlined:
  a cube kernel); one with any "V" scope is a mix kernel, so that both AIVs of
  each AI core run the "V" scopes, each with its own sub-block index.

Memory: the function of an expert kernel gets `ascend.self_managed_ub`, so
planning gives it the UB that AscendC keeps for the temporaries of its own
calls when it makes none of them (tile-ascend-check-addresses unmarks it
otherwise): the 910b's whole 192 KiB, as tilelang-ascend's kernels have it.

Synchronization (`auto-sync`): a kernel with scopes, or with flags or
barriers of its author (`T.set_flag`, `T.wait_flag`, `T.pipe_barrier`,
`T.barrier_all`), carries the author's synchronization. With auto-sync off
(tilelang-ascend's default) those ops stay where the author wrote them and
the function gets `ascend.author_sync`, so tile-ascend-inject-sync leaves it
alone and tile-ascend-sync-within-ops orders only the steps of each DSL op;
with auto-sync on the flags and barriers within a core are dropped and
tile-ascend-inject-sync places its own (`T.func_attr({"enable_auto_sync": True})`
switches it on for one kernel). Cross-core flags and `T.sync_all`
are kept either way: they say which bytes of GM change hands when, which
the sync pass cannot infer from two programs (it orders them against the
ops of their core like any other op).

Before:

    tile.kernel blocks(%cid) in (%n) threads = 1 {
      %acc = tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
      %s = tile.alloc : memref<32x64xf32, #tile.scope<ub>>
      scf.execute_region {
        tile.gemm ... %acc ...
        tile.copy %acc[...], %ws[...]
        ascend.cross_core_set_flag mode 2, fix, 0
        scf.yield
      } {ascend.core_region = #ascend.core<aic>}
      scf.execute_region {
        ascend.cross_core_wait_flag 0
        tile.copy %ws[...], %s[...]
        scf.yield
      } {ascend.core_region = #ascend.core<aiv>}
    }

After:

    scf.execute_region {
      tile.kernel blocks(%cid) in (%n) threads = 1 {
        %acc = tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
        tile.gemm ... %acc ...
        tile.copy %acc[...], %ws[...]
        ascend.cross_core_set_flag mode 2, fix, 0
      }
      scf.yield
    } {ascend.core_region = #ascend.core<aic>}
    scf.execute_region {
      tile.kernel blocks(%cid) in (%n) threads = 1 {
        %s = tile.alloc : memref<32x64xf32, #tile.scope<ub>>
        ascend.cross_core_wait_flag 0
        tile.copy %ws[...], %s[...]
      }
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from tilec.dialects import ascend
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.analysis.core_sides import core_copy, is_pure
from tilec.passes.registry import Pass, emit_error, option, register_pass
from tilec.targets.ascend import attributes as ascend_attr

INTRA_CORE_SYNC = frozenset({"ascend.set_flag", "ascend.wait_flag", "ascend.pipe_barrier"})
"""The author's ops that order pipes of one core; auto-sync replaces them."""
KEPT_OUTSIDE = frozenset({*INTRA_CORE_SYNC, "ascend.cross_core_set_flag",
                          "ascend.cross_core_wait_flag", "ascend.sync_all", "tile.alloc"})
"""What may sit outside the scopes of a mix kernel: it runs on both kinds of core."""


def scopes_of(kernel: ir.Operation) -> list[ir.Operation]:
    """The marked scope regions directly in the body of `kernel`."""
    return [op.operation for op in kernel.regions[0].blocks[0].operations
            if op.operation.name == "scf.execute_region"
            and ascend_attr.CORE_REGION in op.operation.attributes]


def _core(scope: ir.Operation) -> str:
    text = str(scope.attributes[ascend_attr.CORE_REGION])
    return "aic" if "aic" in text else "aiv"


def _inline(scope: ir.Operation) -> None:
    """Moves the scope's ops (not its yield) in front of it and erases it."""
    body = scope.regions[0].blocks[0]
    for inner in [o.operation for o in body.operations][:-1]:
        inner.move_before(scope)
    scope.erase()


def _drop_unused(block: ir.Block) -> None:
    """Erases allocations and scalar code of `block` whose results nothing uses
    (the other core's), until none is left."""
    changed = True
    while changed:
        changed = False
        for op in reversed([o.operation for o in block.operations]):
            if not op.results or op.regions or any(list(r.uses) for r in op.results):
                continue
            if op.name in ("tile.alloc", "ascend.sub_block_idx") or is_pure(op):
                op.erase()
                changed = True


def _vid_as_sub_block(kernel: ir.Operation) -> None:
    """The kernel's `vid` grid dim (`ascend.vid_dim`) becomes the AIV's sub-block
    index: both AIVs of an AI core run the block, not a grid dim of 2 (and 0 on
    the AIC, as `GetSubBlockIdx()` gives there)."""
    dim = ascend_attr.integer(kernel, ascend_attr.VID)
    if dim is None:
        return
    del kernel.attributes[ascend_attr.VID]
    body = kernel.regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(body), kernel.location:
        sub_block = ascend.sub_block_idx(ir.IndexType.get())
    body.arguments[dim].replace_all_uses_with(sub_block)
    with ir.InsertionPoint(kernel), kernel.location:
        kernel.operands[dim] = arith.constant(ir.IndexType.get(), 1)


def _check_outside(kernel: ir.Operation) -> None:
    """Outside the scopes of a mix kernel only what both cores run may appear."""
    for op in kernel.regions[0].blocks[0].operations:
        op = op.operation
        if (op.name in KEPT_OUTSIDE or is_pure(op) or op.name == "tile.yield"
                or (op.name == "scf.execute_region" and ascend_attr.CORE_REGION in op.attributes)):
            continue
        raise emit_error(op, f"tile-ascend-split-scopes: '{op.name}' is outside every T.Scope "
                             f"of a kernel with cube and vector scopes; put it in "
                             f'T.Scope("C") or T.Scope("V")')


def _split(kernel: ir.Operation) -> None:
    """One marked region per kind of core around a copy of `kernel` with that
    kind's scopes."""
    _check_outside(kernel)
    for core in ("aic", "aiv"):
        clone = core_copy(kernel, core)
        for scope in scopes_of(clone):
            if _core(scope) == core:
                _inline(scope)
            else:
                scope.erase()
        _vid_as_sub_block(clone)
        _drop_unused(clone.regions[0].blocks[0])
    kernel.erase()


VECTOR_WORK = frozenset({"tile.parallel", "tile.reduce"})
"""Tile ops only the vector cores run (element-wise code, reductions)."""


def _check_cube_scope(scope: ir.Operation) -> None:
    """A "C" scope is the cube core's program: it has no vector unit (ASCEND.md, Cores:
    the AIC holds the cube, scalar, MTE and FixPipe units; vector units are the AIVs')."""
    for op in irb.collect(scope, set(VECTOR_WORK)):
        raise emit_error(op, f"tile-ascend-split-scopes: '{op.name}' is vector work in "
                             f'T.Scope("C"), but the cube core has no vector unit; do it in '
                             f'T.Scope("V") on a UB tile (the cube\'s results reach the vector '
                             "cores through GM and a cross-core flag)")


def _check_nesting(func: ir.Operation, kernels: list[ir.Operation]) -> None:
    """Scopes sit directly in a kernel body (the DSL makes them so)."""
    top = [s for k in kernels for s in scopes_of(k)]
    for region in irb.collect(func, "scf.execute_region"):
        if ascend_attr.CORE_REGION in region.attributes and region.parent.name != "func.func" \
                and not any(region == s for s in top):
            raise emit_error(region, "tile-ascend-split-scopes: a T.Scope region must be "
                                     "directly in the body of its T.Kernel")


@register_pass
@dataclass(frozen=True)
class AscendSplitScopesPass(Pass):
    """Turns the T.Scope("C")/T.Scope("V") regions of expert kernels into the
    AIC and AIV regions of a mix kernel, and keeps or drops the author's sync."""

    argument = "tile-ascend-split-scopes"
    anchor = "func.func"
    summary = "Split expert kernels by their T.Scope regions into AIC and AIV sides (mix)"

    auto_sync: bool = option(False, "replace the author's flags and barriers within a core "
                                    "by tilec's own (tilelang-ascend's TL_ASCEND_AUTO_SYNC)")

    def run(self, op: ir.Operation) -> None:
        kernels = [k for k in irb.collect(op, "tile.kernel")
                   if k.parent.name == "func.func"]
        _check_nesting(op, kernels)
        scoped = [k for k in kernels if scopes_of(k)]
        for scope in [s for k in scoped if ascend_attr.COMBINE not in k.attributes
                      for s in scopes_of(k) if _core(s) == "aic"]:
            _check_cube_scope(scope)  # an author's, not tile-ascend-combine-cores'
        authored = bool(irb.collect(op, set(INTRA_CORE_SYNC)))
        # the scopes of tile-ascend-combine-cores are tilec's, not an author's
        combined = all(ascend_attr.COMBINE in k.attributes for k in scoped)
        with op.context, op.location:
            for kernel in scoped:
                if any(_core(s) == "aiv" for s in scopes_of(kernel)):
                    if len(kernels) > 1:
                        raise emit_error(kernel, "tile-ascend-split-scopes: a kernel with "
                                                 "vector scopes must be the only T.Kernel of "
                                                 "its function")
                    _split(kernel)
                else:
                    for scope in scopes_of(kernel):
                        _inline(scope)
                    _vid_as_sub_block(kernel)
            if scoped:  # their author places the tiles (T.alloc_ub, T.annotate_address)
                op.attributes[ascend_attr.SELF_MANAGED_UB] = ir.UnitAttr.get()
            if not authored and combined:
                return  # tilec synchronizes it
            if self.auto_sync or ascend_attr.AUTO_SYNC in op.attributes:
                for flag in irb.collect(op, set(INTRA_CORE_SYNC)):  # the split copied them
                    flag.erase()
            else:
                op.attributes[ascend_attr.AUTHOR_SYNC] = ir.UnitAttr.get()
