"""tile-cuda-infer-layouts: decide, from its uses, where each tile of a cuda kernel lives.

A `fragment` or `local` tile stays in registers when every use lets each
thread work on the elements it holds: `tile.fill`/`tile.clear`, a
`tile.copy` of the whole tile from offset 0, the accumulator of a
`tile.gemm`, the source of a `tile.atomic_add`, and `memref.load`/`store`
inside a `tile.parallel` over the tile's shape at exactly the loop
indices. Any other use (an operand of a gemm, a reduction, a scalar access
outside a parallel loop, a shifted index) needs elements of other threads,
so the tile goes to workgroup memory. Register tiles used by one op
together share a layout: the `mma` accumulator layout when one of them is
the accumulator of a gemm that runs on the tensor cores and all have its
shape (`wgmma` for a gemm that runs on wgmma, on sm_90a, `wgmma_plan.py`),
else `cyclic`. A register tile of more than `MAX_REGISTER_BYTES` per
thread would spill, so it goes to workgroup memory too.

The decision is the attribute `tile.cuda_placement` on each `tile.alloc`
that the conversion then follows:

    %acc = tile.alloc {tile.cuda_placement = "mma:2x2"} : memref<128x128xf32, #tile.scope<fragment>>
    %row = tile.alloc {tile.cuda_placement = "shared"} : memref<64xf32, #tile.scope<fragment>>

The layouts themselves, and the `Tile` view every lowering reads tiles through, are
`layouts.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_semantics import copy_sizes
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    PLACEMENT,
    PRIVATE,
    SWIZZLE,
    WGMMA_SWIZZLE,
    Swizzle,
    check_policies,
    gemm_shape_of,
    gemm_wgmma,
    kernel_threads,
    mma_warps,
    on_chip_scope,
    shape_of,
    tile_accessed,
)
from tilec.passes.conversion.tile_to_cuda.analysis.wgmma_plan import (
    panel_bytes,
)
from tilec.passes.registry import Pass, register_pass
from tilec.targets import target_of
from tilec.targets.cuda import CudaTarget

MAX_REGISTER_BYTES = 512
_REGISTER_SCOPES = {tile.Scope.fragment, tile.Scope.local}


@dataclass
class _Candidate:
    alloc: ir.Operation
    shape: tuple[int, ...]
    owner_wise: bool = True
    gemm_layout: str | None = None


def _at_loop_indices(use: ir.Operation, indices: list[ir.Value], shape: tuple[int, ...]) -> bool:
    parallel = irb.enclosing(use, {"tile.parallel", "tile.kernel"})
    if parallel is None or parallel.name != "tile.parallel":
        return False
    extents = tuple(ir.DenseI64ArrayAttr(parallel.attributes["extents"]))
    arguments = list(parallel.regions[0].blocks[0].arguments)
    return extents == shape and len(indices) == len(arguments) and all(
        a == b for a, b in zip(indices, arguments, strict=True)
    )


def _whole_copy(op: ir.Operation, number: int) -> bool:
    """Whether tile.copy `op` covers its operand `number` whole from offset 0."""
    src_type = ir.MemRefType(op.operands[0].type)
    dst_at = 1 + src_type.rank
    dst_type = ir.MemRefType(op.operands[dst_at].type)
    if number == 0:
        offsets = list(op.operands)[1:dst_at]
        type_ = src_type
    else:
        offsets = list(op.operands)[dst_at + 1 : dst_at + 1 + dst_type.rank]
        type_ = dst_type
    sizes = copy_sizes(op, src_type, dst_type)
    return math.prod(sizes) == math.prod(type_.shape) and all(
        irb.constant_int(o) == 0 for o in offsets
    )


def _gemm_layout(op: ir.Operation, threads: int, has_wgmma: bool) -> str | None:
    """The register layout of a gemm's accumulator, None without tensor cores."""
    grid = gemm_wgmma(op, has_wgmma)
    if grid is not None:
        return grid.text
    warps = mma_warps(gemm_shape_of(op), threads)
    return None if warps is None else f"mma:{warps[0]}x{warps[1]}"


def _classify(candidate: _Candidate, value: ir.Value, groups: _Groups, threads: int,
              has_wgmma: bool) -> None:
    for use in value.uses:
        op = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        number = use.operand_number
        if op.name in ("tile.fill", "tile.clear") or (op.name == "tile.atomic_add" and number == 0):
            continue
        if op.name == "tile.copy" and _whole_copy(op, number):
            groups.link(op, candidate)
            continue
        if op.name == "tile.gemm" and number == 2:
            candidate.gemm_layout = candidate.gemm_layout or _gemm_layout(op, threads, has_wgmma)
            continue
        indices = list(op.operands)[1:]
        if op.name == "memref.load" and _at_loop_indices(op, indices, candidate.shape):
            groups.link(irb.enclosing(op, {"tile.parallel"}), candidate)
            continue
        if (
            op.name == "memref.store"
            and number == 1
            and _at_loop_indices(op, list(op.operands)[2:], candidate.shape)
        ):
            groups.link(irb.enclosing(op, {"tile.parallel"}), candidate)
            continue
        candidate.owner_wise = False


class _Groups:
    """Register tiles that one op touches together must share a layout."""

    def __init__(self) -> None:
        self.by_op: dict[ir.Operation, list[_Candidate]] = {}

    def link(self, op: ir.Operation, candidate: _Candidate) -> None:
        self.by_op.setdefault(op, []).append(candidate)

    def components(self, candidates: list[_Candidate]) -> list[list[_Candidate]]:
        parent = {id(c): id(c) for c in candidates}

        def root(key: int) -> int:
            while parent[key] != key:
                key = parent[key]
            return key

        for members in self.by_op.values():
            kept = [m for m in members if m.owner_wise]
            for other in kept[1:]:
                parent[root(id(other))] = root(id(kept[0]))
        found: dict[int, list[_Candidate]] = {}
        for c in candidates:
            found.setdefault(root(id(c)), []).append(c)
        return list(found.values())


def infer_layouts(func: ir.Operation, has_wgmma: bool = False) -> None:
    """Sets `tile.cuda_placement` on every on-chip tile.alloc of `func`;
    `has_wgmma`: gemms may run on wgmma (sm_90a)."""
    groups = _Groups()
    candidates: list[_Candidate] = []
    for alloc in irb.collect(func, "tile.alloc"):
        value = alloc.results[0]
        if _placement(alloc) == PRIVATE:
            continue
        scope = on_chip_scope(ir.MemRefType(value.type))
        if scope not in _REGISTER_SCOPES or irb.enclosing(alloc, {"tile.kernel"}) is None:
            alloc.attributes[PLACEMENT] = ir.StringAttr.get("shared")
            continue
        candidate = _Candidate(alloc, shape_of(value))
        threads = kernel_threads(alloc)
        _classify(candidate, value, groups, threads, has_wgmma)
        element = ir.MemRefType(value.type).element_type
        per_thread = math.ceil(math.prod(candidate.shape) / threads) * irb.bit_width(element) // 8
        if per_thread > MAX_REGISTER_BYTES:
            candidate.owner_wise = False
        candidates.append(candidate)
    for group in groups.components([c for c in candidates if c.owner_wise]):
        gemm_layouts = {c.gemm_layout for c in group if c.gemm_layout is not None}
        shapes = {c.shape for c in group}
        layout = "cyclic"
        if len(gemm_layouts) == 1 and len(shapes) == 1:
            layout = gemm_layouts.pop()
        for c in group:
            c.alloc.attributes[PLACEMENT] = ir.StringAttr.get(layout)
    for c in candidates:
        if not c.owner_wise:
            c.alloc.attributes[PLACEMENT] = ir.StringAttr.get("shared")
    for alloc in irb.collect(func, "tile.alloc"):
        if _placement(alloc) != "shared":
            continue
        swizzle = _swizzle(alloc, has_wgmma)
        if swizzle == "mma":
            alloc.attributes[SWIZZLE] = ir.UnitAttr.get()
        elif swizzle is not None:
            alloc.attributes[WGMMA_SWIZZLE] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), swizzle
            )


def _placement(alloc: ir.Operation) -> str | None:
    if PLACEMENT not in alloc.attributes:
        return None
    return ir.StringAttr(alloc.attributes[PLACEMENT]).value


# Uses of a shared tile that reach its elements only through `Tile`.
def _swizzle(alloc: ir.Operation, has_wgmma: bool) -> str | int | None:
    """How a shared tile that only `Tile` accesses is stored: the panel bytes
    when it feeds a wgmma gemm, "mma" when it feeds an mma.sync one, None
    (plain row-major) otherwise."""
    value = alloc.results[0]
    type_ = ir.MemRefType(value.type)
    if irb.enclosing(alloc, {"tile.kernel"}) is None or not tile_accessed(value):
        return None
    gemms = [use.owner.operation if hasattr(use.owner, "operation") else use.owner
             for use in value.uses]
    gemms = [op for op in gemms if op.name == "tile.gemm"]
    if any(gemm_wgmma(op, has_wgmma) is not None for op in gemms):
        return panel_bytes(tuple(type_.shape), irb.bit_width(type_.element_type))
    if Swizzle.of(tuple(type_.shape), type_.element_type) is None:
        return None
    if any(mma_warps(gemm_shape_of(op), kernel_threads(op)) is not None for op in gemms):
        return "mma"
    return None


@register_pass
@dataclass(frozen=True)
class CudaInferLayoutsPass(Pass):
    """Places every tile of a cuda kernel in registers (with a layout) or workgroup memory."""

    argument = "tile-cuda-infer-layouts"
    anchor = "func.func"
    summary = "Place each tile of a cuda kernel in registers (with a layout) or shared memory"

    target: str = target_option(CudaTarget)

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            check_policies(op)
            infer_layouts(op, target_of(CudaTarget, self.target).has_wgmma)

