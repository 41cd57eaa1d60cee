"""TileLang's layout constructors (`tilelang.layout.make_swizzled_layout`, ...).

A swizzled layout permutes where the elements of a shared tile sit so that
a warp's accesses hit distinct banks; which permutation depends on the
target's banks, element width and copy engine (TMA or not), so tilec records
the kind of swizzle asked for rather than an index map: `T.annotate_layout`
stores it in the tile's `tile.layout` as `{swizzle = "auto" | "128B" | ...,
k_major = ..., allow_pad = ...}` for the targets that swizzle. On cpu a
layout is only this annotation: the tile stays row-major and nothing else
changes. `make_linear_layout` is the row-major layout itself, an identity map.

Each takes the tile (or a region of it) as TileLang does.
"""

from __future__ import annotations

from mlir import ir

from . import values as v
from .errors import DSLError
from .hints import Fragment, IndexExpr, Layout
from .source import dsl_api, site

__all__ = [
    "Fragment",
    "Layout",
    "SwizzledLayout",
    "make_full_bank_swizzled_layout",
    "make_half_bank_swizzled_layout",
    "make_linear_layout",
    "make_quarter_bank_swizzled_layout",
    "make_swizzled_layout",
    "make_wgmma_swizzled_layout",
]


def _tile(buffer: object, what: str) -> v.Buffer:
    """The tile `buffer` names: a tile, an element of it or a region of it."""
    if isinstance(buffer, v.Element | v.BufferRegion):
        buffer = buffer.region.buffer if isinstance(buffer, v.Element) else buffer.buffer
    if not isinstance(buffer, v.Buffer):
        raise DSLError(f"{what} needs a buffer but got {type(buffer).__name__} {buffer!r}", site())
    return buffer


def _flag(value: object, what: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise DSLError(f"{what}: {name} must be a Python bool but got {value!r}", site())
    return value


class SwizzledLayout(Layout):
    """A swizzle of a shared tile, by kind (see the module docstring)."""

    def __init__(self, buffer: v.Buffer, swizzle: str, **options: bool | int):
        self.shape = buffer.shape
        self.forward = tuple(IndexExpr.dim(d) for d in range(buffer.ndim))
        self.swizzle = swizzle
        self.options = options

    def attributes(self) -> dict[str, ir.Attribute]:
        attrs: dict[str, ir.Attribute] = {"swizzle": ir.StringAttr.get(self.swizzle)}
        for name, value in self.options.items():
            attrs[name] = (
                ir.BoolAttr.get(value)
                if isinstance(value, bool)
                else ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)
            )
        return attrs

    def __repr__(self) -> str:
        return f"tilec.layout.SwizzledLayout({self.swizzle!r}, {self.options})"


@dsl_api
def make_swizzled_layout(
    buffer: object, k_major: bool = True, allow_pad: bool = True
) -> SwizzledLayout:
    """The target's usual bank-conflict-free swizzle for `buffer`."""
    what = "make_swizzled_layout"
    return SwizzledLayout(
        _tile(buffer, what),
        "auto",
        k_major=_flag(k_major, what, "k_major"),
        allow_pad=_flag(allow_pad, what, "allow_pad"),
    )


@dsl_api
def make_wgmma_swizzled_layout(
    buffer: object, continuity: int | None = None, k_major: bool = True
) -> SwizzledLayout:
    """The swizzle Hopper's wgmma reads `buffer` with (`continuity`: elements along the
    contiguous dim, the tile's by default)."""
    what = "make_wgmma_swizzled_layout"
    tile = _tile(buffer, what)
    options: dict[str, bool | int] = {"k_major": _flag(k_major, what, "k_major")}
    if continuity is not None:
        if isinstance(continuity, bool) or not isinstance(continuity, int) or continuity < 1:
            raise DSLError(
                f"{what}: continuity must be a positive Python int but got {continuity!r}", site()
            )
        options["continuity"] = continuity
    return SwizzledLayout(tile, "wgmma", **options)


@dsl_api
def make_full_bank_swizzled_layout(buffer: object) -> SwizzledLayout:
    """A 128-byte swizzle."""
    return SwizzledLayout(_tile(buffer, "make_full_bank_swizzled_layout"), "128B")


@dsl_api
def make_half_bank_swizzled_layout(buffer: object) -> SwizzledLayout:
    """A 64-byte swizzle."""
    return SwizzledLayout(_tile(buffer, "make_half_bank_swizzled_layout"), "64B")


@dsl_api
def make_quarter_bank_swizzled_layout(buffer: object) -> SwizzledLayout:
    """A 32-byte swizzle."""
    return SwizzledLayout(_tile(buffer, "make_quarter_bank_swizzled_layout"), "32B")


@dsl_api
def make_linear_layout(buffer: object) -> Layout:
    """The row-major layout of `buffer`: every element where it is (an identity map)."""
    tile = _tile(buffer, "make_linear_layout")
    return Layout(tile.shape, lambda *indices: indices)
