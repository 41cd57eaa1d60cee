"""TileLang's reducers (T.alloc_reducer, T.reducer_update, T.finalize_reducer).

A reducer is a fragment with a combine op; the op of each reducer is kept
here, keyed by its tile, because the builder records it only as an attribute.
"""

from __future__ import annotations

import math
from weakref import WeakKeyDictionary

from ... import builder
from ... import values as v
from ...dtypes import DType, index
from ..buffers import on_chip
from ..checks import describe, error, format_shape, python_int
from ..placement import check_buffer, require_kernel, require_tile_context
from ..scalars import as_dtype, binary, converted, literal
from .alloc import alloc

# TileLang's reducer combine ops, as the DSL's binary operators.
REDUCER_OPS = {"sum": "+", "max": "max", "min": "min", "bitand": "&", "bitor": "|", "bitxor": "^"}
# The combine op of each T.alloc_reducer tile.
_reducers: WeakKeyDictionary[v.Buffer, str] = WeakKeyDictionary()


def alloc_reducer(shape: object, dtype_name: object, op: object, replication: object) -> v.Buffer:
    """TileLang's reducer: a fragment that T.reducer_update combines into with `op`.

    A target that spreads a fragment over threads keeps partials and combines them in
    T.finalize_reducer; cpu, where one thread runs the block, needs no partials, so the
    reducer is the fragment itself. `replication` (TileLang's legacy form, in which the
    kernel clears the tile and updates it with `r[i] += ...`) is recorded as well.
    """
    what = "T.alloc_reducer"
    if op not in REDUCER_OPS:
        raise error(f"{what}: op must be one of {', '.join(map(repr, REDUCER_OPS))} but got {op!r}")
    dtype = as_dtype(dtype_name, what)
    if op.startswith("bit") and dtype.is_float:
        raise error(f"{what}: the bitwise op {op!r} needs an integer dtype but got {dtype}")
    if replication not in (None, "all", "none"):
        raise error(f"{what}: replication must be 'all', 'none' or None but got {replication!r}")
    reducer = alloc(shape, dtype, "fragment", what)
    hints: dict[str, builder.Hint] = {"reducer": str(op)}
    if replication is not None:
        hints["replication"] = str(replication)
    builder.annotate_buffer(reducer.value, hints)
    _reducers[reducer] = str(op)
    return reducer


def _reducer(x: object, what: str) -> tuple[v.Buffer, str]:
    buffer = x.region.buffer if isinstance(x, v.Element) else x
    if not isinstance(buffer, v.Buffer) or buffer not in _reducers:
        raise error(f"{what} needs a tile from T.alloc_reducer but got {describe(buffer)}")
    check_buffer(buffer)
    return buffer, _reducers[buffer]


def reducer_identity(op: str, dtype: DType, what: str) -> v.Scalar:
    """The value `op` starts from: 0, the lowest or highest value, or all ones."""
    if op in ("sum", "bitor", "bitxor"):
        return literal(0, dtype, what)
    if op == "bitand":
        return literal(dtype.int_range[1] if dtype.is_unsigned else -1, dtype, what)
    if dtype.is_float:
        return literal(-math.inf if op == "max" else math.inf, dtype, what)
    low, high = dtype.int_range
    return literal(low if op == "max" else high, dtype, what)


def reducer_init(reducer_arg: object, init: object) -> None:
    """Starts a reduction: every element of the reducer is `init`, or the identity."""
    what = "T.reducer_init"
    require_tile_context(what)
    reducer, op = _reducer(reducer_arg, what)
    start = reducer_identity(op, reducer.dtype, what) if init is None else init
    builder.fill(reducer.value, converted(start, reducer.dtype, what).value)


def reducer_update(target: object, value: object) -> None:
    """`T.reducer_update(r[i], x)`: combines `x` into element i of the reducer."""
    what = "T.reducer_update"
    require_kernel(what)
    if not isinstance(target, v.Element):
        raise error(f"{what} needs an element of a reducer, r[i], but got {describe(target)}")
    reducer, op = _reducer(target, what)
    combined = binary(REDUCER_OPS[op], target, converted(value, reducer.dtype, what))
    builder.store(
        converted(combined, reducer.dtype, what).value, reducer.value, list(target.region.offsets)
    )


def finalize_reducer(reducer_arg: object, dst_arg: object, batch: object) -> None:
    """Ends a reduction: into `dst`, or (legacy form) in place, where cpu has nothing to do."""
    what = "T.finalize_reducer"
    require_tile_context(what)
    reducer, _ = _reducer(reducer_arg, what)
    count = python_int(batch, f"{what}: batch")
    if count is None or count < 1:
        raise error(f"{what}: batch must be a positive Python int but got {batch!r}")
    if dst_arg is None:
        return
    dst = on_chip(dst_arg, what, "dst")
    if dst.shape != reducer.shape or dst.dtype != reducer.dtype:
        raise error(
            f"{what}: dst ('{dst.name}', {format_shape(dst.shape)} {dst.dtype}) must have the "
            f"shape and dtype of the reducer ('{reducer.name}', {format_shape(reducer.shape)} "
            f"{reducer.dtype})"
        )
    zero = [literal(0, index, "an offset").value for _ in reducer.shape]
    builder.copy(reducer.value, zero, dst.value, zero, None)
