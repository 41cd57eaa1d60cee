"""`T.tile.*`: tilelang-ascend's vector ops on whole tiles, on every target.

tilelang-ascend's kernels compute on UB tiles with one call per AscendC
vector instruction (`T.tile.add(c, a, b)`, `T.tile.exp(t, t)`,
`T.tile.mul(acc[h, :], acc[h, :], m[h])`). Here each call is traced as the
element-wise code it means, one `tile.parallel` over the destination's
elements, which every target lowers (the ascend target back into one vector
instruction per op). Operands are whole tiles, regions of them (`acc[h, :]`,
`x[pid, :, :]`: the sliced dims) or, as the last source of a binary op, a
scalar (a Python number, `m_i[h]`, a `T.cast`). Shapes agree once unit dims
are dropped (`[M, 1]` and `[M]` are one shape), as the vendor's calls take
element counts. The calls of a row loop (`for h in range(M): T.tile.sub(acc[h,
:], acc[h, :], m[h])`, AscendC having no row-broadcasting call) become one op
over the rows (`ascend_tile_rows`).

Semantics where the vendor's differ from a plain element-wise reading:
`compare` writes one mask element per compared element (1 or 0), which
`select` reads (the hardware packs bits; the mask tile here has the data's
shape); `cast`'s rounding modes are those of AscendC's `RoundMode`, and its
count may cover the first elements of tiles of other shapes, as the vendor's
does. `topk` and `gather_mask` are in `ascend_tile_sort`, the operand views in
`ascend_tile_views`. A name of tilelang-ascend's family that tilec lacks is a
located error saying what to write instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from . import ascend_tile_rows as row_runs
from . import ascend_tile_views as views
from . import semantic
from .ascend_tile_sort import gather_mask as gather_mask  # T.tile's sorted selection
from .ascend_tile_sort import topk as topk
from .dtypes import DType, index, int32
from .errors import DSLError
from .loops import Parallel
from .source import caller_loc, dsl_api
from .values import Buffer, Scalar, Var


def _what(name: str) -> str:
    return f"T.tile.{name}"


def _elementwise(what: str, dst_arg: object, sources: Sequence[tuple[str, object]],
                 compute: Callable[..., object], reads_dst: bool = False) -> None:
    """dst[p] = compute(*operands at p) for every element p of dst, as one tile.parallel.
    A source that is not a tile is a scalar, the same for every element. Calls on
    successive rows of the same tiles become one tile.parallel over the rows (see
    `ascend_tile_rows`)."""
    trace = semantic.require_tile_context(what)
    dst = views.view(dst_arg, what, "dst")
    operands: list[views.View | views.Value] = []
    for role, x in sources:
        if views.is_tile(x):
            view = views.view(x, what, role)
            views.same_shape(what, dst, role, view)
            operands.append(view)
        else:
            operands.append(views.scalar_operand(x, what, role))
    call = row_runs.row_call(what, dst_arg, sources, compute, reads_dst)
    run = row_runs.RUN.get()
    if call is not None and run is not None and run.continued_by(call, trace.current):
        run.extend(call)
        return
    for point in Parallel(*(dst.shape or (1,))):
        position = (point if isinstance(point, tuple) else (point,))[: len(dst.shape)]
        values = [x.load(position) if isinstance(x, views.View) else x for x in operands]
        if reads_dst:
            values.append(dst.load(position))
        dst.store(position, compute(*values))
    row_runs.RUN.set(None if call is None else row_runs.RowRun.start(call, trace.current))


# -- fills -------------------------------------------------------------------------


@dsl_api
def fill(buffer: object, value: object) -> None:
    """Every element of `buffer` (a tile or a region of one) is `value`."""
    what = _what("fill")
    if isinstance(buffer, Buffer) and not isinstance(buffer, Var):
        semantic.require_tile_context(what)
        semantic.fill(buffer, value, what)
        return
    _elementwise(what, buffer, [("value", value)], lambda x: x)


@dsl_api
def clear(buffer: object) -> None:
    """Every element of `buffer` is zero."""
    fill(buffer, 0)


@dsl_api
def createvecindex(dst: object, firstValue: object) -> None:
    """dst holds firstValue, firstValue + 1, ... in row-major order."""
    what = _what("createvecindex")
    view = views.view(dst, what, "dst")
    _counting(what, view, firstValue, 1)


def _counting(what: str, view: views.View, first: object, step: object) -> None:
    """view's elements, in row-major order, are first, first + step, ..."""
    semantic.require_tile_context(what)
    strides = [math.prod(view.shape[i + 1:]) for i in range(len(view.shape))]
    first = views.scalar_operand(first, what, "the first value")
    step = views.scalar_operand(step, what, "the step")
    for point in Parallel(*(view.shape or (1,))):
        position = (point if isinstance(point, tuple) else (point,))[: len(view.shape)]
        flat: object = 0
        for i, stride in zip(position, strides, strict=True):
            flat = semantic.binary("+", flat, semantic.binary("*", i, stride))
        number = semantic.cast(flat, view.buffer.dtype) if isinstance(flat, Scalar) else flat
        view.store(position, semantic.binary("+", first, semantic.binary("*", number, step)))


@dsl_api
def arith_progression(buffer: object, first_value: object, diff_value: object,
                      count: object) -> None:
    """buffer holds first_value, first_value + diff_value, ... (`count` elements: all)."""
    what = _what("arith_progression")
    view = views.view(buffer, what, "buffer")
    _whole_count(what, view, count)
    _counting(what, view, first_value, diff_value)


def _whole_count(what: str, view: views.View, count: object) -> None:
    """tilelang-ascend's element counts: tilec's tile ops cover the whole operand."""
    elements = math.prod(view.shape)
    if semantic.python_int(count, f"{what}: count") != elements:
        raise semantic.error(
            f"{what}: count must be the {elements} elements of '{view.buffer.name}' "
            f"({views.shape_text(view)}) but got {count!r}; to work on part of a tile, pass a "
            "region of it (`t[:rows, :]`)")


# -- arithmetic -----------------------------------------------------------------


def _binary(name: str, op: str) -> Callable[[object, object, object], None]:
    def call(dst: object, src0: object, src1: object) -> None:
        _elementwise(_what(name), dst, [("src0", src0), ("src1", src1)],
                     lambda a, b: semantic.binary(op, a, b))

    call.__name__ = call.__qualname__ = name
    call.__doc__ = (f"dst = src0 {op} src1, element-wise; src1 may be a scalar."
                    if op not in ("max", "min") else
                    f"dst = {op}(src0, src1), element-wise; src1 may be a scalar.")
    return dsl_api(call)


add = _binary("add", "+")
sub = _binary("sub", "-")
mul = _binary("mul", "*")
div = _binary("div", "/")
max = _binary("max", "max")
min = _binary("min", "min")
bitwise_and = _binary("bitwise_and", "&")
bitwise_or = _binary("bitwise_or", "|")
bitwise_xor = _binary("bitwise_xor", "^")


def _unary(name: str, compute: Callable[[object], object], doc: str) -> Callable[..., None]:
    def call(dst: object, src0: object) -> None:
        _elementwise(_what(name), dst, [("src", src0)], compute)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    return dsl_api(call)


def _sigmoid(x: object) -> object:
    e = semantic.float_unary("exp", semantic.negate(x))
    return semantic.binary("/", 1.0, semantic.binary("+", 1.0, e))


exp = _unary("exp", lambda x: semantic.float_unary("exp", x), "dst = exp(src).")
ln = _unary("ln", lambda x: semantic.float_unary("log", x), "dst = ln(src).")
abs = _unary("abs", semantic.absolute, "dst = |src|.")
sqrt = _unary("sqrt", lambda x: semantic.float_unary("sqrt", x), "dst = sqrt(src).")
rsqrt = _unary("rsqrt", lambda x: semantic.float_unary("rsqrt", x), "dst = 1 / sqrt(src).")
relu = _unary("relu", lambda x: semantic.binary("max", x, 0), "dst = max(src, 0).")
reciprocal = _unary("reciprocal", lambda x: semantic.binary("/", 1.0, x), "dst = 1 / src.")
sigmoid = _unary("sigmoid", _sigmoid, "dst = 1 / (1 + exp(-src)).")
silu = _unary("silu", lambda x: semantic.binary("*", x, _sigmoid(x)), "dst = src * sigmoid(src).")
bitwise_not = _unary("bitwise_not", semantic.invert, "dst = ~src.")


@dsl_api
def leaky_relu(dst: object, src0: object, scalar_value: object) -> None:
    """dst = src0 where src0 >= 0, else src0 * scalar_value."""
    _elementwise(_what("leaky_relu"), dst, [("src0", src0), ("scalar_value", scalar_value)],
                 lambda x, s: semantic.select(semantic.compare(">=", x, 0), x,
                                              semantic.binary("*", x, s)))


@dsl_api
def axpy(dst: object, src0: object, scalar_value: object) -> None:
    """dst = scalar_value * src0 + dst."""
    _elementwise(_what("axpy"), dst, [("src0", src0), ("scalar_value", scalar_value)],
                 lambda x, s, d: semantic.binary("+", semantic.binary("*", s, x), d),
                 reads_dst=True)


@dsl_api
def mul_add_dst(dst: object, src0: object, src1: object) -> None:
    """dst = src0 * src1 + dst."""
    _elementwise(_what("mul_add_dst"), dst, [("src0", src0), ("src1", src1)],
                 lambda a, b, d: semantic.binary("+", semantic.binary("*", a, b), d),
                 reads_dst=True)


def _clamped(what: str, out: object, buffer: object, count: object,
             bounds: Sequence[tuple[str, object]]) -> None:
    _whole_count(what, views.view(out, what, "out"), count)

    def clamp(x: object, *limits: object) -> object:
        for (op, _), limit in zip(bounds, limits, strict=True):
            x = semantic.binary(op, x, limit)
        return x

    _elementwise(what, out, [("buffer", buffer)] + [(f"the {op} bound", b) for op, b in bounds],
                 clamp)


@dsl_api
def clamp_max(out: object, buffer: object, scalar_value: object, count: object) -> None:
    """out = min(buffer, scalar_value)."""
    _clamped(_what("clamp_max"), out, buffer, count, [("min", scalar_value)])


@dsl_api
def clamp_min(out: object, buffer: object, scalar_value: object, count: object) -> None:
    """out = max(buffer, scalar_value)."""
    _clamped(_what("clamp_min"), out, buffer, count, [("max", scalar_value)])


@dsl_api
def clamp(out: object, buffer: object, min_scalar: object, max_scalar: object,
          count: object) -> None:
    """out = min(max(buffer, min_scalar), max_scalar)."""
    _clamped(_what("clamp"), out, buffer, count, [("max", min_scalar), ("min", max_scalar)])


# -- conversions, broadcasts, masks ------------------------------------------------

CAST_MODES = ("CAST_NONE", "CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_ROUND", "CAST_TRUNC",
              "CAST_ODD")
"""AscendC's `RoundMode` names that tilelang-ascend's cast takes (asc-devkit
`include/basic_api/kernel_struct_unary.h`: CAST_NONE rounds as CAST_RINT where
the value does not fit)."""


@dsl_api
def cast(dst: object, src: object, mode: str, count: object) -> None:
    """dst = src converted to dst's element type, rounded by `mode` (see CAST_MODES).
    `count` elements: all of dst, or, as tilelang-ascend's calls count them, the first
    `count` of dst and src in row-major order, which may then differ in shape."""
    what = _what("cast")
    if mode not in CAST_MODES:
        raise semantic.error(f"{what}: mode must be one of {', '.join(CAST_MODES)} but got "
                             f"{mode!r}")
    out, source = views.view(dst, what, "dst"), views.view(src, what, "src")
    convert = _conversion(what, mode, source.buffer.dtype, out.buffer.dtype)
    number = semantic.python_int(count, f"{what}: count")
    if number == math.prod(out.shape) and source.shape == out.shape:
        _elementwise(what, dst, [("src", src)], convert)
        return
    out, source = views.flat(dst, what, "dst"), views.flat(src, what, "src")
    sizes = sorted((math.prod(out.shape), math.prod(source.shape)))  # this module has its min
    most = sizes[0]
    if number is None or not 1 <= number <= most:
        raise semantic.error(
            f"{what}: count must be a Python int from 1 to {most}, the elements of dst "
            f"('{out.buffer.name}', {views.shape_text(out)}) and src ('{source.buffer.name}', "
            f"{views.shape_text(source)}) it converts, but got {count!r}")
    for i in Parallel(number):
        out.store(out.nth(i), convert(source.load(source.nth(i))))


_TO_INTEGER = ("CAST_RINT", "CAST_ROUND", "CAST_TRUNC", "CAST_FLOOR", "CAST_CEIL")


def _conversion(what: str, mode: str, origin: DType, target: DType) -> Callable[[object], object]:
    """The scalar conversion of one element from `origin` to `target` with `mode`."""
    if origin.is_float and not target.is_float:
        if mode not in _TO_INTEGER:
            raise semantic.error(
                f"{what}: {mode} from {origin} to {target} is not supported: tilec rounds a "
                f"float to an integer with {', '.join(_TO_INTEGER)}")
        return lambda x: semantic.cast(_rounded(mode, x), target)
    if mode not in ("CAST_NONE", "CAST_RINT") and target.bits < origin.bits:
        raise semantic.error(
            f"{what}: {mode} from {origin} to {target} is not supported: a narrowing float "
            "conversion rounds to nearest even (CAST_RINT or CAST_NONE)")
    return lambda x: semantic.cast(x, target)


def _rounded(mode: str, x: object) -> object:
    """x rounded to an integral float as AscendC's RoundMode `mode` rounds it. CAST_ROUND
    and CAST_RINT move the truncated value a step away from zero when the part cut off
    (exact: x minus its truncation) is past one half, or is one half and, for CAST_RINT
    (ties to even), the truncated value is odd."""
    if mode in ("CAST_FLOOR", "CAST_CEIL"):
        return semantic.float_unary(mode.removeprefix("CAST_").lower(), x)
    if mode == "CAST_TRUNC":
        return x
    whole = semantic.cast(x, int32)
    truncated = semantic.cast(whole, semantic.operand(x, "T.tile.cast").dtype)
    cut = semantic.binary("-", x, truncated)
    half_up: object = 1.0
    if mode == "CAST_RINT":
        odd = semantic.compare("!=", semantic.binary("%", whole, 2), 0)
        half_up = semantic.select(odd, 1.0, 0.0)
    step = semantic.select(
        semantic.compare(">", cut, 0.5), 1.0, semantic.select(
            semantic.compare("<", cut, -0.5), -1.0, semantic.select(
                semantic.compare("==", cut, 0.5), half_up, semantic.select(
                    semantic.compare("==", cut, -0.5), semantic.binary("-", 0.0, half_up), 0.0))))
    return semantic.binary("+", truncated, step)


@dsl_api
def broadcast(dst: object, src: object, axis: int | None = None) -> None:
    """dst (M x N) = src repeated: a column src (M x 1, or M) along the rows' elements
    (axis 1), a row src (1 x N, or N) down the rows (axis 0). As in tilelang-ascend a
    1-D src of N elements is a row (axis 0) when N is dst's row length."""
    what = _what("broadcast")
    semantic.require_tile_context(what)
    out, source = views.view(dst, what, "dst"), views.view(src, what, "src")
    rows, cols = ((1, *out.dims) if len(out.dims) == 1 else out.dims)[-2:]
    if len(out.dims) > 2 and math.prod(out.dims[:-2]) != 1:
        raise semantic.error(f"{what}: dst ('{out.buffer.name}', {views.shape_text(out)}) must "
                             "be 1-D or 2-D (leading dims of extent 1)")
    src_dims = source.dims[-2:]
    if len(src_dims) == 1:
        if axis == 0 or (axis is None and src_dims[0] == cols):
            src_dims, axis = (1, src_dims[0]), 0
        elif axis == 1 or (axis is None and src_dims[0] == rows):
            src_dims, axis = (src_dims[0], 1), 1
    expected = {0: (1, cols), 1: (rows, 1)}
    if axis is None:
        axis = 0 if src_dims == expected[0] else 1
    if axis not in expected or tuple(src_dims) != expected[axis]:
        raise semantic.error(
            f"{what}: src ('{source.buffer.name}', {views.shape_text(source)}) must be a row "
            f"(1 x {cols}) or a column ({rows} x 1) of dst ('{out.buffer.name}', "
            f"{views.shape_text(out)})")
    for point in Parallel(rows, cols):
        i, j = point
        position = tuple(x for x, n in ((i, rows), (j, cols)) if n != 1)
        kept = j if axis == 0 else i
        value = source.load((kept,) if math.prod(src_dims) > 1 else ())
        out.store(position, value)


_COMPARISONS = {"EQ": "==", "NE": "!=", "GT": ">", "GE": ">=", "LT": "<", "LE": "<="}


@dsl_api
def compare(dst: object, src0: object, src1: object, mode: str) -> None:
    """dst = 1 where `src0 mode src1` holds (EQ, NE, GT, GE, LT, LE), else 0: one mask
    element per element of src0 (the vendor's Compare packs them as bits), for T.tile.select."""
    what = _what("compare")
    if mode not in _COMPARISONS:
        raise semantic.error(f"{what}: mode must be one of {', '.join(_COMPARISONS)} but got "
                             f"{mode!r}")
    out = views.view(dst, what, "dst")
    _elementwise(what, dst, [("src0", src0), ("src1", src1)],
                 lambda a, b: semantic.select(semantic.compare(_COMPARISONS[mode], a, b),
                                              semantic.cast(1, out.buffer.dtype),
                                              semantic.cast(0, out.buffer.dtype)))


SELECT_MODES = ("VSEL_CMPMASK_SPR", "VSEL_TENSOR_SCALAR_MODE", "VSEL_TENSOR_TENSOR_MODE")


@dsl_api
def select(dst: object, selMask: object, src0: object, src1: object,
           selMode: str) -> None:
    """dst = src0 where the mask (T.tile.compare's) is set, else src1 (a tile, or a
    scalar with VSEL_TENSOR_SCALAR_MODE)."""
    what = _what("select")
    if selMode not in SELECT_MODES:
        raise semantic.error(f"{what}: selMode must be one of {', '.join(SELECT_MODES)} but "
                             f"got {selMode!r}")
    if (selMode == "VSEL_TENSOR_SCALAR_MODE") == views.is_tile(src1):
        wanted = "a scalar" if selMode == "VSEL_TENSOR_SCALAR_MODE" else "a tile"
        raise semantic.error(f"{what}: with {selMode}, src1 must be {wanted}")
    _elementwise(what, dst, [("selMask", selMask), ("src0", src0), ("src1", src1)],
                 lambda m, a, b: semantic.select(semantic.compare("!=", m, 0), a, b))


@dsl_api
def gather(dst: object, src: object, src_offset: object, src_base_addr: object) -> None:
    """dst[p] = the element of src at byte offset `src_base_addr + src_offset[p]`, as
    AscendC's Gather takes them (asc-devkit `Gather`: `srcOffset` holds byte offsets from
    `srcBaseAddr`); src and the offsets are read in row-major order, the offsets having
    dst's shape."""
    what = _what("gather")
    semantic.require_tile_context(what)
    out, table = views.view(dst, what, "dst"), views.view(src, what, "src")
    offsets = views.view(src_offset, what, "src_offset")
    views.same_shape(what, out, "src_offset", offsets)
    if not offsets.buffer.dtype.is_integer:
        raise semantic.error(f"{what}: src_offset ('{offsets.buffer.name}') must hold integer "
                             f"byte offsets but is {offsets.buffer.dtype}")
    base = views.scalar_operand(src_base_addr, what, "src_base_addr")
    width = table.buffer.dtype.bits // 8
    strides = [math.prod(table.shape[i + 1:]) for i in range(len(table.shape))]
    for point in Parallel(*(out.shape or (1,))):
        position = (point if isinstance(point, tuple) else (point,))[: len(out.shape)]
        byte = semantic.binary("+", semantic.cast(offsets.load(position), index), base)
        element = semantic.binary("//", byte, width)
        at = [semantic.binary("%", semantic.binary("//", element, stride), size)
              for stride, size in zip(strides, table.shape, strict=True)]
        out.store(position, table.load(at))


@dsl_api
def atomic_add(dst: object, src: object) -> None:
    """tilelang-ascend's T.tile.atomic_add: `src` (a tile) added atomically into the region
    of global memory starting at `dst`, as T.atomic_add."""
    semantic.atomic_add(dst, src)


# -- what tilec lacks ---------------------------------------------------------------

_SORTING = ("take the K largest with T.tile.topk, sort with T.Parallel and T.serial code, or "
            "use tilec's top-k kernel (tilec.kernels)")
_REDUCE = "use T.reduce_sum, T.reduce_max or T.reduce_min on the tile (or a region of it)"
_ELEMENTWISE = "write the element's value in `for i, j in T.Parallel(...)`"
_GATHER = "index the source with the offsets in T.Parallel (`dst[i] = src[idx[i]]`)"
ALTERNATIVES: dict[str, str] = {
    "sort": _SORTING, "merge_sort": _SORTING, "sort32": _SORTING, "init_sort_buf": _SORTING,
    "gatherb": _GATHER,
    "wholereducemax": _REDUCE, "wholereducemin": _REDUCE, "wholereducesum": _REDUCE,
    "block_reduce_max": _REDUCE, "block_reduce_min": _REDUCE, "block_reduce_sum": _REDUCE,
    "brcb": "use T.tile.broadcast", "brcb_experiment": "use T.tile.broadcast",
    "transpose": _ELEMENTWISE, "pow": _ELEMENTWISE, "sin": _ELEMENTWISE, "cos": _ELEMENTWISE,
    "round": _ELEMENTWISE, "bitwise_lshift": "use T.shift_left in T.Parallel",
    "bitwise_rshift": "use T.shift_right in T.Parallel",
    "bilinear_interpolation": _ELEMENTWISE,
    "row_expand_mul": "use T.tile.broadcast, then T.tile.mul",
}


def __getattr__(name: str) -> object:
    """`T.tile.<name>` for a name tilec lacks: a located DSLError (an AttributeError too)."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name in ALTERNATIVES:
        message = f"T.tile.{name} (tilelang-ascend) is not supported by tilec: " \
                  f"{ALTERNATIVES[name]}"
    elif name.endswith("_experiment"):
        message = (f"T.tile.{name} (tilelang-ascend's experimental API) is not supported by "
                   f"tilec: use T.tile.{name.removesuffix('_experiment')} or T.Parallel code")
    else:
        message = f"tilec.language.tile has no '{name}'"
    raise _UnsupportedTileOp(message, caller_loc())


class _UnsupportedTileOp(DSLError, AttributeError):
    """A DSLError for a `T.tile` name tilec lacks; an AttributeError for `hasattr`."""
