"""`T.Kernel`: the launch of a grid of blocks, as a `with` block."""

from __future__ import annotations

import math
from collections.abc import Iterator

from mlir import ir
from mlir.dialects import arith

from tilec.diagnostics import Diagnostic
from tilec.dialects import tile
from tilec.targets.ascend.attributes import AIV_SPLIT, COMBINE, CORE_REGION, VID

from . import builder, semantic
from .ascend_first_reads import check_first_reads
from .builder import OpenRegion, RegionKind
from .dtypes import index
from .errors import DSLError
from .source import at, dsl_api, site
from .statements import Statement
from .values import Scalar

VID_DIM = 0
"""The grid dim of a `T.Kernel(n, is_npu=True) as (cid, vid)` that is `vid` (the first,
which varies fastest: the two AIVs of an AI core take neighbouring blocks)."""


_CUBE = frozenset({tile.Scope.l1, tile.Scope.l0a, tile.Scope.l0b, tile.Scope.l0c})
"""The scopes of the cube core's tiles (T.alloc_L1/L0A/L0B/L0C)."""


class Kernel(Statement):
    """`with T.Kernel(gx, gy, threads=128) as (bx, by):` runs its body once per block.

    One to three grid sizes (Python ints or integer symbolic values, e.g.
    `T.ceildiv(M, 64)`); the body sees the block indices, a single value for
    a 1-D grid and a tuple otherwise. Becomes a `tile.kernel`. Tiles
    allocated in the body belong to it and cannot be used after it.

    tilelang-ascend's launch, `T.Kernel(n, is_npu=True)`, takes one grid size and
    works on every target. With `threads=1` or `2` (its developer mode: the
    compiler splits the vector work between an AI core's two vector cores) the
    body sees the block index `cid` and runs once per block. Without `threads`
    it sees `(cid, vid)`, `vid` being which of the two vector cores (AIVs) runs:
    a body that uses `vid` is a program per AIV, written for its half of the
    block's rows (`A[cid * M + vid * M // 2, ...]`), and runs once per block and
    AIV (a grid of 2 x n, `vid` the dim that varies fastest); a body that does
    not use it (`as (cid, _)`) runs once per block, as in developer mode. Such a
    body may not hand data from one AIV to the other through global memory (a
    located error: that needs expert mode); in an expert kernel (`T.Scope`
    programs) the ascend target makes vid the AIV's sub-block index
    (`ascend.vid_dim`). A body whose cube tiles (T.alloc_L1/L0*) and vector work
    hand data through global memory is read as tilelang-ascend's AUTO_CV_COMBINE
    reads it: the cube's program and the AIVs', each k-th hand-over of a tensor
    ordered by a cross-core flag (tile-ascend-combine-cores; ascend only).
    """

    @dsl_api
    def __init__(self, *grid: object, threads: object = None, is_npu: bool = False):
        self.grid = grid
        self.threads = threads
        self.is_npu = is_npu
        self.loc = site()
        self.region: OpenRegion | None = None
        self.vid: Scalar | None = None
        self.aiv_split = False
        """`threads=2`: the two AIVs of an AI core share each block's vector work."""
        if not isinstance(is_npu, bool):
            raise semantic.error(f"T.Kernel: is_npu must be a Python bool but got {is_npu!r}")

    def _npu_threads(self) -> bool:
        """Checks tilelang-ascend's launch; True when the body sees (cid, vid)."""
        if len(self.grid) != 1:
            raise semantic.error(
                f"T.Kernel(..., is_npu=True) takes one grid size (the AI cores' blocks) but "
                f"got {len(self.grid)}; linearize the grid (`bx = cid // n, by = cid % n`)")
        if self.threads is None:
            return True
        given = self.threads if isinstance(self.threads, tuple | list) else (self.threads,)
        cores = semantic.python_int(given[0], "T.Kernel threads") if len(given) == 1 else None
        if cores not in (1, 2):
            raise semantic.error(
                "T.Kernel(..., is_npu=True): threads is the vector cores per AI core, 1 or 2 "
                f"(or None, for `as (cid, vid)`), but got {self.threads!r}")
        self.aiv_split = cores == 2
        return False

    @dsl_api
    def __enter__(self) -> Scalar | tuple[Scalar, ...]:
        trace = semantic.require_trace("T.Kernel")
        outer = trace.current.enclosing(RegionKind.KERNEL)
        if outer is not None:
            raise semantic.error(
                f"T.Kernel cannot be nested (the enclosing T.Kernel is at line {outer.loc.line})"
            )
        if not 1 <= len(self.grid) <= 3:
            raise semantic.error(f"T.Kernel takes 1 to 3 grid sizes but got {len(self.grid)}")
        per_vid = self.is_npu and self._npu_threads()
        # tilelang-ascend's threads count vector cores; the block's threads are tilec's
        # default then, which only the cuda target reads
        threads = 128 if self.is_npu or self.threads is None else self.threads
        given = threads if isinstance(threads, tuple | list) else (threads,)
        dims = [semantic.python_int(t, "T.Kernel threads") for t in given]
        if not 1 <= len(dims) <= 3 or any(t is None or t < 1 for t in dims):
            raise semantic.error(
                "T.Kernel: threads must be a positive Python int or a tuple of 1 to 3 of them "
                f"(x, y, z) but got {self.threads!r}"
            )
        grid = (2, *self.grid) if per_vid else self.grid
        sizes = [semantic.index_value(g, f"grid size {i} of T.Kernel") for i, g in enumerate(grid)]
        self.region, indices = builder.open_kernel(sizes, math.prod(dims))
        if len(dims) > 1:
            # the block's threads are numbered x fastest; T.get_thread_binding(d) reads them
            self.region.block.owner.attributes[semantic.THREAD_DIMS] = \
                ir.DenseI64ArrayAttr.get(dims)
        blocks = tuple(Scalar(i, index, self.region) for i in indices)
        kernel = self.region.block.owner
        if per_vid:
            # which grid dim is vid: tile-ascend-split-scopes makes it the AIV's
            # sub-block index in an expert kernel (__exit__ drops it otherwise)
            kernel.attributes[VID] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), VID_DIM)
            self.vid = blocks[VID_DIM]
            return blocks[1], blocks[VID_DIM]
        if self.aiv_split:
            kernel.attributes[AIV_SPLIT] = ir.UnitAttr.get()
        return blocks[0] if len(blocks) == 1 else blocks

    def close(self, region: OpenRegion) -> None:
        if self.vid is not None:
            _once_per_block_unless_used(region, VID_DIM)
        kernel = region.block.owner
        if self.is_npu and not any(CORE_REGION in op.attributes for op in _nested(kernel)):
            check_first_reads(kernel.operation)
        semantic.close_kernel(region)


def _once_per_block_unless_used(region: OpenRegion, dim: int) -> None:
    """A body that does not read `vid` is no program per AIV: its grid dim `dim` is 1.
    One that does may not hand data from one AIV to the other (see _check_no_exchange)
    unless it is expert-mode T.Scope programs, which run at once on the AIC and both
    AIVs, their flags ordering what they hand over; a body whose cube work and
    vector work hand data through global memory is marked `ascend.combine_cores`
    (tilelang-ascend's AUTO_CV_COMBINE: tile-ascend-combine-cores splits it into
    such programs). Only in those two does `vid` stay marked (on ascend it becomes
    the AIV's sub-block index)."""
    kernel = region.block.owner
    expert = any(CORE_REGION in op.attributes for op in _nested(kernel))
    used = bool(list(region.block.arguments[dim].uses))
    combined = used and not expert and _check_no_exchange(kernel, region.block.arguments[dim])
    if combined:
        kernel.attributes[COMBINE] = ir.UnitAttr.get()
    if not (used and (expert or combined)):
        del kernel.attributes[VID]
    if used:
        return
    with region.trace.context, ir.InsertionPoint(kernel), kernel.location:
        kernel.operands[dim] = arith.constant(ir.IndexType.get(), 1)


def _nested(op: ir.Operation) -> Iterator[ir.Operation]:
    for inner_region in op.regions:
        for block in inner_region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from _nested(inner.operation)


def _global_accesses(op: ir.Operation) -> list[tuple[ir.Value, str, list[ir.Value]]]:
    """The global tensors `op` reads ("read") or writes ("write"), with its index operands."""
    def is_global(value: ir.Value) -> bool:
        return isinstance(value.type, ir.MemRefType) and \
            ir.MemRefType(value.type).memory_space is None

    operands = list(op.operands)
    if op.name == "tile.copy":
        tensors = [x for x in operands if isinstance(x.type, ir.MemRefType)]
        src, dst = tensors[0], tensors[1]
        indices = [x for x in operands if x not in (src, dst)]
        return [(v, kind, indices) for v, kind in ((src, "read"), (dst, "write"))
                if is_global(v)]
    if op.name in ("memref.load", "memref.store"):
        at = 1 if op.name == "memref.store" else 0
        kind = "write" if at else "read"
        return [(operands[at], kind, operands[at + 1:])] if is_global(operands[at]) else []
    return []


def _check_no_exchange(kernel: ir.Operation, vid: ir.Value) -> bool:
    """A body run once per AIV (`as (cid, vid)`) that writes a global tensor at indices
    computed from vid and reads it at indices that are not (or the other way round)
    hands data between the AIVs, which run at once on the NPU: no sequential program,
    and no order of tilec's runs per AIV, has that meaning. It is an error at the
    access that crosses, unless one of the two accesses is the cube's (a copy to or
    from an L1/L0 tile): then the body is two programs, the cube's and the AIVs', as
    tilelang-ascend's AUTO_CV_COMBINE reads it (its sparse_flash_attn_developer, whose
    AIVs fill halves of a workspace the cube reads whole): True."""
    depends: dict[ir.Value, bool] = {vid: True}

    def on_vid(value: ir.Value) -> bool:
        if value not in depends:
            depends[value] = False
            owner = value.owner
            if isinstance(owner, ir.Operation | ir.OpView):
                depends[value] = any(on_vid(x) for x in owner.operands)
        return depends[value]

    combined = False
    seen: dict[ir.Value, dict[tuple[str, bool], list[ir.Operation]]] = {}
    for op in _nested(kernel):
        for tensor, kind, indices in _global_accesses(op):
            per_aiv = any(on_vid(x) for x in indices)
            accesses = seen.setdefault(tensor, {})
            accesses.setdefault((kind, per_aiv), []).append(op)
            other = "read" if kind == "write" else "write"
            for crossing in accesses.get((other, not per_aiv), []):
                read, write = (op, crossing) if kind == "read" else (crossing, op)
                if _on_cube(read) == _on_cube(write):
                    _exchange_error(read, write, per_aiv == (kind == "read"))
                combined = True
    return combined


def _on_cube(op: ir.Operation) -> bool:
    """Whether `op` is a copy of a global tensor to or from a cube tile (L1, L0A/B/C)."""
    return op.name == "tile.copy" and any(
        isinstance(x.type, ir.MemRefType) and tile.scope_of(ir.MemRefType(x.type)) in _CUBE
        for x in op.operands)


def _exchange_error(read: ir.Operation, write: ir.Operation, read_per_aiv: bool) -> None:
    how = ("reads at indices computed from vid what the body writes at indices that are "
           "not" if read_per_aiv else
           "reads whole what each AIV writes its part of (at indices computed from vid)")
    message = (
        f"a T.Kernel body run once per AIV (`as (cid, vid)`) {how}: it hands data between "
        "the AIVs, which tilec's per-AIV runs cannot order; write it as expert-mode "
        'programs (`with T.Scope("C")` / `T.Scope("V")` with cross-core flags), or without '
        "vid (`as cid` with threads=2: tilec splits the vector work between the AIVs)")
    note = Diagnostic.from_location("note", "written here", write.location)
    first = Diagnostic.from_location("error", message, read.location)
    raise DSLError([Diagnostic(first.severity, first.message, first.file, first.line,
                               first.col, (note,))])


@dsl_api
def get_thread_binding(dim: int = 0) -> Scalar:
    """TileLang's thread index along `dim` (`threadIdx.x`; 0 along y and z).

    The kernel then has per-thread (SIMT) code, run once per thread as in CUDA:
    local tiles (`T.alloc_local`, `T.alloc_var`) are per thread, other tiles
    per block, `T.sync_threads` separates what every thread does before it
    from what follows, and a tile op that does not depend on the thread index
    is run once by the block (see `tilec.language.threads`).
    """
    return semantic.thread_binding(dim)


class thread_binding:
    """`for tx in T.thread_binding(128, thread="threadIdx.x"):` TVM's loop bound to the
    threads: its body runs once per thread of the block, with `tx` the thread index
    (see get_thread_binding). The extent must be the block's threads."""

    @dsl_api
    def __init__(self, start: object, stop: object = None, thread: str = "threadIdx.x"):
        self.extent = start if stop is None else None
        if stop is not None:
            low = semantic.python_int(start, "T.thread_binding: start")
            if low != 0:
                raise semantic.error(f"T.thread_binding: start must be 0 but got {start!r}")
            self.extent = stop
        self.thread = thread
        self.loc = site()

    def __iter__(self) -> Iterator[Scalar]:
        with at(self.loc):
            what = "T.thread_binding"
            if self.thread != "threadIdx.x":
                raise semantic.error(
                    f'{what}: only thread="threadIdx.x" is supported (tilec blocks have one '
                    f"thread dim; the block index is `with T.Kernel(...) as bx`) but got "
                    f"{self.thread!r}"
                )
            threads = semantic.thread_extent(0)
            if semantic.python_int(self.extent, f"{what}: extent") != threads:
                raise semantic.error(
                    f"{what}: the extent must be the {threads} threads of the block but got "
                    f"{self.extent!r}"
                )
            index = semantic.thread_binding(0)
        yield index


@dsl_api
def get_thread_bindings() -> list[Scalar]:
    """The thread indices along x, y, z (see get_thread_binding)."""
    return [semantic.thread_binding(d) for d in range(3)]


@dsl_api
def get_thread_extent(dim: int = 0) -> int:
    """The threads of the enclosing T.Kernel along x (1 along y and z)."""
    return semantic.thread_extent(dim)


@dsl_api
def get_block_binding(dim: int = 0) -> Scalar:
    """The index of the block along `dim`, as `with T.Kernel(...) as (bx, by)` binds it."""
    return semantic.block_binding(dim)


@dsl_api
def get_block_bindings() -> list[Scalar]:
    """The block indices along every dim of the grid."""
    trace = semantic.require_kernel("T.get_block_bindings")
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_kernel found it"
    return [semantic.block_binding(d) for d in range(semantic.grid_rank(kernel))]
