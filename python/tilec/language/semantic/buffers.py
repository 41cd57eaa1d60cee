"""Buffers: the kernel's tensors, views of them, and what subscripts mean.

`buf[i, j]` reads an element (which a tile op can also take as the start of a
region), `buf[i, j] = x` stores one, and slices name a region whose extent
the other side of a copy gives. The kernel's own tensors (T.empty outputs,
T.Tensor views of `buf.data`) are declared here too, as is what a tile op
accepts as a whole tile.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from weakref import WeakKeyDictionary

from mlir import ir

from .. import builder
from .. import values as v
from ..builder import Trace
from ..dtypes import index
from ..source import assigned_name, site
from .checks import describe, error, format_shape, python_int
from .placement import check_buffer, require_function_body, require_kernel, require_trace
from .scalars import (
    affine_of,
    as_dtype,
    converted,
    derived_value,
    index_value,
    literal,
    operand,
    scalar,
    symbolic_dims,
)

# The tensors each trace declared with T.empty, in order: the kernel's outputs.
_outputs: WeakKeyDictionary[Trace, list[v.Buffer]] = WeakKeyDictionary()


def outputs(trace: Trace) -> list[v.Buffer]:
    return _outputs.setdefault(trace, [])


def empty(shape: object, dtype_name: object) -> v.Buffer:
    """`C = T.empty(shape, dtype)`: an output tensor, a new last parameter of the kernel.

    As in TileLang the kernel returns it (`return C`); the caller allocates it
    (the runtime's `out_idx`), so its dims are Python ints, dims of the input
    tensors or expressions of these made outside the kernel's body
    (`T.ceildiv(K, 128)`).
    """
    what = "T.empty"
    trace = require_function_body(what, "declares an output tensor of the kernel")
    dims: list[v.Dim] = []
    for axis, d in enumerate(shape if isinstance(shape, tuple | list) else (shape,)):
        size = python_int(d, f"{what} dim {axis}")
        if isinstance(d, str) and d in symbolic_dims(trace):
            d = v.SymbolicDim(d)
        if isinstance(d, v.SymbolicDim) and d.name in symbolic_dims(trace):
            dims.append(d)
        elif isinstance(d, v.DimExpr) and set(d.symbols()) <= symbolic_dims(trace).keys():
            # The caller computes it as the kernel does (`T.ceildiv(K, 128)`).
            symbolic_dims(trace)[d.name] = derived_value(d)
            dims.append(d)
        elif size is not None and size >= 0:
            dims.append(size)
        else:
            raise error(
                f"{what}: dim {axis} must be a Python int or a dim of an input tensor (a "
                "T.symbolic name, or an expression of them made outside the kernel's body), so "
                f"that the caller can allocate it, but got {describe(d)}"
            )
    dtype = as_dtype(dtype_name, what)
    here = site()
    name = assigned_name(here) or f"output {len(outputs(trace))}"
    names = [str(d) if isinstance(d, int) else d.name for d in dims]
    attrs: dict[str, builder.Hint] = {"name": name, "dims": names, "output": ir.UnitAttr.get()}
    if dtype.is_unsigned:
        attrs["dtype"] = dtype.name
    value = builder.add_parameter([d if isinstance(d, int) else None for d in dims], dtype, attrs)
    buffer = v.Buffer(value, tuple(dims), dtype, "global", name, trace.current, here)
    outputs(trace).append(buffer)
    return buffer


def view(shape: object, dtype_name: object, data: object) -> v.Buffer:
    """`T.Tensor(shape, dtype, buf.data)`: `buf`, which is contiguous, with another shape
    (TileLang's flattened views of a tensor, e.g. (KH, KW, C, F) as (KH * KW * C, F))."""
    what = "T.Tensor with data"
    trace = require_trace(what)
    if not isinstance(data, v.BufferData):
        raise error(f"{what}: data must be the .data of a buffer but got {describe(data)}")
    buffer = data.buffer
    check_buffer(buffer)
    dtype = as_dtype(dtype_name, what)
    if dtype != buffer.dtype:
        raise error(
            f"{what}: '{buffer.name}' is {buffer.dtype}, so its view must be {buffer.dtype} "
            f"but is {dtype}; T.copy into a tile to convert"
        )
    here = site()
    name = assigned_name(here) or f"view of '{buffer.name}'"
    dims: list[v.Dim] = []
    sizes: list[int | ir.Value] = []
    for axis, d in enumerate(shape if isinstance(shape, tuple | list) else (shape,)):
        size = python_int(d, f"{what} dim {axis}")
        if size is not None:
            if size < 0:
                raise error(f"{what}: dim {axis} must not be negative but got {size}")
            dims.append(size)
            sizes.append(size)
            continue
        value = index_value(d, f"{what} dim {axis}")
        # A dim computed at run time gets a name of its own, like a T.symbolic dim.
        named = d if isinstance(d, v.SymbolicDim) else v.SymbolicDim(f"{name}.shape[{axis}]")
        symbolic_dims(trace).setdefault(named.name, scalar(value, index))
        dims.append(named)
        sizes.append(value)
    old, new = buffer.static_shape, tuple(d for d in dims if isinstance(d, int))
    if old is not None and len(new) == len(dims) and math.prod(old) != math.prod(new):
        raise error(
            f"{what}: '{buffer.name}' has {math.prod(old)} elements {format_shape(old)} but "
            f"the view has {math.prod(new)} {format_shape(new)}"
        )
    value = builder.reshape(buffer.value, sizes)
    return v.Buffer(value, tuple(dims), dtype, buffer.scope, name, trace.current, here)


def reshape(src: object, shape: object, dtype_name: object, what: str) -> v.Buffer:
    """T.reshape / T.view: a view of buffer `src` (its own shape and dtype by default)."""
    if not isinstance(src, v.Buffer):
        raise error(f"{what} needs a buffer but got {describe(src)}")
    return view(
        src.shape if shape is None else shape, src.dtype if dtype_name is None else dtype_name,
        src.data,
    )


def check_result(trace: Trace, result: object) -> None:
    """What a kernel function returns: nothing, or its T.empty outputs in their order."""
    declared = outputs(trace)
    returned = list(result) if isinstance(result, tuple | list) else [result]
    if result is None and not declared:
        return
    if not declared:
        raise error(
            "a kernel returns nothing, or the tensors it declares with T.empty: write its "
            "results into T.Tensor parameters"
        )
    if len(returned) != len(declared) or any(
        a is not b for a, b in zip(returned, declared, strict=True)
    ):
        expected = ", ".join(b.name for b in declared)
        raise error(
            f"a kernel with T.empty outputs returns them all, in the order they are declared: "
            f"return {expected}"
        )


def store_var(var: v.Var, value: object) -> v.Var:
    """`x = value` or `x += ...` on a T.alloc_var: stores, converting as a store does."""
    store(var, 0, value)
    return var


def stores_into(var: v.Var, value: object) -> bool:
    """Whether `name = value` in a kernel stores into the T.alloc_var the name holds.

    As in TileLang it does, unless `value` is a buffer (then the name is
    bound to it, as Python binds) or the variable is out of scope. Another
    T.alloc_var is a value here: `a = b` stores b's value into a, which a loop
    that carries `a` into its next iteration relies on.
    """
    if isinstance(value, v.Buffer) and not isinstance(value, v.Var):
        return False
    return var.home.trace is builder.active() and var.home.is_open


def _subscripts(buffer: v.Buffer, key: object) -> tuple[object, ...]:
    subscripts = key if isinstance(key, tuple) else (key,)
    if len(subscripts) != buffer.ndim:
        raise error(
            f"buffer '{buffer.name}' has {buffer.ndim} dims but is indexed with "
            f"{len(subscripts)} subscripts"
        )
    return subscripts


def _element_indices(buffer: v.Buffer, subscripts: Sequence[object]) -> list[ir.Value]:
    indices = []
    for axis, (subscript, size) in enumerate(zip(subscripts, buffer.shape, strict=True)):
        if isinstance(subscript, slice):
            raise error(
                f"buffer '{buffer.name}': a slice selects a region, which can only be copied "
                "(T.copy) or added (T.atomic_add); index elements one by one in T.Parallel"
            )
        if isinstance(subscript, int) and isinstance(size, int) and not 0 <= subscript < size:
            raise error(
                f"index {subscript} is out of bounds for dim {axis} of buffer "
                f"'{buffer.name}' (size {size})"
            )
        indices.append(index_value(subscript, f"index {axis} of buffer '{buffer.name}'"))
    return indices


def _region(buffer: v.Buffer, subscripts: Sequence[object]) -> v.BufferRegion:
    offsets, sliced, extents = [], [], []
    for axis, subscript in enumerate(subscripts):
        what = f"index {axis} of buffer '{buffer.name}'"
        if not isinstance(subscript, slice):
            offsets.append(index_value(subscript, what))
            sliced.append(False)
            extents.append(None)
            continue
        if subscript.step is not None:
            raise error(f"{what}: slices with a step are not supported")
        start = 0 if subscript.start is None else subscript.start
        offsets.append(index_value(start, what))
        sliced.append(True)
        extent = None
        if subscript.stop is not None:
            begin = affine_of(operand(start, what))
            end = affine_of(operand(subscript.stop, what))
            difference = None if begin is None or end is None else end.plus(begin, -1)
            if difference is None or difference.terms:
                raise error(
                    f"{what}: cannot tell the extent of this slice; write only its start "
                    f"(A[start:]) and let the other side of the copy give the extent"
                )
            extent = difference.const
        extents.append(extent)
    return v.BufferRegion(buffer, tuple(offsets), tuple(sliced), tuple(extents))


def subscript(buffer: v.Buffer, key: object) -> v.Element | v.BufferRegion:
    require_kernel(f"indexing buffer '{buffer.name}'")
    check_buffer(buffer)
    subscripts = _subscripts(buffer, key)
    if any(isinstance(s, slice) for s in subscripts):
        return _region(buffer, subscripts)
    indices = _element_indices(buffer, subscripts)
    region = v.BufferRegion(buffer, tuple(indices), (False,) * buffer.ndim, (None,) * buffer.ndim)
    trace = require_trace("indexing")
    return v.Element(builder.load(buffer.value, indices), region, trace.current)


def store(buffer: v.Buffer, key: object, value: object) -> None:
    require_kernel(f"writing to buffer '{buffer.name}'")
    check_buffer(buffer)
    indices = _element_indices(buffer, _subscripts(buffer, key))
    stored = converted(value, buffer.dtype, f"storing into buffer '{buffer.name}'")
    builder.store(stored.value, buffer.value, indices)


def release(x: object) -> None:
    """Erases the load of an Element that was only used to name a region."""
    if isinstance(x, v.Element) and not x.released and not list(x.value.uses):
        x.load.erase()
        x.released = True


def offsets_of(side: v.Buffer | v.BufferRegion, value: ir.Value | None = None) -> list[ir.Value]:
    """The start of `side`: a region's offsets, or zeros for a whole buffer (or for
    `value`, a view of it in another rank)."""
    if isinstance(side, v.BufferRegion):
        return list(side.offsets)
    rank = len(side.shape) if value is None else ir.MemRefType(value.type).rank
    return [literal(0, index, "an offset").value for _ in range(rank)]


def whole_tile(x: object, what: str, role: str) -> v.Buffer:
    if isinstance(x, v.Element | v.BufferRegion):
        raise error(
            f"{what}: {role} must be a whole tile, not a region; T.copy the region into a "
            "tile first"
        )
    if not isinstance(x, v.Buffer):
        raise error(f"{what}: {role} must be a buffer but got {describe(x)}")
    check_buffer(x)
    return x


def on_chip(x: object, what: str, role: str) -> v.Buffer:
    tile = whole_tile(x, what, role)
    if tile.scope == "global":
        raise error(
            f"{what}: {role} ('{tile.name}') must be an on-chip tile but is a global tensor; "
            "T.copy it into a fragment first"
        )
    return tile
