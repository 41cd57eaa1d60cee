"""The parameters of a kernel's entry function and the checks on a call.

The entry function's argument types say what each argument must be: a
memref is a numpy array of that element type and rank, whose static dims
must match; `index` is a Python int; a float type is a Python float. The
DSL may name the parameters and their symbolic dims with argument
attributes, so that errors speak the user's names:

    func.func @gemm(%A: memref<?x64xf16> {tile.name = "A", tile.dims = ["M", "64"]}, ...)

Without them, parameters are called arg0, arg1, ... and each dynamic dim is
free. A symbolic dim that occurs in several parameters must have one value
in a call, and a dim named by an expression of symbolic dims
(`tile.dims = ["M", "ceildiv(K, 128)"]`, see `dim_exprs`) must be its value
for those. An array the kernel may write (found once, from the tile IR)
must be writeable, and an integer scalar must fit its type. How the checked
arguments reach the kernel is each backend's driver's business
(`tilec.backends`).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from mlir import ir

from tilec.runtime import dim_exprs
from tilec.runtime.dim_exprs import DimExpr


class ArgumentError(TypeError):
    """A kernel was called with arguments that do not fit its parameters."""


@functools.cache  # looked up for every array argument of every call
def numpy_dtype(element: str) -> np.dtype:
    """The numpy dtype of an MLIR element type name (bf16 and the 8-bit
    floats need ml_dtypes)."""
    if element in ("bf16", "f8E4M3FN", "f8E5M2"):
        import ml_dtypes

        extended = {
            "bf16": ml_dtypes.bfloat16,
            "f8E4M3FN": ml_dtypes.float8_e4m3fn,
            "f8E5M2": ml_dtypes.float8_e5m2,
        }
        return np.dtype(extended[element])
    names = {
        "f64": "float64",
        "f32": "float32",
        "f16": "float16",
        "i64": "int64",
        "i32": "int32",
        "i16": "int16",
        "i8": "int8",
        "i1": "bool",
        "ui8": "uint8",
        "ui16": "uint16",
        "ui32": "uint32",
        "ui64": "uint64",
        "index": "int64",
    }
    if element not in names:
        raise ArgumentError(f"element type {element} has no numpy dtype on cpu")
    return np.dtype(names[element])


_UNSIGNED = {f"uint{bits}": f"ui{bits}" for bits in (8, 16, 32, 64)}


@dataclass(frozen=True)
class Param:
    """One parameter: an array (`shape` with None for dynamic dims) or a scalar.

    `dim_names` names its symbolic dims (None for the others) and `dim_exprs` has
    the text of each dim that is an expression of them (None for the others, or
    empty when there is none). `written` says whether the kernel may write the
    array (see `written_arguments`); `dtype`, for an integer scalar passed as
    `index` that the kernel sees as a narrower or unsigned dtype (`uint8`), is
    that dtype, whose range a call checks.
    """

    name: str
    element: str
    shape: tuple[int | None, ...] | None
    dim_names: tuple[str | None, ...] = ()
    written: bool = False
    dtype: str | None = None
    dim_exprs: tuple[str | None, ...] = ()

    @property
    def is_array(self) -> bool:
        return self.shape is not None

    def dim_expr(self, dim: int) -> DimExpr | None:
        """Dim `dim` as an expression of symbolic dims, if it is one."""
        text = self.dim_exprs[dim] if dim < len(self.dim_exprs) else None
        return None if text is None else dim_exprs.parse(text)

    def describe_shape(self) -> str:
        assert self.shape is not None
        parts = [
            str(size) if size is not None else self._dim_label(i)
            for i, size in enumerate(self.shape)
        ]
        return "(" + ", ".join(parts) + (",)" if len(parts) == 1 else ")")

    def _dim_label(self, dim: int) -> str:
        """What a dynamic dim is called: its symbolic name or expression, else `?`."""
        for labels in (self.dim_names, self.dim_exprs):
            if dim < len(labels) and labels[dim]:
                return labels[dim]  # type: ignore[return-value]
        return "?"

    def to_json(self) -> dict:
        return {
            "name": self.name,
            "element": self.element,
            "shape": None if self.shape is None else list(self.shape),
            "dim_names": list(self.dim_names),
            "dim_exprs": list(self.dim_exprs),
            "written": self.written,
            "dtype": self.dtype,
        }

    @staticmethod
    def from_json(data: dict) -> Param:
        shape = data["shape"]
        return Param(
            data["name"],
            data["element"],
            None if shape is None else tuple(shape),
            tuple(data["dim_names"]),
            data["written"],
            data.get("dtype"),
            tuple(data["dim_exprs"]),
        )


# The memref operands, by position, that an op only reads (or only takes
# the sizes of). Every other use of an argument counts as a write: refusing
# a read-only array that an op unknown here only reads is an error the user
# sees and can fix, while writing one is silent corruption (of an immutable
# `bytes` object, with `numpy.frombuffer`).
_READ_ONLY_OPERANDS: dict[str, frozenset[int]] = {
    "tile.copy": frozenset({0}),
    "tile.gemm": frozenset({0, 1}),
    "tile.reduce": frozenset({0}),
    "tile.cumsum": frozenset({0}),
    "tile.atomic_add": frozenset({0}),
    "memref.load": frozenset({0}),
    "memref.dim": frozenset({0}),
    "memref.copy": frozenset({0}),
    "vector.load": frozenset({0}),
    "vector.maskedload": frozenset({0}),
    "vector.transfer_read": frozenset({0}),
    "vector.gather": frozenset({0}),
}

# Ops whose result is a view of their first operand: a write through the
# result writes the argument.
_VIEWS = frozenset(
    {
        "memref.cast",
        "memref.subview",
        "memref.reinterpret_cast",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.transpose",
        "memref.view",
        "memref.memory_space_cast",
        "memref.assume_alignment",
    }
)


def _may_write(value: ir.Value) -> bool:
    """Whether some use of `value`, or of a view of it, may write it."""
    for use in value.uses:
        owner = use.owner
        name = owner.name
        if name in _VIEWS and use.operand_number == 0:
            if any(_may_write(result) for result in owner.results):
                return True
        elif use.operand_number not in _READ_ONLY_OPERANDS.get(name, frozenset()):
            return True
    return False


def written_arguments(func: ir.Operation) -> list[bool]:
    """For each argument of `func`, whether it is a memref the function may write."""
    return [
        isinstance(argument.type, ir.MemRefType) and _may_write(argument)
        for argument in func.regions[0].blocks[0].arguments
    ]


def entry_params(func: ir.Operation) -> list[Param]:
    """The parameters of an entry `func.func`, named by its argument attributes."""
    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    arg_attrs = (
        list(ir.ArrayAttr(func.attributes["arg_attrs"])) if "arg_attrs" in func.attributes else []
    )
    written = written_arguments(func)
    params = []
    for i, type_ in enumerate(function_type.inputs):
        attrs = ir.DictAttr(arg_attrs[i]) if i < len(arg_attrs) else None
        name = f"arg{i}"
        if attrs is not None and "tile.name" in attrs:
            name = ir.StringAttr(attrs["tile.name"]).value
        if isinstance(type_, ir.MemRefType):
            memref = ir.MemRefType(type_)
            shape = tuple(None if ir.ShapedType.is_dynamic_size(d) else d for d in memref.shape)
            dims: tuple[str | None, ...] = (None,) * len(shape)
            exprs: tuple[str | None, ...] = ()
            if attrs is not None and "tile.dims" in attrs:
                texts = [ir.StringAttr(a).value for a in ir.ArrayAttr(attrs["tile.dims"])]
                derived = [dim_exprs.parse(t) is not None for t in texts]
                dims = tuple(
                    None if t.isdigit() or d else t for t, d in zip(texts, derived, strict=True)
                )
                if any(derived):
                    exprs = tuple(t if d else None for t, d in zip(texts, derived, strict=True))
            element = str(memref.element_type)
            if attrs is not None and "tile.dtype" in attrs:
                # Unsigned tensors are signless memrefs; the DSL names their
                # dtype, so that they take numpy's unsigned arrays.
                element = _UNSIGNED[ir.StringAttr(attrs["tile.dtype"]).value]
            params.append(Param(name, element, shape, dims, written[i], dim_exprs=exprs))
        else:
            dtype = None
            if attrs is not None and "tile.dtype" in attrs:
                dtype = ir.StringAttr(attrs["tile.dtype"]).value
            params.append(Param(name, str(type_), None, dtype=dtype))
    return params


def _shape_text(shape: Sequence[int]) -> str:
    return "(" + ", ".join(map(str, shape)) + (",)" if len(shape) == 1 else ")")


def check_arguments(kernel: str, params: Sequence[Param], args: Sequence[object]) -> None:
    """Raises ArgumentError naming the first parameter that `args` do not fit.

    Dims that are expressions of symbolic dims are checked once all the
    symbolic dims have their sizes, whichever arguments give them."""
    if len(args) != len(params):
        names = ", ".join(p.name for p in params)
        raise ArgumentError(
            f"kernel '{kernel}' expects {len(params)} arguments ({names}) but got {len(args)}"
        )
    bound: dict[str, tuple[int, str]] = {}
    shapes: list[tuple[Param, tuple[int, ...]]] = []
    for param, arg in zip(params, args, strict=True):
        if not param.is_array:
            _check_scalar(param, arg)
            continue
        shape = _check_array(param, arg)
        shapes.append((param, shape))
        for dim, name in enumerate(param.dim_names):
            if name is None:
                continue
            size = shape[dim]
            if name in bound and bound[name][0] != size:
                other_size, other = bound[name]
                raise ArgumentError(
                    f"argument '{param.name}' has {name} = {size} but argument '{other}' "
                    f"has {name} = {other_size}"
                )
            bound.setdefault(name, (size, param.name))
    for param, shape in shapes:
        for dim, text in enumerate(param.dim_exprs):
            if text is None:
                continue
            expected, origin = derived_size(param, dim, bound)
            if shape[dim] != expected:
                raise ArgumentError(
                    f"argument '{param.name}' expects dim {dim} to be {text} = {expected}, "
                    f"with {origin}, but got {shape[dim]} (shape {_shape_text(shape)})"
                )


def derived_size(
    param: Param, dim: int, bound: Mapping[str, tuple[int, str]]
) -> tuple[int, str]:
    """The size of dim `dim` of `param`, an expression of symbolic dims, for their
    sizes in `bound` (each with the argument it comes from), and the words that say
    where these come from ("K = 300 from argument 'A'")."""
    expr = param.dim_expr(dim)
    assert expr is not None, f"dim {dim} of {param.name} is an expression"
    missing = [name for name in expr.names if name not in bound]
    if missing:
        raise ArgumentError(
            f"argument '{param.name}' has dim {dim} = {expr.text}, but no argument has a dim "
            f"{missing[0]} to compute it from"
        )
    origin = ", ".join(
        f"{name} = {bound[name][0]} from argument '{bound[name][1]}'" for name in expr.names
    )
    try:
        return expr.value({name: bound[name][0] for name in expr.names}), origin
    except ZeroDivisionError:
        raise ArgumentError(
            f"argument '{param.name}' has dim {dim} = {expr.text}, which divides by zero with "
            f"{origin}"
        ) from None


# The width of each integer scalar type that is checked against its range:
# a driver passes ints as C integers, which wrap a value that does not fit
# (2**63 arrived as -2**63, 2**64 + 5 as 5).
_INT_BITS = {"index": 64, "i64": 64, "i32": 32, "i16": 16, "i8": 8}


def _scalar_range(param: Param) -> tuple[int, int, str] | None:
    """The values an integer scalar parameter takes, and the name of its type."""
    if param.dtype is not None:
        # A uint64 above 2**63 - 1 reaches the kernel's index as the same 64 bits.
        info = np.iinfo(np.dtype(param.dtype))
        return int(info.min), int(info.max), param.dtype
    if param.element in _INT_BITS:
        bits = _INT_BITS[param.element]
        return -(2 ** (bits - 1)), 2 ** (bits - 1) - 1, param.element
    return None


def _check_scalar(param: Param, arg: object) -> None:
    integral = param.element == "index" or param.element.startswith("i")
    if integral and (isinstance(arg, bool) or not isinstance(arg, int | np.integer)):
        raise ArgumentError(f"argument '{param.name}' expects an int but got {type(arg).__name__}")
    bounds = _scalar_range(param) if integral else None
    if bounds is not None:
        low, high, name = bounds
        if not low <= int(arg) <= high:
            article = "an" if name.startswith("i") else "a"  # an int8, a uint8
            raise ArgumentError(
                f"argument '{param.name}' expects {article} {name} in [{low}, {high}] but got "
                f"{int(arg)}"
            )
    if not integral and not isinstance(arg, int | float | np.integer | np.floating):
        raise ArgumentError(f"argument '{param.name}' expects a float but got {type(arg).__name__}")


def _check_array(param: Param, arg: object) -> tuple[int, ...]:
    """Checks one array argument; returns its shape. A device tensor (left
    by `tilec.runtime.calls` for a driver that takes them) is checked for its
    shape here and for its element type and layout by the driver."""
    assert param.shape is not None
    device = not isinstance(arg, np.ndarray) and hasattr(arg, "__dlpack_device__")
    if not isinstance(arg, np.ndarray) and not device:
        raise ArgumentError(
            f"argument '{param.name}' expects a numpy array but got {type(arg).__name__}"
        )
    # a numpy shape is a tuple of ints already; a device tensor's may hold other ints
    shape = arg.shape if not device else tuple(int(n) for n in arg.shape)  # type: ignore[attr-defined]
    if len(shape) != len(param.shape):
        raise ArgumentError(
            f"argument '{param.name}' expects a {len(param.shape)}-D array but got "
            f"{len(shape)}-D with shape {_shape_text(shape)}"
        )
    if any(s is not None and s != a for s, a in zip(param.shape, shape, strict=True)):
        raise ArgumentError(
            f"argument '{param.name}' expects shape {param.describe_shape()} but got "
            f"{_shape_text(shape)}"
        )
    if device:
        return shape
    assert isinstance(arg, np.ndarray)
    expected = numpy_dtype(param.element)
    if arg.dtype != expected:
        raise ArgumentError(f"argument '{param.name}' expects {expected} but got {arg.dtype}")
    if not arg.flags.c_contiguous:
        raise ArgumentError(
            f"argument '{param.name}' must be C-contiguous (use numpy.ascontiguousarray)"
        )
    if param.written and not arg.flags.writeable:
        raise ArgumentError(
            f"argument '{param.name}' expects a writeable array (the kernel writes it) but got "
            "a read-only one (numpy.array makes a writeable copy)"
        )
    return shape
