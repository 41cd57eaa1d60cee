"""T.copy: which region of each side a copy covers, checked as TileLang checks it.

A copy is between two whole buffers, a tile and a region of a buffer
(`A[by * 64, k * 32]`, `G[b, 0:64, h]`), or two regions; its extent comes
from the tile, or from the slices. tile.copy takes one extent for both sides
and drops the leading unit dims of the lower-rank one, so a tile whose unit
dims sit elsewhere is viewed in the region's rank. The rules mirror the
per-target lowerings of tile.copy (passes/conversion/tile_to_*/copy.py).
"""

from __future__ import annotations

from mlir import ir

from ... import builder
from ... import values as v
from ...hints import Fragment
from ..buffers import offsets_of, release
from ..checks import describe, error, flag, format_shape
from ..placement import check_buffer, require_tile_context, require_trace
from ..scalars import converted
from ..scheduling import parallel_hints
from .alloc import ASCEND_SCOPES, GENERIC_SCOPES


def _family(scope: str) -> str:
    if scope == "global":
        return "global"
    return "generic" if scope in GENERIC_SCOPES else "ascend"


def _copy_side(x: object, role: str) -> v.Buffer | v.BufferRegion:
    if isinstance(x, v.Element):
        return x.region
    if isinstance(x, v.Buffer | v.BufferRegion):
        return x
    raise error(
        f"T.copy: {role} must be a buffer or a region such as A[i, j] but got {describe(x)}"
    )


def region_layout(
    region: v.BufferRegion, tile: v.Buffer, tile_shape: tuple[int, ...], what: str = "T.copy"
) -> tuple[list[int], list[int]]:
    """How `tile` covers `region`, in the region's rank: the extent of the copy, and the
    tile's shape laid out on the region's dims (the sliced dims get the tile's dims, the
    indexed ones 1). Unit dims either side has and the other lacks are dropped, as in
    TileLang, wherever they are: `G[b, 0:64, h]` is covered by a (64,), (1, 64) or
    (64, 1) tile."""
    buffer = region.buffer
    if not any(region.sliced):
        # An element names the start of a region of the tile's extent.
        full = [1] * (buffer.ndim - tile.ndim) + list(tile_shape)
        return full, full
    covered = [axis for axis, s in enumerate(region.sliced) if s]
    # A slice of extent 1 (`A[b, 0:1, i:i + 64]`) is a unit dim that a lower-rank
    # tile does not have; those go first, outermost first.
    units = [axis for axis in covered if region.extents[axis] == 1]
    while len(covered) > tile.ndim and units:
        covered.remove(units.pop(0))
    # A tile with unit dims (1, 64) or (64, 1) covers a region that slices fewer.
    shape = list(tile_shape)
    excess = len(shape) - len(covered)
    for position in [i for i, d in enumerate(tile_shape) if d == 1][: max(excess, 0)]:
        shape[position] = 0
    shape = [d for d in shape if d != 0]
    if len(covered) != len(shape):
        raise error(
            f"{what}: the region of '{buffer.name}' slices {len(covered)} dims but tile "
            f"'{tile.name}' has {tile.ndim}; slice the dims the tile covers and index the others"
        )
    sizes, laid_out = [1] * buffer.ndim, [1] * buffer.ndim
    for axis, size in zip(covered, shape, strict=True):
        extent = region.extents[axis]
        # A slice shorter than the tile (a ragged split) covers only its part of it.
        if extent is not None and extent > size:
            raise error(
                f"{what}: the slice of dim {axis} of '{buffer.name}' has extent {extent}, more "
                f"than the {size} of tile '{tile.name}' there"
            )
        sizes[axis] = size if extent is None else extent
        laid_out[axis] = size
    return sizes, laid_out


def _tile_for_region(
    region: v.BufferRegion, tile: v.Buffer, tile_shape: tuple[int, ...], what: str = "T.copy"
) -> tuple[ir.Value, list[int]]:
    """The tile (or a view of it) and the sizes of a tile.copy between it and `region`.

    tile.copy matches ranks by dropping the leading unit dims of the lower-rank
    side; where the tile's dims sit elsewhere on the region (a (1, 64) tile for
    `G[b, 0:64, h]`), the tile is viewed in the region's rank instead, which
    costs nothing (tiles are contiguous).
    """
    sizes, laid_out = region_layout(region, tile, tile_shape, what)
    if not any(region.sliced):
        return tile.value, sizes
    lead = abs(tile.ndim - region.buffer.ndim)
    if tile.ndim <= region.buffer.ndim and laid_out == [1] * lead + list(tile_shape):
        return tile.value, sizes
    if tile.ndim > region.buffer.ndim and list(tile_shape) == [1] * lead + laid_out:
        return tile.value, [1] * lead + sizes
    return builder.reshape(tile.value, laid_out), sizes


def _verifier_default_sizes(src: v.Buffer, dst: v.Buffer) -> tuple[int, ...] | None:
    """The sizes tile.copy assumes when none are given (see its description)."""
    if src.ndim != dst.ndim:
        return None
    reference = dst if dst.scope != "global" or src.scope == "global" else src
    return reference.static_shape


EVICTION_POLICIES = ("evict_normal", "evict_first", "evict_last")
COPY_INSTRUCTIONS = ("tma", "cp_async", "sync")


def copy_hints(
    coalesced_width: object,
    disable_tma: object,
    eviction_policy: object,
    prefer_instruction: object,
    loop_layout: object,
) -> dict[str, builder.Hint]:
    """TileLang's T.copy hints, checked, as the `tile.*` attributes that record them."""
    what = "T.copy"
    hints = parallel_hints(0, coalesced_width, None, what)
    if flag(disable_tma, what, "disable_tma"):
        hints["disable_tma"] = True
    for name, value, accepted in (
        ("eviction_policy", eviction_policy, EVICTION_POLICIES),
        ("prefer_instruction", prefer_instruction, COPY_INSTRUCTIONS),
    ):
        if value is None:
            continue
        if value not in accepted:
            raise error(
                f"{what}: {name} must be one of {', '.join(map(repr, accepted))} but got {value!r}"
            )
        hints[name] = str(value)
    if loop_layout is not None:
        require_trace(what)  # the layout's maps are built in the kernel's context
        if not isinstance(loop_layout, Fragment):
            raise error(
                f"{what}: loop_layout must be a T.Fragment but got {describe(loop_layout)}"
            )
        hints["layout"] = loop_layout.attributes()
    return hints


def copy(src_arg: object, dst_arg: object, hints: dict[str, builder.Hint] | None = None,
         pad: object = None) -> None:
    """`pad` (None: zero) is what a read past the end of the source gives, and what the
    rest of a destination tile the region does not cover holds (tile.copy's pad)."""
    require_tile_context("T.copy")
    src, dst = _copy_side(src_arg, "src"), _copy_side(dst_arg, "dst")
    src_buffer = src if isinstance(src, v.Buffer) else src.buffer
    dst_buffer = dst if isinstance(dst, v.Buffer) else dst.buffer
    check_buffer(src_buffer)
    check_buffer(dst_buffer)
    families = {_family(src_buffer.scope), _family(dst_buffer.scope)} - {"global"}
    if len(families) > 1:
        raise error(
            f"T.copy from {src_buffer.scope} buffer '{src_buffer.name}' to {dst_buffer.scope} "
            f"buffer '{dst_buffer.name}' mixes the generic scopes ({', '.join(GENERIC_SCOPES)}) "
            f"with the Ascend scopes ({', '.join(ASCEND_SCOPES)}); copy through global memory"
        )

    src_value, dst_value = src_buffer.value, dst_buffer.value
    if isinstance(src, v.BufferRegion) and isinstance(dst, v.BufferRegion):
        sizes = _two_region_sizes(src, dst)
    elif isinstance(src, v.Buffer) and isinstance(dst, v.Buffer):
        sizes = _whole_copy_sizes(src, dst)
    else:
        tile, region = (src, dst) if isinstance(src, v.Buffer) else (dst, src)
        assert isinstance(tile, v.Buffer) and isinstance(region, v.BufferRegion)
        tile_shape = tile.static_shape
        if tile_shape is None:
            raise error(
                f"T.copy: the extent of the copy is the shape of '{tile.name}', which is not "
                f"static {format_shape(tile.shape)}; copy into a tile instead"
            )
        view, sizes = _tile_for_region(region, tile, tile_shape)
        if isinstance(src, v.Buffer):
            src_value = view
        else:
            dst_value = view

    src_offsets = offsets_of(src, src_value)
    dst_offsets = offsets_of(dst, dst_value)
    default = _verifier_default_sizes(src_buffer, dst_buffer)
    if src_value is not src_buffer.value or dst_value is not dst_buffer.value:
        default = None
    builder.copy(
        src_value,
        src_offsets,
        dst_value,
        dst_offsets,
        None if default is not None and tuple(sizes) == default else sizes,
        hints,
        None if pad is None else converted(pad, src_buffer.dtype, "T.copy: pad_value").value,
    )
    release(src_arg)
    release(dst_arg)


def _slice_sizes(region: v.BufferRegion) -> list[int]:
    """The extent of each dim of a region on its own: a slice's (`a:b`, or `a:` to the end
    of a static dim), 1 for an index."""
    sizes = []
    for axis, (sliced, extent) in enumerate(zip(region.sliced, region.extents, strict=True)):
        size, start = region.buffer.shape[axis], builder.constant_int(region.offsets[axis])
        if sliced and extent is None and isinstance(size, int) and start is not None:
            extent = size - start
        if sliced and extent is None:
            raise error(
                f"T.copy between two regions: the extent of the slice of dim {axis} of "
                f"'{region.buffer.name}' is unknown; write its stop (A[i:i + 64])"
            )
        sizes.append(extent if sliced else 1)
    return sizes


def _start_sizes(start: v.BufferRegion, other: list[int]) -> list[int]:
    """The extent of a region without a slice (`A[i, j]`) copied to or from one with
    slices (`a_ub[s, :, :]`): it is where the copy starts, as in TileLang, and spans the
    other side's extents that are not 1 on its trailing dims."""
    extents = [d for d in other if d != 1]
    if len(extents) > len(start.offsets):
        raise error(
            f"T.copy: the copy starts at a point of '{start.buffer.name}', which has "
            f"{len(start.offsets)} dims, but the other side spans {len(extents)} dims "
            f"{format_shape(extents)}"
        )
    return [1] * (len(start.offsets) - len(extents)) + extents


def _two_region_sizes(src: v.BufferRegion, dst: v.BufferRegion) -> list[int]:
    """The extent of a copy between two regions (`acc[:25, :]` to `Out[s, 0:25, :]`): both
    slice the same extents, up to unit dims, as in TileLang."""
    src_sizes, dst_sizes = _slice_sizes(src), _slice_sizes(dst)
    if not any(src.sliced) and any(dst.sliced):
        src_sizes = _start_sizes(src, dst_sizes)
    elif not any(dst.sliced) and any(src.sliced):
        dst_sizes = _start_sizes(dst, src_sizes)
    if [d for d in src_sizes if d != 1] != [d for d in dst_sizes if d != 1]:
        raise error(
            f"T.copy: the region of '{src.buffer.name}' has extents {format_shape(src_sizes)} "
            f"but the region of '{dst.buffer.name}' has {format_shape(dst_sizes)}"
        )
    # tile.copy's sizes have the higher rank; the other side drops its leading unit dims.
    high, low = sorted((src_sizes, dst_sizes), key=len, reverse=True)
    dropped = list(high)
    while len(dropped) > len(low) and dropped[0] == 1:
        dropped.pop(0)
    if dropped != low:
        raise error(
            f"T.copy: the regions of '{src.buffer.name}' {format_shape(src_sizes)} and "
            f"'{dst.buffer.name}' {format_shape(dst_sizes)} differ in more than leading unit "
            "dims; index the unit dims of the higher-rank side first"
        )
    return high


def _dim_key(d: v.Dim) -> int | str:
    """A dim as it compares: symbolic dims of one name have one size."""
    return d if isinstance(d, int) else d.name


def _whole_copy_sizes(src: v.Buffer, dst: v.Buffer) -> list[int]:
    """The extent of a copy between whole buffers: their common shape.

    As in TileLang, two whole buffers must have the same shape; copying only
    a corner of one (or into a corner of it) is written with a region start.
    A symbolic dim equals only a dim of its own name, because another size
    would be a run-time coincidence.
    """
    if list(map(_dim_key, src.shape)) != list(map(_dim_key, dst.shape)):
        raise error(
            f"T.copy: '{src.name}' has shape {format_shape(src.shape)} but '{dst.name}' has "
            f"{format_shape(dst.shape)}; index one side (A[i, j]) to copy a region"
        )
    shape = src.static_shape
    if shape is None:
        raise error(
            f"T.copy between '{src.name}' and '{dst.name}': neither has a static shape to give "
            "the extent of the copy; copy through a tile"
        )
    return list(shape)
