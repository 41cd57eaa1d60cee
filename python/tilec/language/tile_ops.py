"""Tile ops: allocation, copies, gemm, fills, reductions, prefix sums, atomic adds.

All of them act on whole tiles, so they belong in a `T.Kernel` body (or a
`T.Pipelined`/`T.serial` loop in it), not inside `T.Parallel`. Each becomes
the `tile` op of the same name, located at the calling line.
"""

from __future__ import annotations

from . import semantic
from .dtypes import DType
from .source import dsl_api
from .values import Buffer


@dsl_api
def alloc_shared(shape: object, dtype: str | DType) -> Buffer:
    """A tile in memory shared by the threads of a block (`#tile.scope<shared>`)."""
    return semantic.alloc(shape, dtype, "shared", "T.alloc_shared")


@dsl_api
def alloc_fragment(shape: object, dtype: str | DType) -> Buffer:
    """A register tile spread over the threads of a block; gemm accumulators live here."""
    return semantic.alloc(shape, dtype, "fragment", "T.alloc_fragment")


@dsl_api
def alloc_local(shape: object, dtype: str | DType) -> Buffer:
    """A per-thread tile (`#tile.scope<local>`)."""
    return semantic.alloc(shape, dtype, "local", "T.alloc_local")


@dsl_api
def alloc_var(dtype: str | DType, init: object = None) -> Buffer:
    """A one-element local variable, read and written as `x[0]`; `init` stores a first value."""
    var = semantic.alloc((1,), dtype, "local", "T.alloc_var")
    if init is not None:
        semantic.store(var, 0, init)
    return var


@dsl_api
def alloc(shape: object, dtype: str | DType, scope: str) -> Buffer:
    """A tile in any on-chip scope, including the Ascend expert scopes l1, l0a, l0b, l0c, ub."""
    scopes = (*semantic.GENERIC_SCOPES, *semantic.ASCEND_SCOPES)
    if scope not in scopes:
        raise semantic.error(
            f"T.alloc: unknown scope {scope!r}; expected one of {', '.join(scopes)}"
        )
    return semantic.alloc(shape, dtype, scope, "T.alloc")


@dsl_api
def copy(src: object, dst: object) -> None:
    """Copies `src` to `dst`; either side may be a region `A[i, j]` starting at an offset.

    The extent is the shape of the side given as a whole buffer; two whole
    buffers must have the same shape (as in TileLang). Reads past
    the end of a tensor give zero and writes past its end are dropped, so
    edge tiles need no special code; element types are converted.
    """
    semantic.copy(src, dst)


@dsl_api
def gemm(
    A: object,
    B: object,
    C: object,
    transpose_A: bool = False,
    transpose_B: bool = False,
    clear_accum: bool = False,
) -> None:
    """C (+)= op(A) @ op(B) on tiles: C is M x N (a fragment), op(A) M x K, op(B) K x N."""
    semantic.gemm(A, B, C, transpose_A, transpose_B, clear_accum)


@dsl_api
def fill(buffer: object, value: object) -> None:
    """Sets every element of `buffer` to `value`."""
    semantic.fill(buffer, value)


@dsl_api
def clear(buffer: object) -> None:
    """Sets every element of `buffer` to zero."""
    semantic.clear(buffer)


@dsl_api
def reduce_max(src: object, dst: object, dim: int = -1, clear: bool = True) -> None:
    """dst = max of src along `dim` (src's shape without `dim`); `clear=False` folds in dst."""
    semantic.reduce("max", src, dst, dim, clear)


@dsl_api
def reduce_min(src: object, dst: object, dim: int = -1, clear: bool = True) -> None:
    """dst = min of src along `dim`; `clear=False` folds in the old dst."""
    semantic.reduce("min", src, dst, dim, clear)


@dsl_api
def reduce_sum(src: object, dst: object, dim: int = -1, clear: bool = True) -> None:
    """dst = sum of src along `dim`; `clear=False` adds to the old dst."""
    semantic.reduce("sum", src, dst, dim, clear)


@dsl_api
def reduce_abssum(src: object, dst: object, dim: int = -1, clear: bool = True) -> None:
    """dst = sum of |src| along `dim`; `clear=False` adds to the old dst."""
    semantic.reduce("abssum", src, dst, dim, clear)


@dsl_api
def reduce_absmax(src: object, dst: object, dim: int = -1, clear: bool = True) -> None:
    """dst = max of |src| along `dim`; `clear=False` folds in the old dst."""
    semantic.reduce("absmax", src, dst, dim, clear)


@dsl_api
def cumsum(src: object, dst: object = None, dim: int = 0, reverse: bool = False) -> None:
    """Inclusive prefix sum of `src` along `dim` into `dst` (in place when dst is None)."""
    semantic.cumsum(src, dst, dim, reverse)


@dsl_api
def sync_threads() -> None:
    """Waits until every thread of the block gets here (tile.barrier); a target
    whose tile ops already synchronize (cpu) drops it."""
    semantic.sync_threads()


@dsl_api
def atomic_add(dst: object, value: object) -> None:
    """Atomically adds `value` (a tile, or a scalar) into `dst` (a region or element).

    With a tile, `dst` is the region starting at `Out[i, j]`; with a scalar,
    `dst` is the element `Out[i, j]` (e.g. inside T.Parallel).
    """
    semantic.atomic_add(dst, value)
