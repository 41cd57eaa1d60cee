"""Kernel functions: `@T.prim_func`, their parameters, and tracing them into tile IR.

A decorated function is traced when IR is asked for (`.build(context)` or
`.ir()`): it runs once with proxy values for its parameters, and the DSL
calls it makes build a `func.func` marked `tile.entry`. Tensor parameters
become memrefs (symbolic dims as `?`), integer scalars `index`, float
scalars their float type. Whatever goes wrong comes out as a DSLError at
the user's line, never as a traceback from inside tilec.
"""

from __future__ import annotations

import ast
import inspect
import numbers
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType

from mlir import ir
from mlir.dialects import func

from tilec.diagnostics import from_mlir_error
from tilec.dialects import tile

from . import builder, semantic
from .builder import RegionKind, Trace
from .dtypes import DType, index
from .errors import DSLError, SourceLoc
from .source import at, dsl_api, traceback_loc
from .values import Buffer, Dim, Scalar, SymbolicDim


@dsl_api
def symbolic(name: str) -> SymbolicDim:
    """A tensor dim known only at run time; dims of one name have one size."""
    if not isinstance(name, str) or not name.isidentifier():
        raise semantic.error(f'T.symbolic needs a name such as "M" but got {name!r}')
    return SymbolicDim(name)


@dataclass(frozen=True)
class TensorType:
    """The annotation `T.Tensor(shape, dtype)`: a global tensor parameter."""

    shape: tuple[Dim, ...]
    dtype: DType

    def mlir_type(self) -> ir.MemRefType:
        dynamic = ir.ShapedType.get_dynamic_size()
        dims = [d if isinstance(d, int) else dynamic for d in self.shape]
        return tile.memref_type(dims, self.dtype.mlir_type())


@dsl_api
def Tensor(shape: object, dtype: str | DType = "float32") -> TensorType:
    """A tensor parameter in global memory: ints are static dims, names or T.symbolic dynamic."""
    dims = shape if isinstance(shape, tuple | list) else (shape,)
    normalized: list[Dim] = []
    for axis, d in enumerate(dims):
        if isinstance(d, str):
            d = symbolic(d)
        if isinstance(d, numbers.Integral) and not isinstance(d, bool):
            d = int(d)
        if isinstance(d, bool) or not isinstance(d, int | SymbolicDim):
            raise semantic.error(
                f"T.Tensor: dim {axis} must be a Python int, a name or T.symbolic(name) but "
                f"got {d!r}"
            )
        if isinstance(d, int) and d < 0:
            raise semantic.error(f"T.Tensor: dim {axis} must not be negative but got {d}")
        normalized.append(d)
    if not normalized:
        raise semantic.error("T.Tensor needs at least one dim")
    return TensorType(tuple(normalized), semantic.as_dtype(dtype, "T.Tensor"))


@dataclass(frozen=True)
class Param:
    """One kernel parameter: a tensor, or a scalar of a dtype."""

    name: str
    type: TensorType | DType
    loc: SourceLoc

    def mlir_type(self) -> ir.Type:
        if isinstance(self.type, TensorType):
            return self.type.mlir_type()
        return index.mlir_type() if not self.type.is_float else self.type.mlir_type()

    def arg_attrs(self) -> ir.DictAttr:
        """`tile.name` and, for tensors, `tile.dims`: the names the runtime's errors use."""
        attrs = {"tile.name": ir.StringAttr.get(self.name)}
        if isinstance(self.type, TensorType):
            attrs["tile.dims"] = ir.ArrayAttr.get(
                [
                    ir.StringAttr.get(str(d) if isinstance(d, int) else d.name)
                    for d in self.type.shape
                ]
            )
        return ir.DictAttr.get(attrs)


def _source_positions(fn: Callable[..., object]) -> tuple[SourceLoc, dict[str, SourceLoc]]:
    """Where `def` and each parameter are, for locations and messages.

    Falls back to the code object's first line when the source is unavailable.
    """
    code = fn.__code__  # type: ignore[attr-defined]
    fallback = SourceLoc(code.co_filename, code.co_firstlineno, 1)
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return fallback, {}
    source = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip())
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return fallback, {}
    node = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)), None
    )
    if node is None:
        return fallback, {}

    def loc(n: ast.AST) -> SourceLoc:
        return SourceLoc(code.co_filename, first + n.lineno - 1, n.col_offset + indent + 1)

    args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    return loc(node), {a.arg: loc(a) for a in args}


def _read_params(
    fn: Callable[..., object],
    namespace: dict[str, object],
    def_loc: SourceLoc,
    positions: dict[str, SourceLoc],
) -> tuple[Param, ...]:
    params = []
    for p in inspect.signature(fn).parameters.values():
        where = positions.get(p.name, def_loc)
        with at(where):
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
                raise semantic.error(f"kernel parameter '{p.name}' must be a plain parameter")
            annotation = p.annotation
            if isinstance(annotation, str):
                try:
                    annotation = eval(annotation, fn.__globals__, namespace)  # type: ignore[attr-defined]
                except Exception as exc:
                    raise semantic.error(
                        f"the annotation of parameter '{p.name}' ({p.annotation}) cannot be "
                        f"evaluated: {exc}; with `from __future__ import annotations` it must "
                        "only use names visible where @T.prim_func is applied"
                    ) from None
            if not isinstance(annotation, TensorType | DType):
                raise semantic.error(
                    f"kernel parameter '{p.name}' needs an annotation: T.Tensor(shape, dtype) "
                    "for a tensor, or a dtype such as T.int32 or T.float32 for a scalar"
                )
            params.append(Param(p.name, annotation, where))
    return tuple(params)


class PrimFunc:
    """A kernel written in the DSL: `.name`, `.params`, `.build(context)`, `.ir()`."""

    def __init__(self, fn: Callable[..., object], namespace: dict[str, object]):
        self.fn = fn
        self.name: str = fn.__name__
        self.loc, positions = _source_positions(fn)
        self.params = _read_params(fn, namespace, self.loc, positions)
        self._text: str | None = None

    def build(self, context: ir.Context) -> ir.Module:
        """Traces the kernel into a new verified module in `context` (with tilec's dialects)."""
        try:
            return self._trace(context)
        except DSLError as exc:
            raise exc.with_traceback(None) from None
        except Exception as exc:
            where = traceback_loc(exc.__traceback__) or self.loc
            wrapped = DSLError(f"{type(exc).__name__}: {exc}", where)
            raise wrapped.with_traceback(None) from None

    def ir(self) -> str:
        """The tile IR text with locations, traced once in a context of its own."""
        if self._text is None:
            from tilec.ir import make_context

            module = self.build(make_context())
            self._text = module.operation.get_asm(enable_debug_info=True)
        return self._text

    def __repr__(self) -> str:
        return f"<T.prim_func {self.name}({', '.join(p.name for p in self.params)})>"

    def _trace(self, context: ir.Context) -> ir.Module:
        with context, self.loc.mlir(context):
            module = ir.Module.create()
            types = [p.mlir_type() for p in self.params]
            with ir.InsertionPoint(module.body):
                function = func.FuncOp(self.name, ir.FunctionType.get(types, []))
            function.attributes["tile.entry"] = ir.UnitAttr.get()
            function.attributes["arg_attrs"] = ir.ArrayAttr.get(
                [p.arg_attrs() for p in self.params]
            )
            block = function.add_entry_block([p.loc.mlir(context) for p in self.params])
            trace = Trace(context, function)
            with builder.tracing(trace):
                body = trace.open(RegionKind.FUNCTION, block, self.loc)
                args = [
                    self._bind(trace, p, a)
                    for p, a in zip(self.params, block.arguments, strict=True)
                ]
                result = self.fn(*args)
                if trace.pending is not None:
                    raise trace.pending
                if result is not None:
                    raise DSLError(
                        "a kernel returns nothing: write its results into T.Tensor parameters",
                        self.loc,
                    )
                with at(self.loc):
                    trace.close(body)
            _verify(module)
        return module

    def _bind(self, trace: Trace, param: Param, arg: ir.Value) -> Buffer | Scalar:
        body = trace.current
        if isinstance(param.type, DType):
            dtype = param.type if param.type.is_float else index
            return Scalar(arg, dtype, body)
        dims = semantic.symbolic_dims(trace)
        with at(param.loc):
            for axis, d in enumerate(param.type.shape):
                if isinstance(d, SymbolicDim) and d.name not in dims:
                    dims[d.name] = Scalar(builder.dim(arg, axis), index, body)
        return Buffer(
            arg, param.type.shape, param.type.dtype, "global", param.name, body, param.loc
        )


def _verify(module: ir.Module) -> None:
    try:
        module.operation.verify()
    except ir.MLIRError as exc:
        raise DSLError(from_mlir_error(exc).diagnostics) from None


def prim_func(fn: Callable[..., object]) -> PrimFunc:
    """Makes `fn` a kernel: `@T.prim_func def gemm(A: T.Tensor((M, K), "float16"), ...)`.

    String annotations (`from __future__ import annotations`) are evaluated
    with the names visible where the decorator is applied.
    """
    caller: FrameType | None = sys._getframe(1)
    namespace = dict(caller.f_locals) if caller is not None else {}
    try:
        return PrimFunc(fn, namespace)
    except DSLError as exc:
        raise exc.with_traceback(None) from None
