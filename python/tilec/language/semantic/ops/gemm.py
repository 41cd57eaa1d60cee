"""T.gemm: C += op(A) op(B) on whole tiles, with the element types tile.gemm accepts.

`GEMM_ACCUMULATORS` is the one table of those types: the DSL checks a call
against it, and test/python/language/test_gemm_accumulators.py checks that
tile.gemm's verifier accepts exactly its pairs, so the two cannot drift.
"""

from __future__ import annotations

from ... import builder
from ... import values as v
from ...hints import GemmWarpPolicy
from ..buffers import whole_tile
from ..checks import describe, error, flag, format_shape, python_int
from ..placement import check_buffer, require_tile_context
from .alloc import alloc
from .copy import copy

# Element types a tile.gemm accepts for A and B, and the accumulators for each.
GEMM_ACCUMULATORS = {
    "float16": ("float32", "float16"),
    "bfloat16": ("float32",),
    "float32": ("float32",),
    "float8_e4m3": ("float32",),
    "float8_e5m2": ("float32",),
    "int8": ("int32",),
}


def _gemm_hints(policy: object, k_pack: object, wg_wait: object) -> dict[str, builder.Hint]:
    """TileLang's scheduling arguments of T.gemm, checked, as the attributes that record them.

    Defaults (no policy given, k_pack=1, wg_wait=0) record nothing.
    """
    what = "T.gemm"
    hints: dict[str, builder.Hint] = {}
    if policy is not None:
        if isinstance(policy, bool) or policy not in list(GemmWarpPolicy):
            raise error(
                f"{what}: policy must be one of T.GemmWarpPolicy.Square, FullRow, FullCol but "
                f"got {policy!r}"
            )
        hints["policy"] = GemmWarpPolicy(policy).attr_name
    pack = python_int(k_pack, f"{what}: k_pack")
    if pack is None or pack < 1:
        raise error(f"{what}: k_pack must be a positive Python int but got {describe(k_pack)}")
    if pack != 1:
        hints["k_pack"] = pack
    wait = python_int(wg_wait, f"{what}: wg_wait")
    if wait is None or wait < -1:
        raise error(
            f"{what}: wg_wait must be a Python int of at least -1 (no wait) but got "
            f"{describe(wg_wait)}"
        )
    if wait != 0:
        hints["wg_wait"] = wait
    return hints


def gemm(
    a_arg: object,
    b_arg: object,
    c_arg: object,
    transpose_a: object,
    transpose_b: object,
    clear_accum: object,
    policy: object = None,
    k_pack: object = 1,
    wg_wait: object = 0,
) -> None:
    what = "T.gemm"
    require_tile_context(what)
    ta = flag(transpose_a, what, "transpose_A")
    tb = flag(transpose_b, what, "transpose_B")
    clear = flag(clear_accum, what, "clear_accum")
    a, b = (_gemm_operand(x, r) for x, r in ((a_arg, "A"), (b_arg, "B")))
    c = _gemm_operand(c_arg, "C", read=not clear)
    hints = _gemm_hints(policy, k_pack, wg_wait)
    for role, tile in (("A", a), ("B", b), ("C", c)):
        if tile.ndim != 2:
            raise error(
                f"{what}: {role} ('{tile.name}') must be 2-D but has shape "
                f"{format_shape(tile.shape)}"
            )
    for role, tile in (("A", a), ("B", b)):
        if tile.scope == "global":
            raise error(
                f"{what}: {role} ('{tile.name}') is a global tensor; T.copy a tile of it into "
                "a shared or fragment buffer first"
            )
    if c.scope not in ("fragment", "local", "l0c"):
        raise error(
            f"{what}: the accumulator C ('{c.name}') must be a fragment "
            f"(T.alloc_fragment) but is a {c.scope} buffer"
        )
    m, n = c.shape
    a_rows, a_cols = a.shape
    if (a_cols if ta else a_rows) != m:
        layout = "K x M, transposed" if ta else "M x K"
        raise error(
            f"{what}: C ('{c.name}') is {m}x{n}, so A ('{a.name}', {layout}) needs M = {m} but "
            f"is {a_rows}x{a_cols}"
        )
    k = a_rows if ta else a_cols
    expected_b = (n, k) if tb else (k, n)
    if tuple(b.shape) != expected_b:
        layout = "N x K, transposed" if tb else "K x N"
        hint = ""
        if tuple(b.shape) == expected_b[::-1]:
            hint = f"; pass transpose_B={not tb} if it is stored the other way"
        raise error(
            f"{what}: B ('{b.name}') must be {expected_b[0]}x{expected_b[1]} ({layout}) to "
            f"multiply A ('{a.name}', K = {k}) into C ('{c.name}', {m}x{n}) but is "
            f"{b.shape[0]}x{b.shape[1]}{hint}"
        )
    if a.dtype != b.dtype:
        raise error(f"{what}: A is {a.dtype} but B is {b.dtype}; both need one element type")
    accumulators = GEMM_ACCUMULATORS.get(a.dtype.name)
    if accumulators is None:
        raise error(
            f"{what}: cannot multiply {a.dtype} tiles; use one of {', '.join(GEMM_ACCUMULATORS)}"
        )
    if c.dtype.name not in accumulators:
        raise error(
            f"{what}: {a.dtype} tiles accumulate into {' or '.join(accumulators)} but C "
            f"('{c.name}') is {c.dtype}"
        )
    builder.gemm(
        a.value, b.value, c.value, transpose_a=ta, transpose_b=tb, clear=clear, hints=hints
    )
    if isinstance(c_arg, v.BufferRegion):
        copy(c, c_arg)  # the accumulated region back where it came from


def _slice_extent(region: v.BufferRegion, axis: int) -> int | None:
    """The extent of a sliced dim: as written, or to the end of a static dim from a
    constant start (`Q_shared[:, :64]`'s first dim)."""
    if region.extents[axis] is not None:
        return region.extents[axis]
    dim = region.buffer.shape[axis]
    start = builder.constant_int(region.offsets[axis])
    if not isinstance(dim, int) or start is None:
        return None
    return dim - start


def _gemm_operand(x: object, role: str, read: bool = True) -> v.Buffer:
    """A T.gemm operand as a whole tile. TileLang multiplies part of a tile in place
    (`Q_shared[:, :64]`); here the region goes through a tile of its own shape in the
    same scope (a T.copy in, and for C back out), which every target lowers."""
    what = "T.gemm"
    if not isinstance(x, v.BufferRegion):
        return whole_tile(x, what, role)
    buffer = x.buffer
    check_buffer(buffer)
    if buffer.scope == "global":
        raise error(f"{what}: {role} is a region of the global tensor '{buffer.name}'; T.copy "
                    "it into a shared or fragment buffer first")
    shape = [_slice_extent(x, axis) for axis, sliced in enumerate(x.sliced) if sliced]
    if any(e is None for e in shape):
        raise error(f"{what}: {role} is a region of '{buffer.name}' whose extent is not a "
                    "Python int; slice it with static bounds (`T[:, k:k + 64]`)")
    tile = alloc(tuple(shape), buffer.dtype, buffer.scope, what)
    tile.name = f"{role}, the region of '{buffer.name}'"
    if read:
        copy(x, tile)
    return tile
