"""The threads and blocks of a T.Kernel: their indices, extents and barriers.

A kernel that reads its thread index has per-thread (SIMT) code; the index is
a placeholder argument while the kernel is traced, and its body becomes loops
over the threads when it closes (see `tilec.language.threads`).
"""

from __future__ import annotations

import math
from weakref import WeakKeyDictionary

from mlir import ir

from .. import builder
from .. import values as v
from ..builder import OpenRegion, RegionKind
from ..dtypes import index
from ..source import site
from ..threads import ARRIVE_COUNT
from ..threads import distribute as distribute_threads
from .checks import error, python_int
from .placement import close_region, require_kernel, require_tile_context
from .scalars import binary, literal


def _thread_dim(dim: object, what: str) -> int:
    axis = python_int(dim, f"{what}: dim")
    if axis is None or not 0 <= axis < 3:
        raise error(f"{what}: dim must be 0, 1 or 2 (x, y, z) but got {dim!r}")
    return axis


# The thread index of each kernel that has per-thread code: a placeholder argument
# of the kernel's body while it is traced, replaced when it closes (`threads`).
_thread_index: WeakKeyDictionary[OpenRegion, v.Scalar] = WeakKeyDictionary()


def thread_binding(dim: object) -> v.Scalar:
    """TileLang's thread index along `dim` (0 along a dim of one thread).

    With it the kernel has per-thread (SIMT) code: when the kernel closes, its
    body becomes loops over the threads (see `threads`). A block of
    `threads=(x, y, z)` numbers its threads as CUDA does, x fastest: the index
    along y of the linear thread `t` is `t // x % y`.
    """
    what = "T.get_thread_binding"
    trace = require_kernel(what)
    axis = _thread_dim(dim, what)
    if thread_extent(axis) == 1:
        return literal(0, index, what)
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_kernel found it"
    if kernel not in _thread_index:
        with trace.context:
            argument = kernel.block.add_argument(ir.IndexType.get(), site().mlir(trace.context))
        _thread_index[kernel] = v.Scalar(argument, index, kernel)
    linear = _thread_index[kernel]
    dims = thread_dims(kernel)
    if len(dims) == 1:
        return linear
    below = math.prod(dims[:axis])
    along = binary("//", linear, below) if below > 1 else linear
    return binary("%", along, dims[axis]) if axis < len(dims) - 1 else along


def thread_dims(kernel: OpenRegion) -> list[int]:
    """The threads of a T.Kernel along x, y and z as written (`threads=(x, y)`)."""
    op = kernel.block.owner
    if THREAD_DIMS in op.attributes:
        return list(ir.DenseI64ArrayAttr(op.attributes[THREAD_DIMS]))
    return [ir.IntegerAttr(op.attributes["threads"]).value]


THREAD_DIMS = "tile.thread_dims"
"""The attribute of a tile.kernel whose threads are 2-D or 3-D (`threads=(x, y)`)."""


def close_kernel(region: OpenRegion) -> None:
    """Ends a T.Kernel; per-thread code in it becomes loops over its threads."""
    close_region(region)
    thread = _thread_index.pop(region, None)
    if thread is None:
        return
    kernel = region.block.owner
    threads = ir.IntegerAttr(kernel.attributes["threads"]).value
    with region.trace.context:
        distribute_threads(kernel.operation, thread.value, threads, region.loc)


def thread_extent(dim: object) -> int:
    """The `threads` of the enclosing T.Kernel along x; 1 along y and z."""
    what = "T.get_thread_extent"
    trace = require_kernel(what)
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_kernel found it"
    axis = _thread_dim(dim, what)
    dims = thread_dims(kernel)
    return dims[axis] if axis < len(dims) else 1


def block_binding(dim: object) -> v.Scalar:
    """The block index of the enclosing T.Kernel along `dim`, as `as (bx, by)` gives it."""
    what = "T.get_block_binding"
    trace = require_kernel(what)
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_kernel found it"
    rank = grid_rank(kernel)
    axis = _thread_dim(dim, what)
    if axis >= rank:
        raise error(f"{what}: dim {axis} is past the {rank}-D grid of T.Kernel")
    return v.Scalar(kernel.block.arguments[axis], index, kernel)


def grid_rank(kernel: OpenRegion) -> int:
    """The number of grid dims of a T.Kernel (its body may also hold the thread index)."""
    return len(kernel.block.owner.operands)


def sync_threads(barrier_id: object = None, arrive_count: object = None) -> None:
    """A barrier of the block's threads. TileLang's named barrier (`T.sync_threads(id,
    count)`) is one of the whole block when `count` is every thread; of fewer, it is one
    of the threads 0 .. count - 1, which per-thread code reaches inside `if tx < count:`
    (checked when the kernel closes)."""
    what = "T.sync_threads"
    trace = require_tile_context(what)
    hints: dict[str, builder.Hint] = {}
    if barrier_id is not None or arrive_count is not None:
        kernel = trace.current.enclosing(RegionKind.KERNEL)
        assert kernel is not None, "require_tile_context found the kernel"
        threads = math.prod(thread_dims(kernel))
        count = python_int(arrive_count, f"{what}: arrive_count")
        if arrive_count is not None and count != threads:
            if count is None or not 0 < count < threads or kernel not in _thread_index:
                raise error(
                    f"{what}({barrier_id!r}, {arrive_count!r}): a named barrier of part of "
                    f"the block needs per-thread code (T.get_thread_binding) and a count of "
                    f"1 to {threads - 1} threads, reached inside `if tx < {arrive_count}:`; "
                    "or call T.sync_threads() where every thread of the block reaches it"
                )
            hints[ARRIVE_COUNT] = count
    builder.barrier(hints)
