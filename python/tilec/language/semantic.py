"""The semantic layer: what each DSL call means, and whether it is legal.

Every rule of the DSL lives here, with the error a user sees when a kernel
breaks it: where an op may appear (tile ops inside `T.Kernel` but not inside
`T.Parallel`, ...), which values are still in scope, how operands of mixed
types combine, and the shape, dtype and scope rules of the tile ops. Checks
run before any op is built, so the messages speak about the user's program
("T.gemm: B must be 32x64 ...") rather than about the IR. Ops are then
created through `builder`.

Type rules for scalar operators:
- Python ints and floats take the dtype of the other operand; a float with
  an integer value computes in float32.
- Two integer values combine as `index` if either is `index`, else as the
  wider integer type (the unsigned one of two of a width, as in C).
- Two float values combine as the wider type (float16 with bfloat16 gives
  float32); float16 arithmetic stays float16, as written.
- An integer value with a float value is converted to the float type, as in
  TileLang (TVM); booleans mix with nothing but booleans.
- What is stored (`buf[i] = x`, T.fill, T.atomic_add) converts to the
  destination's element type, as TileLang's stores do.
- A condition (`if`, `and`, `or`, `not`) is a boolean, or a number that is
  true when not zero, as in Python.

The classes of `values` and `dtypes` are plain data below this layer; the
last section of this module gives them their Python operators, subscripts
and calls, which are these rules.
"""

from __future__ import annotations

import math
import numbers
import operator
from collections.abc import Callable, Sequence
from itertools import count
from typing import NoReturn
from weakref import WeakKeyDictionary

from mlir import ir

from tilec.dialects.tile import Scope
from tilec.targets.description import ASCEND_BUFFER_SCOPES, PORTABLE_SCOPES

from . import builder
from . import values as v
from .builder import OpenRegion, RegionKind, Trace
from .dtypes import BY_NAME, DType, boolean, float32, index, parse_dtype
from .errors import DSLError
from .hints import Fragment, GemmWarpPolicy, Layout
from .source import assigned_name, dsl_api, site
from .threads import ARRIVE_COUNT
from .threads import distribute as distribute_threads

# On-chip scope names, in the dialect's enum order, as the target
# descriptions split them: portable ones every target maps, and the Ascend
# buffers that only the ascend target has.
GENERIC_SCOPES = tuple(str(s) for s in sorted(PORTABLE_SCOPES - {Scope.global_}))
ASCEND_SCOPES = tuple(str(s) for s in sorted(ASCEND_BUFFER_SCOPES))
# Element types a tile.gemm accepts for A and B, and the accumulators for each.
GEMM_ACCUMULATORS = {
    "float16": ("float32", "float16"),
    "bfloat16": ("float32",),
    "float32": ("float32",),
    "float8_e4m3": ("float32",),
    "float8_e5m2": ("float32",),
    "int8": ("int32",),
}


def error(message: str) -> DSLError:
    """A DSLError at the user line of the current DSL call."""
    return DSLError(message, site())


# -- where things may appear --------------------------------------------------


def require_trace(what: str) -> Trace:
    trace = builder.active()
    if trace is None:
        raise error(f"{what} can only be used inside the body of a @T.prim_func kernel")
    if trace.pending is not None:
        raise trace.pending
    return trace


def require_kernel(what: str) -> Trace:
    trace = require_trace(what)
    if trace.current.enclosing(RegionKind.KERNEL) is None:
        raise error(f"{what} must be inside a `with T.Kernel(...)` block")
    return trace


def require_tile_context(what: str) -> Trace:
    """Tile ops act on whole tiles: inside a kernel, outside element-wise loops."""
    trace = require_kernel(what)
    parallel = trace.current.enclosing(RegionKind.PARALLEL)
    if parallel is not None:
        raise error(
            f"{what} cannot be used inside T.Parallel (line {parallel.loc.line}), whose body "
            "is element-wise scalar code; move it out of the loop"
        )
    return trace


def close_region(region: OpenRegion, results: Sequence[ir.Value] = ()) -> None:
    trace = require_trace(region.kind.value)
    if trace.current is not region:
        raise error(
            f"{region.kind.value} at line {region.loc.line} ends while "
            f"{trace.current.kind.value} at line {trace.current.loc.line} is still open"
        )
    trace.close(region, results)


def abandon_region(region: OpenRegion) -> None:
    """A loop generator was closed before its body finished: `break` or `return`.

    Raising here would be lost (generators are closed by the garbage
    collector), so the error waits for the next DSL call or the end of the trace.
    """
    trace = region.trace
    if region.is_open and builder.active() is trace and trace.pending is None:
        trace.pending = DSLError(
            f"leaving {region.kind.value} with 'break' or 'return' cannot be traced: the loop "
            "body runs once, symbolically; compute a mask with T.if_then_else instead",
            region.loc,
        )


def check_visible(home: OpenRegion, what: str) -> None:
    """`what` was created in `home`, which must be open in the trace being built."""
    trace = require_trace(what)
    if home.trace is not trace:
        raise error(
            f"{what} belongs to another kernel; each @T.prim_func is traced on its own, so "
            "pass it as a parameter or create it inside this kernel"
        )
    if not home.is_open:
        hint = ""
        if home.kind in (RegionKind.THEN, RegionKind.ELSE):
            hint = (
                "; to use a value computed in a branch after the `if`, declare "
                "`x = T.alloc_var(dtype)` before it and assign to x in the branch"
            )
        raise error(
            f"{what} comes from the {home.kind.value} at line {home.loc.line} and cannot be "
            f"used after it ends{hint}"
        )


def python_int(x: object, what: str) -> int | None:
    """`x` as an int when it is a Python or numpy integer (not a bool, not symbolic).

    Such ints become sizes and attributes of the tile dialect, all 64-bit, so
    one that `index` cannot hold is an error here rather than in MLIR.
    """
    if isinstance(x, numbers.Integral) and not isinstance(x, bool):
        return check_fits(int(x), index, what)
    return None


def check_fits(value: int, dtype: DType, what: str) -> int:
    """`value`, which `dtype` must be able to hold.

    The one range check of the DSL: every Python int it turns into IR passes
    here, through `literal` (constants, bounds, offsets, grid sizes) or
    `python_int` (shapes, extents, attributes).
    """
    low, high = dtype.int_range
    if not low <= value <= high:
        raise error(f"{what}: {value} does not fit in {dtype} ({low} to {high})")
    return value


def _describe(x: object) -> str:
    if isinstance(x, v.Buffer):
        return f"buffer '{x.name}'"
    if isinstance(x, v.Scalar):
        return f"a {x.dtype} value"
    return f"{type(x).__name__} {x!r}"


# -- scalar operands ----------------------------------------------------------

Number = int | float


_atoms = count()


def _has_affine_forms(dtype: DType) -> bool:
    """Integers of 32 bits or more (`index`, int32 offsets read from a tensor): their sums
    and products are exact, or wrap alike on both sides of a slice, so the difference of
    a slice's bounds is the extent TVM's simplifier would prove too."""
    return dtype.is_integer and dtype.bits >= 32


def affine_of(x: v.Scalar | Number) -> v.Affine | None:
    """`x` as an affine form, when it is an integer (an atom unless it has a known form)."""
    if isinstance(x, bool) or not isinstance(x, int | v.Scalar):
        return None
    if isinstance(x, int):
        return v.Affine((), x)
    if not _has_affine_forms(x.dtype):
        return None
    if x.affine is None:
        atom = _load_atom(x) if isinstance(x, v.Element) else next(_atoms)
        x.affine = v.Affine((((atom,), 1),), 0)
    return x.affine


def _load_atom(x: v.Element) -> int:
    """The atom of an element of a global tensor read in the kernel, by the tensor and
    the indices: two reads of `cu_seqlens[b]` in one slice's bounds are one value (the
    tensors are the kernel's inputs), as TVM's simplifier takes them."""
    buffer = x.region.buffer
    if buffer.scope != "global":
        return next(_atoms)
    loaded = x.home.trace.loaded_atoms
    key = (buffer.value, *(_value_key(i) for i in x.region.offsets))
    if key not in loaded:
        loaded[key] = next(_atoms)
    return loaded[key]


def _value_key(value: ir.Value) -> object:
    """A constant index by its number (each use makes its own), another value by itself."""
    constant = builder.constant_int(value)
    return value if constant is None else constant


def _combine_affine(op: str, a: v.Scalar | Number, b: v.Scalar | Number) -> v.Affine | None:
    fa, fb = affine_of(a), affine_of(b)
    if fa is None or fb is None:
        return None
    if op == "+":
        return fa.plus(fb)
    if op == "-":
        return fa.plus(fb, -1)
    if op == "*":
        return fa.product(fb)
    if op == "//" and not fb.terms and fb.const > 0:
        # an exact division, such as tilelang-ascend's `vid * block_M // 2` (TVM's
        # simplifier proves the bounds of `A[r + vid * M // 2 : r + (vid + 1) * M // 2]` so)
        d = fb.const
        if fa.const % d == 0 and all(c % d == 0 for _, c in fa.terms):
            return v.Affine(tuple((m, c // d) for m, c in fa.terms), fa.const // d)
    return None


def operand(x: object, what: str) -> v.Scalar | Number:
    """A Scalar (visible here) or a Python number; symbolic dims and vars become their values."""
    if isinstance(x, v.SymbolicDim):
        return dim_value(x)
    if isinstance(x, v.Var):
        return var_value(x)
    if isinstance(x, v.Element) and x.released:
        raise error(
            f"{what}: this element of buffer '{x.region.buffer.name}' named the start of a "
            "region in a tile op; index the buffer again to read the element"
        )
    if isinstance(x, v.Scalar):
        check_visible(x.home, "this value")
        return x
    if isinstance(x, bool):
        return int(x)
    if isinstance(x, numbers.Integral):
        return int(x)
    if isinstance(x, numbers.Real):
        return float(x)
    if isinstance(x, v.BufferRegion):
        raise error(f"{what}: a sliced region A[a:b] is not a value; it can only be copied")
    raise error(f"{what} expects a number or a symbolic value but got {_describe(x)}")


# The value of each symbolic dim in a trace. One Scalar per dim, so that every
# use of `M` is the same affine atom; kept here because the builder's Trace
# holds no proxy values.
_dims: WeakKeyDictionary[Trace, dict[str, v.Scalar]] = WeakKeyDictionary()


def symbolic_dims(trace: Trace) -> dict[str, v.Scalar]:
    """The values of the symbolic dims in `trace` by name; the kernel binds them."""
    return _dims.setdefault(trace, {})


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
    trace = require_trace(what)
    if trace.current.kind is not RegionKind.FUNCTION:
        raise error(
            f"{what} declares an output tensor of the kernel: call it in the body of the "
            f"kernel function, before `with T.Kernel`, not inside {trace.current.kind.value}"
        )
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
                f"that the caller can allocate it, but got {_describe(d)}"
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
        raise error(f"{what}: data must be the .data of a buffer but got {_describe(data)}")
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
            f"{what}: '{buffer.name}' has {math.prod(old)} elements {_format_shape(old)} but "
            f"the view has {math.prod(new)} {_format_shape(new)}"
        )
    value = builder.reshape(buffer.value, sizes)
    return v.Buffer(value, tuple(dims), dtype, buffer.scope, name, trace.current, here)


def reshape(src: object, shape: object, dtype_name: object, what: str) -> v.Buffer:
    """T.reshape / T.view: a view of buffer `src` (its own shape and dtype by default)."""
    if not isinstance(src, v.Buffer):
        raise error(f"{what} needs a buffer but got {_describe(src)}")
    return view(
        src.shape if shape is None else shape, src.dtype if dtype_name is None else dtype_name,
        src.data,
    )


def alloc_global(shape: object, dtype_name: object, scope: object) -> v.Buffer:
    """A global workspace that the kernels of the function share (TileLang's
    `T.alloc_global`, e.g. the partial results of a split-K pass)."""
    what = "T.alloc_global"
    trace = require_trace(what)
    if trace.current.kind is not RegionKind.FUNCTION:
        raise error(
            f"{what} allocates global memory for the whole function: call it in the body of "
            f"the kernel function, before `with T.Kernel`, not inside {trace.current.kind.value}"
        )
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
                f"{what}: dim {axis} must be a Python int or a symbolic dim but got {_describe(d)}"
            )
    dtype = as_dtype(dtype_name, what)
    here = site()
    name = assigned_name(here) or f"global workspace of line {here.line}"
    value = builder.alloc_global(sizes, dtype)
    return v.Buffer(value, tuple(dims), dtype, "global", name, trace.current, here)


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


def dim_value(dim: v.SymbolicDim) -> v.Scalar:
    """The value of a symbolic dim in the kernel: bound by the tensor parameters that
    have it (see PrimFunc), or, for a dim expression that is no tensor's dim, computed
    here from the dims it uses."""
    if builder.active() is None:
        raise error(
            f"symbolic dim '{dim.name}' can only be used inside the body of a @T.prim_func "
            f"kernel, or in a T.Tensor dim as {DIM_OPERATIONS} of symbolic dims and ints"
        )
    trace = require_trace(f"symbolic dim '{dim.name}'")
    value = symbolic_dims(trace).get(dim.name)
    if value is None and isinstance(dim, v.DimExpr):
        return derived_value(dim)
    if value is None:
        raise error(
            f"symbolic dim '{dim.name}' is not a dim of any T.Tensor parameter of this kernel"
        )
    return value


# -- dims computed from symbolic dims -------------------------------------------
# TileLang's tensor shapes are expressions (`T.ceildiv(K, 128)`): outside a
# kernel's body, where a symbolic dim has no value yet, the integer operations
# on symbolic dims record the expression, a `DimExpr`, for a T.Tensor dim.

DIM_OPERATIONS = "+ - * // % T.ceildiv T.min T.max"


def _has_dim(*operands: object) -> bool:
    return any(isinstance(x, v.SymbolicDim) for x in operands)


def _dim_arithmetic(op: str, *operands: object) -> bool:
    """Whether `op` on `operands` makes a dim expression: outside a kernel's body on
    symbolic dims; and in the body before `T.Kernel` (where `T.empty` takes it as a dim
    the caller computes) when the operands are symbolic dims and ints only."""
    if not _has_dim(*operands):
        return False
    trace = builder.active()
    if trace is None:
        return True
    if op not in v.DimExpr.PRECEDENCE and op not in v.DimExpr.CALLS:
        return False
    at_top = trace.current is not None and trace.current.kind is RegionKind.FUNCTION
    return at_top and all(isinstance(x, v.SymbolicDim) or
                          (isinstance(x, int) and not isinstance(x, bool)) for x in operands)


def dim_expression(op: str, lhs: object, rhs: object, what: str) -> v.DimExpr:
    """`lhs op rhs` on symbolic dims and ints outside a kernel: the dim expression."""
    if op not in v.DimExpr.PRECEDENCE and op not in v.DimExpr.CALLS:
        raise error(
            f"{what} on symbolic dims outside a kernel: a T.Tensor dim computed from symbolic "
            f"dims may use {DIM_OPERATIONS} on them and on ints"
        )
    operands: list[int | v.SymbolicDim] = []
    for x in (lhs, rhs):
        size = python_int(x, what)
        if not isinstance(x, v.SymbolicDim) and size is None:
            raise error(
                f"{what} on symbolic dims outside a kernel: a T.Tensor dim is computed from "
                f"symbolic dims and Python ints, but got {_describe(x)}"
            )
        operands.append(x if size is None else size)
    if op in ("//", "%", "ceildiv") and isinstance(operands[1], int):
        check_divisor(operands[1], what)
    return v.DimExpr(op, (operands[0], operands[1]))


def derived_value(dim: v.DimExpr) -> v.Scalar:
    """The value of a dim expression, computed as the same expression written in the
    kernel's body would be: from the values of the dims it uses."""
    lhs, rhs = (dim_value(x) if isinstance(x, v.SymbolicDim) else x for x in dim.operands)
    value = ceildiv(lhs, rhs) if dim.op == "ceildiv" else binary(dim.op, lhs, rhs)
    assert isinstance(value, v.Scalar), "a dim expression uses a symbolic dim"
    return value


def var_value(var: v.Var) -> v.Scalar:
    """The current value of a T.alloc_var."""
    require_kernel(f"reading variable '{var.name}'")
    check_buffer(var)
    return scalar(builder.load(var.value, [literal(0, index, "an index").value]), var.dtype)


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


def scalar(value: ir.Value, dtype: DType) -> v.Scalar:
    return v.Scalar(value, dtype, require_trace("a value").current)


def literal(x: Number, dtype: DType, what: str) -> v.Scalar:
    """The Python number `x` as a constant of `dtype`."""
    if isinstance(x, float) and not dtype.is_float:
        raise error(
            f"{what}: the float {x!r} cannot be used as {dtype}; write an int, or convert the "
            f'other side with T.cast(x, "float32")'
        )
    if dtype.kind == "bool" and x not in (0, 1):
        raise error(f"{what}: {x!r} is not a boolean")
    if not dtype.is_float:
        check_fits(int(x), dtype, what)
    result = scalar(builder.constant(dtype, x), dtype)
    if _has_affine_forms(dtype):
        result.affine = v.Affine((), int(x))
    return result


def promoted_dtype(a: DType, b: DType, what: str) -> DType:
    if a == b:
        return a
    if a.kind == "bool" or b.kind == "bool":
        raise error(
            f"{what}: cannot combine {a} with {b}; convert the boolean with "
            f'T.cast(x, "{b if a.kind == "bool" else a}")'
        )
    if a.is_float and b.is_float:
        return a if a.bits > b.bits else b if b.bits > a.bits else float32
    if a.is_integer and b.is_integer:
        if index in (a, b):
            return index
        if a.bits == b.bits:  # signed with unsigned: unsigned, as in C
            return a if a.is_unsigned else b
        return a if a.bits > b.bits else b
    # An integer with a float computes in the float type, as in TileLang (TVM).
    return a if a.is_float else b


def unify(a: object, b: object, what: str) -> tuple[v.Scalar, v.Scalar, DType]:
    """Both operands as Scalars of one dtype, by the rules in the module docstring."""
    x, y = operand(a, what), operand(b, what)
    if not isinstance(x, v.Scalar) and not isinstance(y, v.Scalar):
        dtype = float32 if isinstance(x, float) or isinstance(y, float) else index
        return literal(x, dtype, what), literal(y, dtype, what), dtype
    if not isinstance(x, v.Scalar):
        assert isinstance(y, v.Scalar)
        a, b, dtype = unify(y, x, what)
        return b, a, dtype
    if not isinstance(y, v.Scalar):
        if isinstance(y, float) and x.dtype.is_integer:
            # A float constant with an integer value computes in float32, as in TVM.
            return convert(x, float32), literal(y, float32, what), float32
        return x, literal(y, x.dtype, what), x.dtype
    dtype = promoted_dtype(x.dtype, y.dtype, what)
    return convert(x, dtype), convert(y, dtype), dtype


def convert(x: v.Scalar, dtype: DType) -> v.Scalar:
    if x.dtype == dtype:
        return x
    return scalar(builder.convert(x.value, x.dtype, dtype), dtype)


_PYTHON_BINARY: dict[str, Callable[[Number, Number], Number]] = {
    "+": operator.add,
    "-": operator.sub,
    "*": operator.mul,
    "/": operator.truediv,
    "//": operator.floordiv,
    "%": operator.mod,
    "&": operator.and_,
    "|": operator.or_,
    "^": operator.xor,
    "<<": operator.lshift,
    ">>": operator.rshift,
    "max": max,
    "min": min,
}


def binary(op: str, lhs: object, rhs: object) -> v.Scalar | v.DimExpr | Number:
    """`lhs op rhs` for the arithmetic and bit operators, `max` and `min`.

    Two Python numbers are combined by Python: they are constants of the trace.
    `//` and `%` are Python's floor division and its remainder, on integers
    and (unlike TileLang, whose floormod takes integers only) on floats, as
    numpy's floor_divide and mod. By an integer zero known at run time both
    give what the target defines for division: 0 on cpu (as numpy), so
    `x % 0` is 0, not x; by a float zero, `%` is NaN and `//` is `x / 0`.
    Outside a kernel's body, on symbolic dims, it is a `DimExpr`.
    """
    what = f"'{op}'" if op not in ("max", "min") else f"T.{op}"
    if _dim_arithmetic(op, lhs, rhs):
        return dim_expression(op, lhs, rhs, what)
    x, y = operand(lhs, what), operand(rhs, what)
    if not isinstance(x, v.Scalar) and not isinstance(y, v.Scalar):
        return _PYTHON_BINARY[op](x, y)
    a, b, dtype = unify(x, y, what)
    if op in ("&", "|", "^"):
        if dtype.is_float:
            raise error(f"{what} needs integer or boolean operands but got {dtype}")
        return scalar(builder.binary(op, a.value, b.value, dtype=dtype), dtype)
    if op in ("<<", ">>") and dtype.is_float:
        raise error(f"{what} needs integer operands but got {dtype}")
    if dtype.kind == "bool":
        raise error(f'{what} on booleans: use & | ^ to combine conditions, or T.cast(x, "int32")')
    if op == "/" and not dtype.is_float:
        raise error(
            f"'/' on {dtype} operands: use '//' for floor division, or convert to a float "
            'type with T.cast(x, "float32")'
        )
    if op in ("//", "%") and not dtype.is_float:
        check_divisor(b, what)
    if op == "%":
        return scalar(builder.floor_mod(a.value, b.value, dtype=dtype), dtype)
    if op == "//" and dtype.is_float:
        return scalar(builder.float_floor_div(a.value, b.value, dtype=dtype), dtype)
    result = scalar(builder.binary(op, a.value, b.value, dtype=dtype), dtype)
    if _has_affine_forms(dtype):
        result.affine = _combine_affine(op, x, y)
    return result


def check_divisor(divisor: v.Scalar | Number, what: str) -> None:
    """An integer division by a constant zero is a mistake the trace can see.

    arith leaves it undefined, so it would compile to whatever the target
    does; a divisor that is zero only at run time is the target's to handle.
    """
    if isinstance(divisor, v.Scalar):
        zero = builder.constant_int(divisor.value) == 0
    else:
        zero = divisor == 0
    if zero:
        raise error(f"{what}: integer division by zero")


def compare(op: str, lhs: object, rhs: object) -> v.Scalar:
    a, b, dtype = unify(lhs, rhs, f"'{op}'")
    return scalar(builder.compare(op, a.value, b.value, dtype=dtype), boolean)


def truth(x: object, what: str) -> v.Scalar | bool:
    """`x` as a condition: a Python bool for a Python value, a boolean value for a symbolic one.

    As in Python, a number is true when it is not zero.
    """
    if not isinstance(x, v.Expr):
        return bool(x)
    a = operand(x, what)
    assert isinstance(a, v.Scalar)
    return a if a.dtype.kind == "bool" else compare("!=", a, 0)


def negate(x: object) -> v.Scalar:
    a = operand(x, "unary '-'")
    assert isinstance(a, v.Scalar)
    if a.dtype.kind == "bool":
        raise error("unary '-' on a boolean: use ~ to negate a condition")
    if a.dtype.is_float:
        return scalar(builder.float_unary("neg", a.value), a.dtype)
    return binary("-", 0, a)


def invert(x: object) -> v.Scalar:
    a = operand(x, "'~'")
    assert isinstance(a, v.Scalar)
    if a.dtype.is_float:
        raise error(f"'~' needs an integer or boolean operand but got {a.dtype}")
    # All bits set: 1 for a bool, -1 for a signed integer, the maximum for an unsigned one.
    ones = a.dtype.int_range[1] if a.dtype.kind in ("bool", "uint") else -1
    return binary("^", a, ones)


_PYTHON_UNARY: dict[str, Callable[[float], float]] = {
    "exp": math.exp,
    "exp2": lambda x: 2.0**x,
    "log": math.log,
    "log2": math.log2,
    "sqrt": math.sqrt,
    "rsqrt": lambda x: 1.0 / math.sqrt(x),
    "tanh": math.tanh,
    "floor": math.floor,
    "ceil": math.ceil,
}


def float_unary(name: str, x: object) -> v.Scalar | float:
    a = operand(x, f"T.{name}")
    if not isinstance(a, v.Scalar):
        return _PYTHON_UNARY[name](a)
    if not a.dtype.is_float:
        raise error(
            f"T.{name} needs a float operand but got {a.dtype}; convert it with "
            'T.cast(x, "float32")'
        )
    return scalar(builder.float_unary(name, a.value), a.dtype)


def absolute(x: object) -> v.Scalar | Number:
    a = operand(x, "T.abs")
    if not isinstance(a, v.Scalar):
        return abs(a)
    if a.dtype.is_float:
        return scalar(builder.float_unary("abs", a.value), a.dtype)
    if a.dtype.kind == "bool":
        raise error("T.abs needs a number but got a boolean")
    if a.dtype.is_unsigned:
        return a
    return scalar(builder.int_abs(a.value), a.dtype)


def select(condition: object, true_value: object, false_value: object) -> v.Scalar | Number:
    cond = operand(condition, "T.if_then_else")
    if not isinstance(cond, v.Scalar):
        return operand(true_value if cond else false_value, "T.if_then_else")
    if cond.dtype.kind != "bool":
        raise error(f"T.if_then_else needs a boolean condition (a comparison) but got {cond.dtype}")
    a, b, dtype = unify(true_value, false_value, "T.if_then_else")
    return scalar(builder.select(cond.value, a.value, b.value), dtype)


def as_dtype(value: object, what: str) -> DType:
    dtype = parse_dtype(value)
    if dtype is None:
        raise error(
            f"{what}: unknown dtype {value!r}; expected one of {', '.join(BY_NAME)} "
            "(or T.float32, ...)"
        )
    return dtype


def cast(x: object, dtype_name: object) -> v.Scalar:
    dtype = as_dtype(dtype_name, "T.cast")
    a = operand(x, "T.cast")
    if not isinstance(a, v.Scalar):
        return literal(a if dtype.is_float else int(a), dtype, "T.cast")
    return convert(a, dtype)


def reinterpret(dtype_name: object, x: object) -> v.Scalar:
    """TileLang's `T.reinterpret(dtype, value)`: the bits of a scalar read as `dtype`."""
    what = "T.reinterpret"
    dtype = as_dtype(dtype_name, what)
    a = operand(x, what)
    if not isinstance(a, v.Scalar):
        raise error(f"{what} needs a typed value (a tile element or a T.cast of a number), "
                    f"not the Python number {a!r}, whose width is unknown")
    if a.dtype.bits != dtype.bits or index in (a.dtype, dtype):
        raise error(f"{what}: {a.dtype} and {dtype} have different widths; T.cast converts "
                    "values between them")
    if a.dtype == dtype:
        return a
    return scalar(builder.bitcast(a.value, dtype), dtype)


def ceildiv(lhs: object, rhs: object) -> v.Scalar | v.DimExpr | int:
    if _dim_arithmetic("ceildiv", lhs, rhs):
        return dim_expression("ceildiv", lhs, rhs, "T.ceildiv")
    x, y = operand(lhs, "T.ceildiv"), operand(rhs, "T.ceildiv")
    if not isinstance(x, v.Scalar) and not isinstance(y, v.Scalar):
        if isinstance(x, float) or isinstance(y, float):
            raise error("T.ceildiv needs integer operands")
        check_divisor(y, "T.ceildiv")
        return -(-x // y)
    a, b, dtype = unify(x, y, "T.ceildiv")
    if not dtype.is_integer:
        raise error(f"T.ceildiv needs integer operands but got {dtype}")
    check_divisor(b, "T.ceildiv")
    return scalar(builder.binary("ceildiv", a.value, b.value, dtype=dtype), dtype)


def index_value(x: object, what: str) -> ir.Value:
    """An `index` value for a subscript, offset or bound (integer values are converted)."""
    a = operand(x, what)
    if not isinstance(a, v.Scalar):
        if isinstance(a, float):
            raise error(f"{what} must be an integer but got the float {a!r}")
        return literal(a, index, what).value
    if not a.dtype.is_integer:
        raise error(f"{what} must be an integer but got a {a.dtype} value")
    return convert(a, index).value


def converted(x: object, dtype: DType, what: str) -> v.Scalar:
    """`x` as a `dtype` value, converted as TileLang converts what is stored.

    A store, fill or atomic add casts its value to the element type of the
    destination (float32 into float16, int into float, float into int by
    truncation, numbers into bool by `!= 0`), so only the range of a Python
    number is checked.
    """
    a = operand(x, what)
    if isinstance(a, v.Scalar):
        return convert(a, dtype)
    if dtype.kind == "bool":
        return literal(int(a != 0), dtype, what)
    if isinstance(a, float) and not dtype.is_float:
        if not math.isfinite(a):
            raise error(f"{what}: the float {a!r} has no {dtype} value")
        return literal(int(a), dtype, what)
    return literal(a, dtype, what)


# -- buffers ------------------------------------------------------------------


def check_buffer(buffer: v.Buffer) -> None:
    check_visible(buffer.home, f"buffer '{buffer.name}'")


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


def _release(x: object) -> None:
    """Erases the load of an Element that was only used to name a region."""
    if isinstance(x, v.Element) and not x.released and not list(x.value.uses):
        x.load.erase()
        x.released = True


# -- tile ops -----------------------------------------------------------------


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
                f"{_describe(d)}"
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


def _family(scope: str) -> str:
    if scope == "global":
        return "global"
    return "generic" if scope in GENERIC_SCOPES else "ascend"


def _format_shape(shape: Sequence[object]) -> str:
    return (
        "("
        + ", ".join(str(d) if isinstance(d, int) else getattr(d, "name", "?") for d in shape)
        + ")"
    )


def _copy_side(x: object, role: str) -> v.Buffer | v.BufferRegion:
    if isinstance(x, v.Element):
        return x.region
    if isinstance(x, v.Buffer | v.BufferRegion):
        return x
    raise error(
        f"T.copy: {role} must be a buffer or a region such as A[i, j] but got {_describe(x)}"
    )


def _region_layout(
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
    sizes, laid_out = _region_layout(region, tile, tile_shape, what)
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
    if _flag(disable_tma, what, "disable_tma"):
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
                f"{what}: loop_layout must be a T.Fragment but got {_describe(loop_layout)}"
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
                f"static {_format_shape(tile.shape)}; copy into a tile instead"
            )
        view, sizes = _tile_for_region(region, tile, tile_shape)
        if isinstance(src, v.Buffer):
            src_value = view
        else:
            dst_value = view

    src_offsets = _offsets(src, src_value)
    dst_offsets = _offsets(dst, dst_value)
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
    _release(src_arg)
    _release(dst_arg)


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
            f"{_format_shape(extents)}"
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
            f"T.copy: the region of '{src.buffer.name}' has extents {_format_shape(src_sizes)} "
            f"but the region of '{dst.buffer.name}' has {_format_shape(dst_sizes)}"
        )
    # tile.copy's sizes have the higher rank; the other side drops its leading unit dims.
    high, low = sorted((src_sizes, dst_sizes), key=len, reverse=True)
    dropped = list(high)
    while len(dropped) > len(low) and dropped[0] == 1:
        dropped.pop(0)
    if dropped != low:
        raise error(
            f"T.copy: the regions of '{src.buffer.name}' {_format_shape(src_sizes)} and "
            f"'{dst.buffer.name}' {_format_shape(dst_sizes)} differ in more than leading unit "
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
            f"T.copy: '{src.name}' has shape {_format_shape(src.shape)} but '{dst.name}' has "
            f"{_format_shape(dst.shape)}; index one side (A[i, j]) to copy a region"
        )
    shape = src.static_shape
    if shape is None:
        raise error(
            f"T.copy between '{src.name}' and '{dst.name}': neither has a static shape to give "
            "the extent of the copy; copy through a tile"
        )
    return list(shape)


def _offsets(side: v.Buffer | v.BufferRegion, value: ir.Value | None = None) -> list[ir.Value]:
    """The start of `side`: a region's offsets, or zeros for a whole buffer (or for
    `value`, a view of it in another rank)."""
    if isinstance(side, v.BufferRegion):
        return list(side.offsets)
    rank = len(side.shape) if value is None else ir.MemRefType(value.type).rank
    return [literal(0, index, "an offset").value for _ in range(rank)]


def _whole_tile(x: object, what: str, role: str) -> v.Buffer:
    if isinstance(x, v.Element | v.BufferRegion):
        raise error(
            f"{what}: {role} must be a whole tile, not a region; T.copy the region into a "
            "tile first"
        )
    if not isinstance(x, v.Buffer):
        raise error(f"{what}: {role} must be a buffer but got {_describe(x)}")
    check_buffer(x)
    return x


def _flag(value: object, what: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise error(f"{what}: {name} must be a Python bool but got {_describe(value)}")
    return value


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
        raise error(f"{what}: k_pack must be a positive Python int but got {_describe(k_pack)}")
    if pack != 1:
        hints["k_pack"] = pack
    wait = python_int(wg_wait, f"{what}: wg_wait")
    if wait is None or wait < -1:
        raise error(
            f"{what}: wg_wait must be a Python int of at least -1 (no wait) but got "
            f"{_describe(wg_wait)}"
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
    ta = _flag(transpose_a, what, "transpose_A")
    tb = _flag(transpose_b, what, "transpose_B")
    clear = _flag(clear_accum, what, "clear_accum")
    a, b = (_gemm_operand(x, r) for x, r in ((a_arg, "A"), (b_arg, "B")))
    c = _gemm_operand(c_arg, "C", read=not clear)
    hints = _gemm_hints(policy, k_pack, wg_wait)
    for role, tile in (("A", a), ("B", b), ("C", c)):
        if tile.ndim != 2:
            raise error(
                f"{what}: {role} ('{tile.name}') must be 2-D but has shape "
                f"{_format_shape(tile.shape)}"
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
        return _whole_tile(x, what, role)
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


def _on_chip(x: object, what: str, role: str) -> v.Buffer:
    tile = _whole_tile(x, what, role)
    if tile.scope == "global":
        raise error(
            f"{what}: {role} ('{tile.name}') must be an on-chip tile but is a global tensor; "
            "T.copy it into a fragment first"
        )
    return tile


def _axis(dim: object, rank: int, what: str) -> int:
    axis = python_int(dim, f"{what}: dim")
    if axis is None:
        raise error(f"{what}: dim must be a Python int but got {_describe(dim)}")
    if not -rank <= axis < rank:
        raise error(f"{what}: dim {axis} is out of range for a {rank}-D tile")
    return axis % rank


def _widens(src: DType, dst: DType) -> bool:
    """Whether every `src` value is a `dst` value: a float into a wider float, an integer
    into a wider one of its signedness."""
    if src.is_float and dst.is_float:
        return dst.bits > src.bits
    return src.kind == dst.kind and src.kind in ("int", "uint") and dst.bits > src.bits


def reduce(kind: str, src_arg: object, dst_arg: object, dim: object, clear: object) -> None:
    what = f"T.reduce_{kind}"
    require_tile_context(what)
    src, dst = _on_chip(src_arg, what, "src"), _on_chip(dst_arg, what, "dst")
    axis = _axis(dim, src.ndim, what)
    expected = tuple(d for i, d in enumerate(src.shape) if i != axis) or (1,)
    kept = tuple(1 if i == axis else d for i, d in enumerate(src.shape))
    if tuple(dst.shape) == kept != expected:
        # tilelang-ascend's [M, 1] result (the reduced dim kept): the same elements
        dst = reshape(dst, expected, None, what)
    if tuple(dst.shape) != expected:
        raise error(
            f"{what}: dst ('{dst.name}') must have shape {_format_shape(expected)} (src shape "
            f"{_format_shape(src.shape)} without dim {axis}) but has {_format_shape(dst.shape)}"
            f" (or {_format_shape(kept)}, keeping the reduced dim)"
        )
    if dst.dtype != src.dtype:
        if not _widens(src.dtype, dst.dtype):
            raise error(
                f"{what}: dst ('{dst.name}') is {dst.dtype} but src ('{src.name}') is "
                f"{src.dtype}; reduce into a tile of the src element type or a wider one of "
                "its kind"
            )
        # tile.reduce keeps the element type, so a wider dst (float16 summed into
        # float32, as TileLang allows) reduces a converting copy of src.
        shape = src.static_shape
        assert shape is not None, "on-chip tiles have static shapes"
        wide = builder.alloc(shape, dst.dtype, src.scope)
        zero = [literal(0, index, "an offset").value for _ in src.shape]
        builder.copy(src.value, zero, wide, zero, None)
        builder.reduce(kind, wide, dst.value, axis, _flag(clear, what, "clear"))
        return
    builder.reduce(kind, src.value, dst.value, axis, _flag(clear, what, "clear"))


def cumsum(src_arg: object, dst_arg: object, dim: object, reverse: object) -> None:
    what = "T.cumsum"
    require_tile_context(what)
    src = _on_chip(src_arg, what, "src")
    dst = src if dst_arg is None else _on_chip(dst_arg, what, "dst")
    axis = _axis(dim, src.ndim, what)
    if dst.shape != src.shape or dst.dtype != src.dtype:
        raise error(
            f"{what}: dst ('{dst.name}', {_format_shape(dst.shape)} {dst.dtype}) must have the "
            f"shape and dtype of src ('{src.name}', {_format_shape(src.shape)} {src.dtype})"
        )
    builder.cumsum(src.value, dst.value, axis, _flag(reverse, what, "reverse"))


def _positive_int(value: object, what: str, name: str, least: int = 1) -> int:
    number = python_int(value, f"{what}: {name}")
    if number is None or number < least:
        raise error(f"{what}: {name} must be a Python int of at least {least} but got {value!r}")
    return number


def im2col(
    img_arg: object,
    col_arg: object,
    nhw_step: object,
    c_step: object,
    kernel: object,
    stride: object,
    dilation: object,
    pad: object,
    eviction_policy: object = None,
) -> None:
    """TileLang's im2col: tile (`nhw_step`, `c_step`) of the (N*OH*OW) x (KH*KW*C) patch
    matrix of an NHWC image, for a square `kernel`, into `col` (block_M x block_K).

    Row m of the matrix is output position (n, oh, ow) = divmod of m by OH*OW and
    OW; column k is filter tap (kh, kw, c) = divmod of k by KW*C and C, read at
    image row oh*stride + kh*dilation - pad and column ow*stride + kw*dilation - pad.
    Taps in the padding, and rows or columns past the end of the matrix (a ragged
    last tile), are 0: TileLang leaves the last ones to whatever the image holds
    there, which the filter's zero padding cancels unless it is inf or NaN.
    Traced as the T.Parallel gather TileLang lowers it to on targets without
    TMA im2col.
    """
    what = "T.im2col"
    require_tile_context(what)
    if not isinstance(img_arg, v.Buffer) or img_arg.ndim != 4:
        raise error(
            f"{what}: the image must be a 4-D (N, H, W, C) buffer but got {_describe(img_arg)}"
        )
    img = img_arg
    check_buffer(img)
    col = _on_chip(col_arg, what, "col")
    if col.ndim != 2:
        raise error(
            f"{what}: col ('{col.name}') must be a 2-D (block_M, block_K) tile but has shape "
            f"{_format_shape(col.shape)}"
        )
    if col.dtype != img.dtype:
        raise error(
            f"{what}: col ('{col.name}') is {col.dtype} but the image '{img.name}' is "
            f"{img.dtype}; both need one element type"
        )
    taps = _positive_int(kernel, what, "kernel")
    step = _positive_int(stride, what, "stride")
    spread = _positive_int(dilation, what, "dilation")
    border = _positive_int(pad, what, "pad", least=0)
    batch, height, width, channels = img.shape
    reach = spread * (taps - 1) + 1  # the extent of the filter in the image

    def outputs(size: v.Dim) -> v.Scalar | Number:
        """The output positions along an image dim: (size + 2 pad - reach) // stride + 1."""
        padded = binary("+", size, 2 * border)
        return binary("+", binary("//", binary("-", padded, reach), step), 1)

    out_h, out_w = outputs(height), outputs(width)
    out_hw = binary("*", out_h, out_w)
    rows = binary("*", batch, out_hw)
    columns = binary("*", taps * taps, channels)
    block_m, block_k = col.shape
    assert isinstance(block_m, int) and isinstance(block_k, int), "tiles have static shapes"
    hints: dict[str, builder.Hint] = {}
    if eviction_policy is not None:
        if eviction_policy not in EVICTION_POLICIES:
            raise error(
                f"{what}: eviction_policy must be one of "
                f"{', '.join(map(repr, EVICTION_POLICIES))} but got {eviction_policy!r}"
            )
        hints["eviction_policy"] = str(eviction_policy)
    region, (i, j) = builder.open_parallel([block_m, block_k], hints)
    i, j = v.Scalar(i, index, region), v.Scalar(j, index, region)
    m = binary("+", binary("*", nhw_step, block_m), i)
    k = binary("+", binary("*", c_step, block_k), j)
    n, position = binary("//", m, out_hw), binary("%", m, out_hw)
    oh, ow = binary("//", position, out_w), binary("%", position, out_w)
    kh, tap = binary("//", k, binary("*", taps, channels)), binary("//", k, channels)
    kw, c = binary("%", tap, taps), binary("%", k, channels)
    h = binary("-", binary("+", binary("*", oh, step), binary("*", kh, spread)), border)
    w = binary("-", binary("+", binary("*", ow, step), binary("*", kw, spread)), border)
    inside = compare("<", m, rows)
    for condition in (
        compare("<", k, columns),
        compare(">=", h, 0),
        compare(">=", w, 0),
        compare("<", h, height),
        compare("<", w, width),
    ):
        inside = binary("&", inside, condition)
    pixel = subscript(img, (n, h, w, c))
    store(col, (i, j), select(inside, pixel, 0))
    close_region(region)


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
        raise error(f"{what} needs a tile from T.alloc_reducer but got {_describe(buffer)}")
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
        raise error(f"{what} needs an element of a reducer, r[i], but got {_describe(target)}")
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
    dst = _on_chip(dst_arg, what, "dst")
    if dst.shape != reducer.shape or dst.dtype != reducer.dtype:
        raise error(
            f"{what}: dst ('{dst.name}', {_format_shape(dst.shape)} {dst.dtype}) must have the "
            f"shape and dtype of the reducer ('{reducer.name}', {_format_shape(reducer.shape)} "
            f"{reducer.dtype})"
        )
    zero = [literal(0, index, "an offset").value for _ in reducer.shape]
    builder.copy(reducer.value, zero, dst.value, zero, None)


def fill(dst_arg: object, value: object, what: str = "T.fill") -> None:
    require_tile_context(what)
    if isinstance(dst_arg, v.Element):
        # TileLang fills an element (a buffer load) as a region of one element
        buffer, offsets = dst_arg.region.buffer, list(dst_arg.region.offsets)
        _release(dst_arg)
        stored = converted(value, buffer.dtype, what)
        builder.store(stored.value, buffer.value, offsets)
        return
    dst = _whole_tile(dst_arg, what, "the destination")
    builder.fill(dst.value, converted(value, dst.dtype, what).value)


def clear(dst_arg: object) -> None:
    require_tile_context("T.clear")
    builder.clear(_whole_tile(dst_arg, "T.clear", "the destination").value)


def sync_threads(barrier_id: object = None, arrive_count: object = None) -> None:
    """A barrier of the block's threads. TileLang's named barrier (`T.sync_threads(id,
    count)`) is one of the whole block when `count` is every thread; of fewer, it is one
    of the threads 0 .. count - 1, which per-thread code reaches inside `if tx < count:`
    (checked when the kernel closes)."""
    what = "T.sync_threads"
    trace = require_tile_context(what)
    hints: dict[str, builder.Hint] = {}
    if barrier_id is not None or arrive_count is not None:
        kernel = trace.current.enclosing(RegionKind.KERNEL)
        assert kernel is not None, "require_tile_context found the kernel"
        threads = math.prod(thread_dims(kernel))
        count = python_int(arrive_count, f"{what}: arrive_count")
        if arrive_count is not None and count != threads:
            if count is None or not 0 < count < threads or kernel not in _thread_index:
                raise error(
                    f"{what}({barrier_id!r}, {arrive_count!r}): a named barrier of part of "
                    f"the block needs per-thread code (T.get_thread_binding) and a count of "
                    f"1 to {threads - 1} threads, reached inside `if tx < {arrive_count}:`; "
                    "or call T.sync_threads() where every thread of the block reaches it"
                )
            hints[ARRIVE_COUNT] = count
    builder.barrier(hints)


def atomic_add(dst_arg: object, value: object) -> None:
    what = "T.atomic_add"
    require_kernel(what)
    region = None
    if isinstance(dst_arg, v.Element | v.BufferRegion):
        region = dst_arg.region if isinstance(dst_arg, v.Element) else dst_arg
        dst, offsets = region.buffer, list(region.offsets)
    elif isinstance(dst_arg, v.Buffer):
        dst, offsets = dst_arg, _offsets(dst_arg)
    else:
        raise error(
            f"{what}: the destination must be a buffer or a region such as Out[i, j] but got "
            f"{_describe(dst_arg)}"
        )
    check_buffer(dst)
    if isinstance(value, v.Buffer) and not isinstance(value, v.Var):
        require_tile_context(f"{what} of a tile")
        check_buffer(value)
        shape = value.static_shape
        if value.ndim > dst.ndim or (value.ndim < dst.ndim and (region is None or shape is None)):
            raise error(
                f"{what}: tile '{value.name}' has {value.ndim} dims but '{dst.name}' has {dst.ndim}"
            )
        if value.dtype != dst.dtype:
            raise error(
                f"{what}: tile '{value.name}' is {value.dtype} but '{dst.name}' is {dst.dtype}; "
                f"T.copy it into a {dst.dtype} tile first"
            )
        addend = value.value
        if value.ndim < dst.ndim:
            # tile.atomic_add adds a tile of the rank of dst: the tile gains the unit
            # dims of the region (`O[b, i:i + 64, h, :]`), as a view.
            assert region is not None and shape is not None
            sizes, laid_out = _region_layout(region, value, shape, what)
            if sizes != laid_out:
                raise error(
                    f"{what}: the region of '{dst.name}' is smaller than tile '{value.name}' "
                    f"{_format_shape(shape)}; slice it to the tile's extent"
                )
            addend = builder.reshape(value.value, laid_out)
    else:
        if not isinstance(dst_arg, v.Element):
            raise error(
                f"{what} of a scalar needs one element as the destination, such as Out[i, j]"
            )
        addend = converted(value, dst.dtype, what).value
    builder.atomic_add(addend, dst.value, offsets)
    _release(dst_arg)


def atomic_fetch_add(dst_arg: object, value: object) -> v.Scalar:
    """`T.atomic_add(Out[i], x, return_prev=True)`: one element, the value it held."""
    what = "T.atomic_add(..., return_prev=True)"
    require_kernel(what)
    if not isinstance(dst_arg, v.Element):
        raise error(f"{what} needs one element as the destination, such as Out[i, j], but got "
                    f"{_describe(dst_arg)}")
    dst = dst_arg.region.buffer
    check_buffer(dst)
    if dst.dtype.kind == "bool" or (dst.dtype.is_float and dst.dtype.bits < 16):
        raise error(f"{what}: '{dst.name}' is {dst.dtype}; an atomic that returns the old "
                    "value takes integers and 16-, 32- or 64-bit floats")
    addend = converted(value, dst.dtype, what)
    previous = builder.atomic_fetch_add(addend.value, dst.value, list(dst_arg.region.offsets))
    _release(dst_arg)
    return scalar(previous, dst.dtype)


# -- threads and blocks -------------------------------------------------------


def _thread_dim(dim: object, what: str) -> int:
    axis = python_int(dim, f"{what}: dim")
    if axis is None or not 0 <= axis < 3:
        raise error(f"{what}: dim must be 0, 1 or 2 (x, y, z) but got {dim!r}")
    return axis


# The thread index of each kernel that has per-thread code: a placeholder argument
# of the kernel's body while it is traced, replaced when it closes (`threads`).
_thread_index: WeakKeyDictionary[OpenRegion, v.Scalar] = WeakKeyDictionary()


def thread_binding(dim: object) -> v.Scalar:
    """TileLang's thread index along `dim` (0 along a dim of one thread).

    With it the kernel has per-thread (SIMT) code: when the kernel closes, its
    body becomes loops over the threads (see `threads`). A block of
    `threads=(x, y, z)` numbers its threads as CUDA does, x fastest: the index
    along y of the linear thread `t` is `t // x % y`.
    """
    what = "T.get_thread_binding"
    trace = require_kernel(what)
    axis = _thread_dim(dim, what)
    if thread_extent(axis) == 1:
        return literal(0, index, what)
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_kernel found it"
    if kernel not in _thread_index:
        with trace.context:
            argument = kernel.block.add_argument(ir.IndexType.get(), site().mlir(trace.context))
        _thread_index[kernel] = v.Scalar(argument, index, kernel)
    linear = _thread_index[kernel]
    dims = thread_dims(kernel)
    if len(dims) == 1:
        return linear
    below = math.prod(dims[:axis])
    along = binary("//", linear, below) if below > 1 else linear
    return binary("%", along, dims[axis]) if axis < len(dims) - 1 else along


def thread_dims(kernel: OpenRegion) -> list[int]:
    """The threads of a T.Kernel along x, y and z as written (`threads=(x, y)`)."""
    op = kernel.block.owner
    if THREAD_DIMS in op.attributes:
        return list(ir.DenseI64ArrayAttr(op.attributes[THREAD_DIMS]))
    return [ir.IntegerAttr(op.attributes["threads"]).value]


THREAD_DIMS = "tile.thread_dims"
"""The attribute of a tile.kernel whose threads are 2-D or 3-D (`threads=(x, y)`)."""


def close_kernel(region: OpenRegion) -> None:
    """Ends a T.Kernel; per-thread code in it becomes loops over its threads."""
    close_region(region)
    thread = _thread_index.pop(region, None)
    if thread is None:
        return
    kernel = region.block.owner
    threads = ir.IntegerAttr(kernel.attributes["threads"]).value
    with region.trace.context:
        distribute_threads(kernel.operation, thread.value, threads, region.loc)


def thread_extent(dim: object) -> int:
    """The `threads` of the enclosing T.Kernel along x; 1 along y and z."""
    what = "T.get_thread_extent"
    trace = require_kernel(what)
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_kernel found it"
    axis = _thread_dim(dim, what)
    dims = thread_dims(kernel)
    return dims[axis] if axis < len(dims) else 1


def block_binding(dim: object) -> v.Scalar:
    """The block index of the enclosing T.Kernel along `dim`, as `as (bx, by)` gives it."""
    what = "T.get_block_binding"
    trace = require_kernel(what)
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_kernel found it"
    rank = grid_rank(kernel)
    axis = _thread_dim(dim, what)
    if axis >= rank:
        raise error(f"{what}: dim {axis} is past the {rank}-D grid of T.Kernel")
    return v.Scalar(kernel.block.arguments[axis], index, kernel)


def grid_rank(kernel: OpenRegion) -> int:
    """The number of grid dims of a T.Kernel (its body may also hold the thread index)."""
    return len(kernel.block.owner.operands)


# -- scheduling hints ---------------------------------------------------------

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
    if not _flag(enable, what, "enable"):
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
        raise error(f"{what} needs a dict {{buffer: layout}} but got {_describe(layout_map)}")
    for buffer, layout in layout_map.items():
        if not isinstance(buffer, v.Buffer):
            raise error(f"{what}: the keys must be buffers but got {_describe(buffer)}")
        check_buffer(buffer)
        if not isinstance(layout, Layout) and callable(layout):
            layout = Layout(buffer.shape, layout)
        if not isinstance(layout, Layout):
            raise error(
                f"{what}: the layout of '{buffer.name}' must be a T.Layout, a T.Fragment or a "
                f"function of its indices but got {_describe(layout)}"
            )
        if buffer.scope == "fragment" and not isinstance(layout, Fragment):
            raise error(
                f"{what}: '{buffer.name}' is a fragment, so its layout must be a T.Fragment "
                "(which thread holds each element)"
            )
        if not _dims_match(layout.shape, buffer.shape):
            raise error(
                f"{what}: the layout is for shape {_format_shape(layout.shape)} but "
                f"'{buffer.name}' has shape {_format_shape(buffer.shape)}"
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
                f"{_describe(loop_layout)}"
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
    if _flag(explicit, what, "explicit"):
        hints["unroll_explicit"] = True
    return hints


def _int_list(value: object, what: str, name: str) -> list[int]:
    if not isinstance(value, list | tuple):
        raise error(f"{what}: {name} must be a list of Python ints but got {_describe(value)}")
    items = []
    for item in value:
        number = python_int(item, f"{what}: {name}")
        if number is None or number < 0:
            raise error(
                f"{what}: {name} must hold non-negative Python ints but holds {_describe(item)}"
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


# -- Python syntax on DSL objects ---------------------------------------------
# Each method is a DSL entry point: the user's line that applies an operator
# is where its ops are located and its errors point.

_ARITHMETIC = {
    "add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%",
    "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>",
}
_COMPARISONS = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_Operator = Callable[[v.Expr, object], v.Scalar | Number]


def _arithmetic(op: str) -> tuple[_Operator, _Operator]:
    """`x op y` and the reflected `y op x`, for a symbolic x."""

    def forward(x: v.Expr, y: object) -> v.Scalar | Number:
        return binary(op, x, y)

    def reverse(x: v.Expr, y: object) -> v.Scalar | Number:
        return binary(op, y, x)

    return forward, reverse


def _comparison(op: str) -> Callable[[v.Expr, object], v.Scalar]:
    def compare_with(x: v.Expr, y: object) -> v.Scalar:
        return compare(op, x, y)

    return compare_with


def _augmented(op: str) -> Callable[[v.Var, object], v.Var]:
    """`x op= y` on a T.alloc_var: stores `x op y` into it, and x stays the variable."""

    def update(var: v.Var, other: object) -> v.Var:
        return store_var(var, binary(op, var, other))

    return update


def _no_truth_value(_: v.Expr) -> NoReturn:
    raise error(
        "a symbolic value has no Python truth value while the kernel is traced: `if`, "
        "`and`, `or`, `not` and `a if c else b` on it are traced in the code of a kernel or "
        "a T.macro, but not in `while`, `assert`, comprehensions or other functions; use "
        "T.if_then_else(cond, a, b) for a choice between values and & | ~ on conditions"
    )


def _no_int_value(_: v.Expr) -> NoReturn:
    raise error(
        "a symbolic value has no Python int value while the kernel is traced: loop over "
        "it with T.serial or T.Pipelined instead of range(), and use Python ints for shapes"
    )


def _no_float_value(_: v.Expr) -> NoReturn:
    raise error("a symbolic value has no Python float value while the kernel is traced")


def _expr_not_iterable(_: v.Expr) -> NoReturn:
    raise error("a symbolic value is not iterable; loop with T.serial(n)")


def _buffer_not_iterable(buffer: v.Buffer) -> NoReturn:
    raise error(f"buffer '{buffer.name}' is not iterable; loop over its elements with T.Parallel")


def _convert_to(dtype: DType, x: object) -> v.Scalar:
    """`T.float32(x)`: `x` converted to this dtype, as `T.cast(x, T.float32)` does."""
    return cast(x, dtype)


def _attach(cls: type, name: str, method: Callable[..., object]) -> None:
    setattr(cls, name, dsl_api(method))


def _attach_syntax() -> None:
    for name, op in _ARITHMETIC.items():
        forward, reverse = _arithmetic(op)
        _attach(v.Expr, f"__{name}__", forward)
        _attach(v.Expr, f"__r{name}__", reverse)
    for name, op in _COMPARISONS.items():
        _attach(v.Expr, f"__{name}__", _comparison(op))
    _attach(v.Expr, "__neg__", negate)
    _attach(v.Expr, "__invert__", invert)
    _attach(v.Expr, "__abs__", absolute)
    _attach(v.Expr, "__bool__", _no_truth_value)
    _attach(v.Expr, "__index__", _no_int_value)
    _attach(v.Expr, "__int__", _no_int_value)
    _attach(v.Expr, "__float__", _no_float_value)
    _attach(v.Expr, "__iter__", _expr_not_iterable)
    _attach(v.Expr, "astype", cast)  # TileLang's `x.astype(dtype)`
    for name, op in _ARITHMETIC.items():
        _attach(v.Var, f"__i{name}__", _augmented(op))
    _attach(v.Buffer, "__getitem__", subscript)
    _attach(v.Buffer, "__setitem__", store)
    _attach(v.Buffer, "__iter__", _buffer_not_iterable)
    _attach(DType, "__call__", _convert_to)


_attach_syntax()
