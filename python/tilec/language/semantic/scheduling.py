"""Scheduling hints: how a kernel's work is laid out, recorded as `tile.*` attributes.

Block swizzles, register reallocation, layouts, loop unrolling and software
pipelining change how fast a kernel runs, not what it computes; the DSL checks
them and records them for the targets that honour them.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import builder
from .. import values as v
from ..builder import RegionKind
from ..hints import Fragment, Layout
from .checks import describe, error, flag, format_shape, python_int
from .placement import check_buffer, require_tile_context, require_trace

SWIZZLE_ORDERS = ("row", "column", "mlx")


def use_swizzle(panel_size: object, order: object, enable: object) -> None:
    """Records a block swizzle (rasterization) on the enclosing tile.kernel."""
    what = "T.use_swizzle"
    trace = require_tile_context(what)
    panel = python_int(panel_size, f"{what}: panel_size")
    if panel is None or panel < 1:
        raise error(f"{what}: panel_size must be a positive Python int but got {panel_size!r}")
    if order not in SWIZZLE_ORDERS:
        raise error(
            f"{what}: order must be one of {', '.join(map(repr, SWIZZLE_ORDERS))} but got "
            f"{order!r}"
        )
    if not flag(enable, what, "enable"):
        return
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_tile_context found the kernel"
    builder.annotate_region(kernel, {"swizzle": {"panel_size": panel, "order": str(order)}})


REGISTER_HINTS = ("max_nreg_inc", "max_nreg_dec", "no_set_max_nreg")
"""The register hints a tile.kernel records (`tile.<name>`): the registers its consumer
warpgroups grow to and its producer shrinks to, or no reallocation at all."""


def set_max_nreg(reg_count: object, is_inc: object) -> None:
    """TileLang's `T.set_max_nreg(count, is_inc)`: the registers per thread that the
    consumer warpgroups (is_inc=1) or the producer (is_inc=0) of a warp-specialized
    kernel reallocate to; recorded on the tile.kernel, honoured by cuda's warp
    specialization (`setmaxnreg` takes a multiple of 8 in [24, 256], PTX ISA)."""
    what = "T.set_max_nreg"
    trace = require_tile_context(what)
    count = python_int(reg_count, f"{what}: reg_count")
    if count is None or not 24 <= count <= 256 or count % 8:
        raise error(f"{what}: reg_count must be a multiple of 8 from 24 to 256 (setmaxnreg's "
                    f"range) but got {reg_count!r}")
    increase = python_int(is_inc, f"{what}: is_inc")
    if increase not in (0, 1):
        raise error(f"{what}: is_inc must be 1 (the consumers grow) or 0 (the producer "
                    f"shrinks) but got {is_inc!r}")
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_tile_context found the kernel"
    builder.annotate_region(kernel, {"max_nreg_inc" if increase else "max_nreg_dec": count})


def no_set_max_nreg(what: str) -> None:
    """TileLang's `T.no_set_max_nreg()` / `T.disable_warp_group_reg_alloc()`: no register
    reallocation between warpgroups; recorded, honoured by cuda."""
    trace = require_tile_context(what)
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_tile_context found the kernel"
    builder.annotate_region(kernel, {"no_set_max_nreg": True})


def _dims_match(layout: Sequence[object], shape: Sequence[v.Dim]) -> bool:
    """Whether a layout of shape `layout` fits a buffer of `shape`; symbolic dims match any."""
    if len(layout) != len(shape):
        return False
    return all(
        not isinstance(a, int) or not isinstance(b, int) or a == b
        for a, b in zip(layout, shape, strict=True)
    )


def annotate_layout(layout_map: object) -> None:
    """Records each buffer's `T.Layout` / `T.Fragment` as its `tile.layout`."""
    what = "T.annotate_layout"
    require_tile_context(what)
    if not isinstance(layout_map, dict):
        raise error(f"{what} needs a dict {{buffer: layout}} but got {describe(layout_map)}")
    for buffer, layout in layout_map.items():
        if not isinstance(buffer, v.Buffer):
            raise error(f"{what}: the keys must be buffers but got {describe(buffer)}")
        check_buffer(buffer)
        if not isinstance(layout, Layout) and callable(layout):
            layout = Layout(buffer.shape, layout)
        if not isinstance(layout, Layout):
            raise error(
                f"{what}: the layout of '{buffer.name}' must be a T.Layout, a T.Fragment or a "
                f"function of its indices but got {describe(layout)}"
            )
        if buffer.scope == "fragment" and not isinstance(layout, Fragment):
            raise error(
                f"{what}: '{buffer.name}' is a fragment, so its layout must be a T.Fragment "
                "(which thread holds each element)"
            )
        if not _dims_match(layout.shape, buffer.shape):
            raise error(
                f"{what}: the layout is for shape {format_shape(layout.shape)} but "
                f"'{buffer.name}' has shape {format_shape(buffer.shape)}"
            )
        builder.annotate_buffer(buffer.value, {"layout": layout.attributes()})


def parallel_hints(
    rank: int, coalesced_width: object, loop_layout: object, what: str = "T.Parallel"
) -> dict[str, builder.Hint]:
    hints: dict[str, builder.Hint] = {}
    if coalesced_width is not None:
        width = python_int(coalesced_width, f"{what}: coalesced_width")
        if width is None or width < 1:
            raise error(
                f"{what}: coalesced_width must be a positive Python int but got "
                f"{coalesced_width!r}"
            )
        hints["coalesced_width"] = width
    if loop_layout is not None:
        require_trace(what)  # the layout's maps are built in the kernel's context
        if not isinstance(loop_layout, Fragment) or len(loop_layout.shape) != rank:
            raise error(
                f"{what}: loop_layout must be a T.Fragment over the {rank} loop indices but got "
                f"{describe(loop_layout)}"
            )
        hints["layout"] = loop_layout.attributes()
    return hints


def unroll_hints(explicit: object, unroll_factor: object) -> dict[str, builder.Hint]:
    what = "T.unroll"
    hints: dict[str, builder.Hint] = {"unroll": True}
    if unroll_factor is not None:
        factor = python_int(unroll_factor, f"{what}: unroll_factor")
        if factor is None or factor < 1:
            raise error(
                f"{what}: unroll_factor must be a positive Python int but got {unroll_factor!r}"
            )
        hints["unroll"] = factor
    if flag(explicit, what, "explicit"):
        hints["unroll_explicit"] = True
    return hints


def _int_list(value: object, what: str, name: str) -> list[int]:
    if not isinstance(value, list | tuple):
        raise error(f"{what}: {name} must be a list of Python ints but got {describe(value)}")
    items = []
    for item in value:
        number = python_int(item, f"{what}: {name}")
        if number is None or number < 0:
            raise error(
                f"{what}: {name} must hold non-negative Python ints but holds {describe(item)}"
            )
        items.append(number)
    return items


def pipeline_schedule(
    num_stages: object, order: object, stage: object, group: object, sync: object
) -> tuple[int, dict[str, builder.Hint]]:
    """T.Pipelined's stage count and manual schedule (TileLang's order/stage/group/sync).

    `num_stages=0` is TileLang's "not pipelined", which tile.pipelined spells
    1; without num_stages (or with 0) a manual schedule has `max(stage) + 1`
    stages, as in TileLang. The schedule is recorded for the targets that pipeline.
    """
    what = "T.Pipelined"
    hints: dict[str, builder.Hint] = {}
    orders = None if order is None else _int_list(order, what, "order")
    stages = None if stage is None else _int_list(stage, what, "stage")
    if orders is not None:
        if sorted(orders) != list(range(len(orders))):
            raise error(
                f"{what}: order must be a permutation of 0..{len(orders) - 1} (the position of "
                f"each statement of the body) but got {orders}"
            )
        hints["order"] = orders
    if stages is not None:
        if orders is not None and len(stages) != len(orders):
            raise error(
                f"{what}: order has {len(orders)} entries but stage has {len(stages)}; give "
                "one of each per statement of the body"
            )
        hints["stage"] = stages
    for name, groups in (("group", group), ("sync", sync)):
        if groups is not None:
            if not isinstance(groups, list | tuple):
                raise error(f"{what}: {name} must be a list of lists of Python ints")
            hints[name] = [_int_list(g, what, name) for g in groups]
    count = 0 if num_stages is None else python_int(num_stages, f"{what} num_stages")
    if count is None or count < 0:
        raise error(
            f"{what}: num_stages must be a Python int of at least 0 but got {num_stages!r}"
        )
    if count == 0 and stages:
        count = max(stages) + 1
    return max(count, 1), hints
