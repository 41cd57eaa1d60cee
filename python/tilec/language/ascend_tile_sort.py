"""`T.tile.topk` and `T.tile.gather_mask`: tilelang-ascend's sorted selection.

tilelang-ascend's `T.tile.topk(dst, src, K, actual_num)` is its template `TopK`
(src/tl_templates/ascend/common.h): `Sort` pads src past `actual_num` with -inf,
numbers the elements with `ArithProgression` (0.0, 1.0, ... as the dtype's
values, whose bits `Sort32` carries as the indices), sorts descending with
`Sort32` and `MrgSort`, and copies the first K (value, index) pairs, interleaved,
into dst. So dst[2r] is the r-th largest value of src[:actual_num] and dst[2r + 1]
its index as a value of dst's dtype; `T.tile.gather_mask(idx, dst, "P1010")`
picks the indices out and `T.tile.cast(..., "CAST_ROUND", K)` makes them ints.

Here topk is the same selection written with tilec's tile ops, so that every
target runs it: K rounds of a max reduction, a compare-select of the indices
holding the max and a min reduction (the smallest index among equal values
first, as the vendor's merge orders ties: asc-devkit's MrgSort page, "if
score[i] == score[j] and i > j, score[j] is taken first"), each pair stored by
the scalar unit, which also retires the chosen element. On the ascend target the rounds
are vector instructions; tile-ascend-sync-within-ops orders the steps of the
one DSL op, as the template's own `PipeBarrier<PIPE_V>` calls do. Unlike the
template, src is left as it was (the template writes its -inf padding into src).
"""

from __future__ import annotations

import math
import numbers

from . import ascend_tile_views as views
from . import semantic
from .dtypes import float32, index, int32
from .loops import Parallel, serial
from .source import dsl_api

GATHER_PATTERNS = {"P0101": (2, 0), "P1010": (2, 1), "P0001": (4, 0), "P0010": (4, 1),
                   "P0100": (4, 2), "P1000": (4, 3), "P1111": (1, 0)}
"""AscendC GatherMask's fixed patterns (asc-devkit's GatherMask page: a uint8_t
`src1Pattern` of 1 to 7, in this order): the pattern's bits, rightmost for element
0, repeat over src, so each keeps one element of every `stride`, at `offset`."""


def _size(view: views.View) -> int:
    return math.prod(view.shape)


def _count(value: object, what: str, name: str, least: int, most: int) -> int:
    number = semantic.python_int(value, f"{what}: {name}")
    if number is None or not least <= number <= most:
        raise semantic.error(f"{what}: {name} must be a Python int from {least} to {most} but "
                             f"got {value!r}")
    return number


def _rounds(K: object, what: str, n: int, out: views.View) -> int | object:
    """How many pairs T.tile.topk picks: K, checked against src's n elements and dst's
    pairs when it is a Python int; a K known at run time only (tilelang-ascend takes
    one) is clamped to them, since no check can stop the kernel there."""
    pairs = _size(out) // 2
    if not isinstance(K, numbers.Number):
        semantic.index_value(K, f"{what}: K")  # an integer, or the located error
        return semantic.binary("min", semantic.binary("max", K, 0), min(n, pairs))
    k = _count(K, what, "K", 1, n)
    if pairs < k:
        raise semantic.error(f"{what}: dst ('{out.buffer.name}', {_size(out)} elements) must "
                             f"hold the {2 * k} elements of K = {k} (value, index) pairs")
    return k


@dsl_api
def topk(dst: object, src: object, K: object, actual_num: object) -> None:
    """dst[2r], dst[2r + 1] = the r-th largest of src[:actual_num] and its index (as a
    value of dst's dtype), for r < K; equal values in the order of their indices.
    Elements past actual_num count as -inf (tilelang-ascend's padding). K may be known
    at run time only (a symbolic size, a scalar read from a tensor)."""
    what = "T.tile.topk"
    semantic.require_tile_context(what)
    out, source = views.flat(dst, what, "dst"), views.flat(src, what, "src")
    dtype = source.buffer.dtype
    if not dtype.is_float or dtype.bits not in (16, 32):
        raise semantic.error(f"{what}: src ('{source.buffer.name}') must be float16 or float32, "
                             f"as AscendC's Sort32 takes, but is {dtype}")
    if out.buffer.dtype != dtype:
        raise semantic.error(f"{what}: dst ('{out.buffer.name}') must be {dtype} like src, as "
                             f"the (value, index) pairs are, but is {out.buffer.dtype}")
    n = _size(source)
    k = _rounds(K, what, n, out)
    number = semantic.python_int(actual_num, f"{what}: actual_num")
    if number is not None and not 0 <= number <= n:
        raise semantic.error(f"{what}: actual_num must be from 0 to the {n} elements of src "
                             f"('{source.buffer.name}') but got {actual_num!r}")
    valid = semantic.operand(actual_num, what) if number is None else number
    scope = source.buffer.scope
    # Values and indices of the elements not yet chosen; a chosen one's index is n,
    # above every index, so that the min reduction passes it over even when the
    # values left are all -inf like it.
    values = semantic.alloc((n,), dtype, scope, what)
    order = semantic.alloc((n,), float32, scope, what)
    candidates = semantic.alloc((n,), float32, scope, what)
    best = semantic.alloc((1,), dtype, scope, what)
    pick = semantic.alloc((1,), float32, scope, what)
    low = semantic.cast(-math.inf, dtype)
    for i in Parallel(n):
        value = source.load(source.nth(i))
        if number != n:
            value = semantic.select(semantic.compare("<", i, valid), value, low)
        values[i] = value
        order[i] = semantic.cast(semantic.cast(i, int32), float32)  # one i32 -> f32 Cast
    for r in serial(k):
        semantic.reduce("max", values, best, 0, True)
        for i in Parallel(n):
            candidates[i] = semantic.select(semantic.compare("==", values[i], best[0]),
                                            order[i], float(n))
        semantic.reduce("min", candidates, pick, 0, True)
        chosen = semantic.cast(pick[0], index)
        slot = semantic.binary("*", r, 2)
        out.store(out.nth(slot), best[0])
        out.store(out.nth(semantic.binary("+", slot, 1)), semantic.cast(pick[0], dtype))
        semantic.store(values, (chosen,), low)
        semantic.store(order, (chosen,), float(n))


@dsl_api
def gather_mask(dst: object, src: object, src1Pattern: object) -> None:
    """dst = the elements of src that the fixed pattern keeps, in order ("P1010": the odd
    ones, T.tile.topk's indices; see GATHER_PATTERNS)."""
    what = "T.tile.gather_mask"
    semantic.require_tile_context(what)
    if not isinstance(src1Pattern, str):
        raise semantic.error(f"{what}: src1Pattern must be one of the fixed patterns "
                             f"{', '.join(GATHER_PATTERNS)}; a pattern tile (the vendor's "
                             "user-defined mode) is not supported by tilec")
    if src1Pattern not in GATHER_PATTERNS:
        raise semantic.error(f"{what}: src1Pattern must be one of {', '.join(GATHER_PATTERNS)} "
                             f"but got {src1Pattern!r}")
    out, source = views.flat(dst, what, "dst"), views.flat(src, what, "src")
    if out.buffer.dtype != source.buffer.dtype:
        raise semantic.error(f"{what}: dst ('{out.buffer.name}') must be {source.buffer.dtype} "
                             f"like src ('{source.buffer.name}') but is {out.buffer.dtype}")
    stride, offset = GATHER_PATTERNS[src1Pattern]
    kept = (_size(source) - offset + stride - 1) // stride
    if kept == 0 or _size(out) < kept:
        raise semantic.error(
            f"{what}: {src1Pattern} keeps {kept} of the {_size(source)} elements of src "
            f"('{source.buffer.name}'), which dst ('{out.buffer.name}', {_size(out)} elements) "
            "must hold")
    for i in Parallel(kept):
        at = semantic.binary("+", semantic.binary("*", i, stride), offset)
        out.store(out.nth(i), source.load(source.nth(at)))
