"""Allocation: tiles (`T.alloc_shared`, `T.alloc_fragment`, ...), variables and
global workspaces, in the scopes each target maps.

Tile shapes are static, so every dim is checked to be a positive Python int
here; the scope names are TileLang's, and the Ascend buffers only the ascend
target has.
"""

from __future__ import annotations

from mlir import ir

from tilec.dialects.tile import Scope
from tilec.targets.description import ASCEND_BUFFER_SCOPES, PORTABLE_SCOPES

from ... import builder
from ... import values as v
from ...source import assigned_name, site
from ..buffers import store_var
from ..checks import describe, error, python_int
from ..placement import require_function_body, require_tile_context
from ..scalars import as_dtype, dim_value

# On-chip scope names, in the dialect's enum order, as the target
# descriptions split them: portable ones every target maps, and the Ascend
# buffers that only the ascend target has.
GENERIC_SCOPES = tuple(str(s) for s in sorted(PORTABLE_SCOPES - {Scope.global_}))
ASCEND_SCOPES = tuple(str(s) for s in sorted(ASCEND_BUFFER_SCOPES))


def static_shape(shape: object, what: str) -> tuple[int, ...]:
    dims = shape if isinstance(shape, tuple | list) else (shape,)
    if not dims:
        raise error(f"{what}: a tile needs at least one dim")
    sizes = []
    for axis, d in enumerate(dims):
        size = python_int(d, f"{what} dim {axis}")
        if size is None:
            raise error(
                f"{what}: tile shapes are static, so dim {axis} must be a Python int but got "
                f"{describe(d)}"
            )
        if size <= 0:
            raise error(f"{what}: dim {axis} must be positive but got {size}")
        sizes.append(size)
    return tuple(sizes)


def alloc(
    shape: object, dtype_name: object, scope: str, what: str, kind: type[v.Buffer] = v.Buffer
) -> v.Buffer:
    trace = require_tile_context(what)
    dims = static_shape(shape, what)
    dtype = as_dtype(dtype_name, what)
    here = site()
    value = builder.alloc(dims, dtype, scope)
    name = assigned_name(here) or f"{scope} tile of line {here.line}"
    return kind(value, dims, dtype, scope, name, trace.current, here)


# TileLang's scope names, as the DSL's scopes. An allocation takes any of them, as
# in TileLang (`T.alloc_fragment(shape, dtype, scope="shared")` is a shared tile).
TILELANG_SCOPES = {
    "shared.dyn": "shared",
    "shared": "shared",
    "local.fragment": "fragment",
    "local": "local",
    "local.var": "local",
}


def tilelang_scope(scope: object, what: str) -> str:
    if not isinstance(scope, str) or scope not in TILELANG_SCOPES:
        names = ", ".join(map(repr, TILELANG_SCOPES))
        raise error(
            f"{what}: unknown scope {scope!r}; expected one of {names} (T.alloc(shape, dtype, "
            "scope) takes the DSL's scope names, the Ascend ones too)"
        )
    return TILELANG_SCOPES[scope]


def alloc_var(dtype: object, args: tuple[object, ...], scope: object, init: object) -> v.Var:
    """T.alloc_var with TileLang's arguments: `(dtype, init)`, `(dtype, scope)`,
    `(dtype, init, scope)`, or `scope=` and `init=` by keyword."""
    what = "T.alloc_var"
    if len(args) > 2:
        raise error(f"{what} takes at most 3 positional arguments but got {len(args) + 1}")
    if len(args) == 2:
        if init is not None:
            raise error(f"{what}: the initial value is given twice")
        init, scope = args
    elif len(args) == 1 and isinstance(args[0], str):
        scope = args[0]
    elif len(args) == 1:
        if init is not None:
            raise error(f"{what}: the initial value is given twice")
        init = args[0]
    if tilelang_scope(scope, what) != "local":
        raise error(f"{what}: a variable is local, so scope must be 'local.var' or 'local'")
    var = alloc((1,), dtype, "local", what, v.Var)
    assert isinstance(var, v.Var)
    if init is not None:
        store_var(var, init)
    return var


def alloc_global(shape: object, dtype_name: object, scope: object) -> v.Buffer:
    """A global workspace that the kernels of the function share (TileLang's
    `T.alloc_global`, e.g. the partial results of a split-K pass)."""
    what = "T.alloc_global"
    trace = require_function_body(what, "allocates global memory for the whole function")
    if scope != "global":
        raise error(f"{what}: scope must be 'global' but got {scope!r}")
    dims: list[v.Dim] = []
    sizes: list[int | ir.Value] = []
    for axis, d in enumerate(shape if isinstance(shape, tuple | list) else (shape,)):
        size = python_int(d, f"{what} dim {axis}")
        if isinstance(d, v.SymbolicDim):
            dims.append(d)
            sizes.append(dim_value(d).value)
        elif size is not None and size >= 0:
            dims.append(size)
            sizes.append(size)
        else:
            raise error(
                f"{what}: dim {axis} must be a Python int or a symbolic dim but got {describe(d)}"
            )
    dtype = as_dtype(dtype_name, what)
    here = site()
    name = assigned_name(here) or f"global workspace of line {here.line}"
    value = builder.alloc_global(sizes, dtype)
    return v.Buffer(value, tuple(dims), dtype, "global", name, trace.current, here)
