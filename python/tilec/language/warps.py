"""Warp-level exchanges in per-thread code: TileLang's `T.shfl_*`, `T.warp_reduce_*`,
`T.get_lane_idx` and `T.get_warp_idx`.

A shuffle reads another thread's value at the same point of the program.
Per-thread code runs as loops over the threads (`threads`), so a shuffle is
an exchange through a `(threads,)` shared tile between two barriers: each
thread writes its value, every thread reads the one it asks for, and the
second barrier keeps a later exchange through the same tile (in a loop)
from overwriting it too early. As in CUDA, every thread of the block must
reach the shuffle alike (not inside an `if` or loop on the thread index),
and a lane outside the shuffle's `width` segment, or past the block, reads
its own value. `mask` is accepted and ignored: all threads take part.
"""

from __future__ import annotations

from collections.abc import Callable

from . import builder, semantic
from . import values as v
from .dtypes import float32, index, int64
from .source import dsl_api

# Threads per warp (NVIDIA's; TileLang's default width).
WARP_SIZE = 32


def _lane_count(width: object, what: str) -> int:
    lanes = semantic.python_int(width, f"{what}: width")
    if lanes is None or lanes < 1 or lanes & (lanes - 1):
        raise semantic.error(f"{what}: width must be a power of 2 but got {width!r}")
    return lanes


def _publish(value: object, what: str) -> tuple[v.Scalar, v.Buffer, v.Scalar]:
    """Each thread writes `value` into a new `(threads,)` shared tile, then a barrier.

    Returns the value (as the tile's dtype: an index is kept as an int64, since
    targets keep no index tiles), the tile and the thread index.
    """
    semantic.require_tile_context(what)
    own = semantic.operand(value, what)
    if not isinstance(own, v.Scalar):
        dtype = float32 if isinstance(own, float) else index
        own = semantic.literal(own, dtype, what)
    kept = semantic.convert(own, int64 if own.dtype == index else own.dtype)
    tx = semantic.thread_binding(0)
    slots = semantic.alloc((semantic.thread_extent(0),), kept.dtype, "shared", what)
    semantic.store(slots, tx, kept)
    builder.barrier({"exchange": what})
    return kept, slots, tx


def _shuffle(
    what: str, value: object, lane_of: Callable[[object], object], width: object
) -> v.Scalar:
    """The value of lane `lane_of(lane)` of this thread's segment of `width` lanes; its
    own value where that lane is outside the segment or the block."""
    lanes = _lane_count(width, what)
    original = semantic.operand(value, what)
    kept, slots, tx = _publish(value, what)
    lane = semantic.binary("%", tx, lanes)
    target = lane_of(lane)
    source = semantic.binary("+", semantic.binary("-", tx, lane), target)
    valid = semantic.compare(">=", target, 0)
    for condition in (
        semantic.compare("<", target, lanes),
        semantic.compare("<", source, semantic.thread_extent(0)),
    ):
        valid = semantic.binary("&", valid, condition)
    # The read stays inside the tile; `valid` picks the own value otherwise.
    read = semantic.subscript(slots, semantic.select(valid, source, tx))
    result = semantic.select(valid, read, kept)
    builder.barrier({"exchange": what})
    dtype = original.dtype if isinstance(original, v.Scalar) else kept.dtype
    return semantic.convert(semantic.operand(result, what), dtype)


@dsl_api
def shfl_xor(
    value: object, delta: object, width: object = WARP_SIZE, mask: object = None
) -> v.Scalar:
    """The value of the lane `lane ^ delta` of this thread's segment of `width` lanes."""
    return _shuffle("T.shfl_xor", value, lambda lane: semantic.binary("^", lane, delta), width)


@dsl_api
def shfl_down(
    value: object, delta: object, width: object = WARP_SIZE, mask: object = None
) -> v.Scalar:
    """The value of the lane `delta` above this one (its own past the segment)."""
    return _shuffle("T.shfl_down", value, lambda lane: semantic.binary("+", lane, delta), width)


@dsl_api
def shfl_up(
    value: object, delta: object, width: object = WARP_SIZE, mask: object = None
) -> v.Scalar:
    """The value of the lane `delta` below this one (its own before the segment)."""
    return _shuffle("T.shfl_up", value, lambda lane: semantic.binary("-", lane, delta), width)


@dsl_api
def shfl_sync(
    value: object, src_lane: object, width: object = WARP_SIZE, mask: object = None
) -> v.Scalar:
    """The value of lane `src_lane % width` of this thread's segment (a broadcast)."""
    lanes = _lane_count(width, "T.shfl_sync")
    return _shuffle("T.shfl_sync", value, lambda _: semantic.binary("%", src_lane, lanes), width)


def _warp_reduce(op: str, value: object, what: str) -> v.Scalar:
    """Every lane gets the `op` of the values of its warp's lanes."""
    original = semantic.operand(value, what)
    kept, slots, tx = _publish(value, what)
    first = semantic.binary("-", tx, semantic.binary("%", tx, WARP_SIZE))
    last = semantic.binary("min", semantic.binary("+", first, WARP_SIZE), semantic.thread_extent(0))
    total = semantic.alloc_var(kept.dtype, (), "local.var", None)
    semantic.store_var(total, semantic.reducer_identity(op, kept.dtype, what))
    bounds = [semantic.index_value(x, what) for x in (first, last, 1)]
    loop, lane = builder.open_serial(*bounds, {})
    element = semantic.subscript(slots, v.Scalar(lane, index, loop))
    semantic.store_var(total, semantic.binary(semantic.REDUCER_OPS[op], total, element))
    semantic.close_region(loop)
    result = semantic.var_value(total)
    builder.barrier({"exchange": what})
    dtype = original.dtype if isinstance(original, v.Scalar) else kept.dtype
    return semantic.convert(result, dtype)


@dsl_api
def warp_reduce_sum(value: object) -> v.Scalar:
    """The sum of `value` over the lanes of this thread's warp, on every lane."""
    return _warp_reduce("sum", value, "T.warp_reduce_sum")


@dsl_api
def warp_reduce_max(value: object) -> v.Scalar:
    """The maximum of `value` over the lanes of this thread's warp, on every lane."""
    return _warp_reduce("max", value, "T.warp_reduce_max")


@dsl_api
def warp_reduce_min(value: object) -> v.Scalar:
    """The minimum of `value` over the lanes of this thread's warp, on every lane."""
    return _warp_reduce("min", value, "T.warp_reduce_min")


@dsl_api
def get_lane_idx(warp_size: object = WARP_SIZE) -> v.Scalar | int:
    """This thread's lane in its warp: the thread index modulo `warp_size`."""
    lanes = _lane_count(warp_size, "T.get_lane_idx")
    return semantic.binary("%", semantic.thread_binding(0), lanes)


@dsl_api
def get_warp_idx(warp_size: object = WARP_SIZE) -> v.Scalar | int:
    """This thread's warp in the block: the thread index divided by `warp_size`."""
    lanes = _lane_count(warp_size, "T.get_warp_idx")
    return semantic.binary("//", semantic.thread_binding(0), lanes)


get_warp_idx_sync = get_warp_idx
