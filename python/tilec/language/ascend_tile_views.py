"""Tile operands of the `T.tile.*` family: whole tiles, regions of them, scalars.

tilelang-ascend passes its vector calls a tile's address and an element count;
here an operand is a view of a tile (`View`): a whole tile or a region
(`acc[h, :]`, `x[pid, :, :]`), its sliced dims of extent above 1 making its
shape, so that `[M, 1]` and `[M]` are one shape.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from . import builder, semantic
from .dtypes import index
from .values import Buffer, BufferRegion, Expr, Scalar, Var

Value = Scalar | int | float
CUBE_OPERANDS = {"l1": "L1", "l0a": "L0A", "l0b": "L0B"}
"""The buffers of the cube's operands, which no vector instruction reads or writes."""


@dataclass(frozen=True)
class View:
    """A tile operand: the elements of `buffer` from `offsets` along the dims `axes`,
    whose extents are `shape` (the view's dims of extent 1 dropped)."""

    buffer: Buffer
    offsets: tuple[object, ...]
    axes: tuple[int, ...]
    shape: tuple[int, ...]
    dims: tuple[int, ...]
    """Every dim of the view with its extent, unit ones too (broadcast reads them)."""

    def indices(self, position: Sequence[object]) -> tuple[object, ...]:
        """The buffer's indices of the element at `position` of the view."""
        at = list(self.offsets)
        for axis, i in zip(self.axes, position, strict=True):
            at[axis] = i if is_zero(at[axis]) else semantic.binary("+", at[axis], i)
        return tuple(at)

    def load(self, position: Sequence[object]) -> Scalar:
        return semantic.subscript(self.buffer, self.indices(position))

    def store(self, position: Sequence[object], value: object) -> None:
        semantic.store(self.buffer, self.indices(position), value)

    def nth(self, i: object) -> tuple[object, ...]:
        """The position of element `i` of a 1-D view (`flat`), or of its only element."""
        return (i,) if self.shape else ()


def is_zero(x: object) -> bool:
    if isinstance(x, Scalar):
        return builder.constant_int(x.value) == 0
    return x == 0


def view(x: object, what: str, role: str) -> View:
    """`x`, a tile or a region of one, as a view (a located error for anything else)."""
    if is_tile(x) and isinstance(x, Buffer):
        buffer, starts, sliced, extents = x, (0,) * x.ndim, (True,) * x.ndim, x.shape
    elif isinstance(x, BufferRegion):
        buffer, starts, sliced, extents = x.buffer, x.offsets, x.sliced, x.extents
    else:
        raise semantic.error(f"{what}: {role} must be a tile or a region of one (`t[i, :]`) "
                             f"but got {x!r}")
    semantic.check_buffer(buffer)
    if buffer.scope == "global":
        raise semantic.error(
            f"{what}: {role} ('{buffer.name}') is a global tensor; T.copy it into a tile "
            "(T.alloc_shared) first, as the vector unit reads on-chip memory only")
    if buffer.scope in CUBE_OPERANDS:
        raise semantic.error(
            f"{what}: {role} ('{buffer.name}') is in {CUBE_OPERANDS[buffer.scope]}, which only "
            "the cube reads; the vector unit works on UB tiles (T.alloc_ub): T.copy it there")
    offsets: list[object] = []
    axes, shape, dims = [], [], []
    for axis, start in enumerate(starts):
        offsets.append(start if isinstance(start, int) else semantic.scalar(start, index))
        if not sliced[axis]:
            dims.append(1)
            continue
        extent = extents[axis]
        if extent is None:
            first = start if isinstance(start, int) else builder.constant_int(start)
            size = buffer.shape[axis]
            if first is None or not isinstance(size, int):
                raise semantic.error(
                    f"{what}: {role} is a region of '{buffer.name}' whose extent along dim "
                    f"{axis} is not a Python int; slice it with static bounds")
            extent = size - first
        dims.append(extent)
        if extent != 1:
            axes.append(axis)
            shape.append(extent)
    return View(buffer, tuple(offsets), tuple(axes), tuple(shape), tuple(dims))


def is_tile(x: object) -> bool:
    return isinstance(x, BufferRegion) or (isinstance(x, Buffer) and not isinstance(x, Var))


def scalar_operand(x: object, what: str, role: str) -> Value:
    if isinstance(x, Expr):  # a Scalar, a T.alloc_var, a symbolic dim: its value
        return semantic.operand(x, what)
    if isinstance(x, int | float) and not isinstance(x, bool):
        return x
    raise semantic.error(f"{what}: {role} must be a tile, a region of one or a scalar but "
                         f"got {x!r}")


def same_shape(what: str, dst: View, role: str, src: View) -> None:
    if src.shape != dst.shape:
        raise semantic.error(
            f"{what}: {role} ('{src.buffer.name}', {shape_text(src)}) must have the shape of dst "
            f"('{dst.buffer.name}', {shape_text(dst)}), unit dims aside")


def shape_text(view: View) -> str:
    return "x".join(map(str, view.dims)) or "1"


def flat(x: object, what: str, role: str) -> View:
    """`x` as a 1-D view: a tile of any shape in row-major order, or a region of one
    with one dim of extent above 1 (the vendor's calls take a tile's address and
    count its elements)."""
    if isinstance(x, Buffer) and not isinstance(x, Var) and x.ndim > 1:
        shape = x.static_shape
        if shape is not None:
            row = semantic.reshape(x, (math.prod(shape),), None, what)
            row.name = x.name  # the user's tile, in messages
            x = row
    flat_view = view(x, what, role)
    if len(flat_view.shape) > 1:
        raise semantic.error(f"{what}: {role} ('{flat_view.buffer.name}', "
                             f"{shape_text(flat_view)}) must be a whole tile or a region of "
                             "one with one dim above 1, as tilelang-ascend passes its address")
    return flat_view
