"""Kernel functions: `@T.prim_func`, their parameters, and tracing them into tile IR.

A decorated function is traced when IR is asked for (`.build(context)` or
`.ir()`): its source is rewritten so that its control flow on traced values
can be traced (`rewrite`), and it runs once with proxy values for its
parameters; the DSL calls it makes build a `func.func` marked `tile.entry`.
Tensor parameters become memrefs (symbolic dims, and expressions of them
such as `T.ceildiv(K, 128)`, as `?`), integer scalars
`index`, float scalars their float type; in the kernel an int32 or int64
scalar is an `index` value, a narrower or unsigned one (`T.uint8`) a value
of its dtype, whose range a call checks. A kernel returns nothing (a bare
`return` ends the trace early, as in Python) or, TileLang style, the output
tensors it declares with `T.empty`, which become its last parameters; it
calls no other kernel. Whatever goes wrong comes out as a DSLError at the
user's line, never as a traceback from inside tilec.
"""

from __future__ import annotations

import ast
import inspect
import re
import sys
import textwrap
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from types import FrameType
from typing import NoReturn

from mlir import ir
from mlir.dialects import func

from tilec.diagnostics import from_mlir_error
from tilec.dialects import tile

from . import builder, control, semantic
from .builder import RegionKind, Trace
from .dtypes import DType, index, int32, int64
from .errors import DSLError, SourceLoc
from .rewrite import rewrite
from .source import at, dsl_api, recursion_loc, traceback_loc
from .values import Buffer, Dim, DimExpr, Scalar, SymbolicDim


def _dims(what: str, name: object, dtype: object) -> SymbolicDim | tuple[SymbolicDim, ...]:
    """One symbolic dim, or a tuple of them for TileLang's "M, N" (or "M N")."""
    names = re.split(r"\s*,\s*|\s+", name.strip()) if isinstance(name, str) else [""]
    if not all(n.isidentifier() for n in names):
        raise semantic.error(f'{what} needs a name such as "M" (or "M, N") but got {name!r}')
    if semantic.as_dtype(dtype, what) not in (int32, int64):
        raise semantic.error(f"{what}: a dim is an int32 or int64 but got {dtype}")
    dims = tuple(SymbolicDim(n) for n in names)
    return dims[0] if len(dims) == 1 else dims


@dsl_api
def symbolic(name: str, dtype: str | DType = "int32") -> SymbolicDim | tuple[SymbolicDim, ...]:
    """A tensor dim known only at run time; dims of one name have one size.
    `T.symbolic("M, N")` gives a tuple, as in TileLang."""
    return _dims("T.symbolic", name, dtype)


@dsl_api
def dynamic(name: str, dtype: str | DType = "int32") -> SymbolicDim | tuple[SymbolicDim, ...]:
    """TileLang's name for T.symbolic: dims known at run time (`M, N = T.dynamic("M, N")`)."""
    return _dims("T.dynamic", name, dtype)


class ConstDims:
    """The sizes `T.const` gives while an eager kernel's body runs (see `eager`):
    None while its parameters' types are found (the dims stay symbolic), those of
    the call or of `.compile(**dims)` when it is traced; and the names asked for."""

    def __init__(self, values: dict[str, int] | None):
        self.values = values
        self.asked: list[str] = []

    def take(self, dim: SymbolicDim) -> SymbolicDim | int:
        self.asked.append(dim.name)
        if self.values is None:
            return dim
        if dim.name not in self.values:
            raise semantic.error(
                f"T.const dim '{dim.name}' has no size: give it as {dim.name}=... to .compile()"
            )
        return self.values[dim.name]


CONST_DIMS: ContextVar[ConstDims | None] = ContextVar("tilec_const_dims", default=None)


@dsl_api
def const(name: str, dtype: str | DType = "int32") -> Dim | tuple[Dim, ...]:
    """TileLang's dims taken from the shapes of the arguments (`M, N = T.const("M, N")`).

    In a `@T.prim_func` they are symbolic dims: `tilec.compile` makes one kernel
    for all shapes and `tilec.jit` specializes it on the shapes of each call. In
    an eager `@tilec.jit` kernel's body they are the Python ints of the call's
    shapes (or of `.compile(M=...)`), as TileLang's are.
    """
    dims = _dims("T.const", name, dtype)
    bound = CONST_DIMS.get()
    if bound is None:
        return dims
    if isinstance(dims, tuple):
        return tuple(bound.take(d) for d in dims)
    return bound.take(dims)


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
def _tensor(
    shape: object, dtype: str | DType = "float32", data: object = None
) -> TensorType | Buffer:
    """A tensor parameter in global memory: ints are static dims, names or T.symbolic dynamic,
    and so are expressions of them (`T.ceildiv(K, 128)`, `2 * N`), whose sizes a call checks.

    With `data` (`T.Tensor(shape, dtype, buf.data)` in a kernel's body), a view of the
    contiguous buffer `buf` with another shape of as many elements, as in TileLang.
    """
    if data is not None:
        return semantic.view(shape, dtype, data)
    dims = shape if isinstance(shape, tuple | list) else (shape,)
    normalized: list[Dim] = []
    for axis, d in enumerate(dims):
        if isinstance(d, str):
            d = symbolic(d)
        size = semantic.python_int(d, f"T.Tensor dim {axis}")
        if size is not None:
            d = size
        if isinstance(d, bool) or not isinstance(d, int | SymbolicDim):
            raise semantic.error(
                f"T.Tensor: dim {axis} must be a Python int, a name or T.symbolic(name) but "
                f"got {d!r} (or an expression of them: {semantic.DIM_OPERATIONS})"
            )
        if isinstance(d, int) and d < 0:
            raise semantic.error(f"T.Tensor: dim {axis} must not be negative but got {d}")
        normalized.append(d)
    if not normalized:
        raise semantic.error("T.Tensor needs at least one dim")
    return TensorType(tuple(normalized), semantic.as_dtype(dtype, "T.Tensor"))


class _TensorAnnotation:
    """`T.Tensor(shape, dtype)`, or TileLang's subscript form `T.Tensor[shape, dtype]`
    (`T.Tensor[(M, N), "float16"]`, `T.Tensor[(M, N), T.float16]`, `T.Tensor[(M, N)]` for
    float32): a tensor parameter in global memory. Ints are static dims, names or
    T.symbolic dynamic, and so are expressions of them (`T.ceildiv(K, 128)`, `2 * N`),
    whose sizes a call checks.

    With `data` (`T.Tensor(shape, dtype, buf.data)` in a kernel's body), a view of the
    contiguous buffer `buf` with another shape of as many elements, as in TileLang.
    """

    def __call__(self, shape: object, dtype: str | DType = "float32",
                 data: object = None) -> TensorType | Buffer:
        return _tensor(shape, dtype, data)

    def __getitem__(self, key: object) -> TensorType | Buffer:
        if isinstance(key, tuple) and len(key) == 2 and isinstance(key[1], str | DType):
            return _tensor(key[0], key[1])
        return _tensor(key)


Tensor = _TensorAnnotation()


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
        """`tile.name` and, for tensors, `tile.dims`: the names the runtime's errors use;
        `tile.dtype` for an unsigned element type, which the memref's signless integer
        type does not tell, and for a scalar the kernel sees as a narrow or unsigned
        integer."""
        attrs = {"tile.name": ir.StringAttr.get(self.name)}
        if isinstance(self.type, TensorType):
            attrs["tile.dims"] = ir.ArrayAttr.get(
                [
                    ir.StringAttr.get(str(d) if isinstance(d, int) else d.name)
                    for d in self.type.shape
                ]
            )
            if self.type.dtype.is_unsigned:
                attrs["tile.dtype"] = ir.StringAttr.get(self.type.dtype.name)
        elif self.kernel_dtype.kind in ("int", "uint"):
            # The range a call checks, since the scalar is passed as an `index`.
            attrs["tile.dtype"] = ir.StringAttr.get(self.type.name)
        return ir.DictAttr.get(attrs)

    @property
    def kernel_dtype(self) -> DType:
        """What a scalar parameter is in the kernel: int32, int64 (and bool, as before) are
        `index`, the other integers their own dtype (passed as `index`), floats their
        float type."""
        assert isinstance(self.type, DType)
        narrow = self.type.kind == "int" and self.type.bits < 32
        if self.type.is_float or self.type.is_unsigned or narrow:
            return self.type
        return index


@dataclass(frozen=True)
class Source:
    """Where the parts of a kernel function are, for locations and messages."""

    function: SourceLoc
    params: dict[str, SourceLoc]
    annotations: dict[str, SourceLoc]
    # `return <value>` statements, where a wrong result is reported (see PrimFunc._run).
    value_returns: tuple[SourceLoc, ...]


def _value_returns(function: ast.FunctionDef) -> list[ast.Return]:
    """The function's own `return <value>` statements, not those of functions nested in it."""
    found, pending = [], list(function.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        # `return None` is a bare return spelled out.
        value = node.value if isinstance(node, ast.Return) else None
        if value is not None and not (isinstance(value, ast.Constant) and value.value is None):
            found.append(node)
        pending.extend(ast.iter_child_nodes(node))
    return sorted(found, key=lambda node: (node.lineno, node.col_offset))


def read_source(fn: Callable[..., object]) -> Source:
    """Where `def`, each parameter, its annotation and each `return <value>` of `fn` are.

    Falls back to the code object's first line when the source is unavailable.
    """
    code = fn.__code__  # type: ignore[attr-defined]
    fallback = Source(SourceLoc(code.co_filename, code.co_firstlineno, 1), {}, {}, ())
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return fallback
    source = textwrap.dedent("".join(lines))
    indent = len(lines[0]) - len(lines[0].lstrip())
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return fallback
    # The name check skips an enclosing def when `fn` is a lambda on its line.
    node = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == fn.__name__),
        None,
    )
    if node is None:
        return fallback

    def loc(n: ast.AST) -> SourceLoc:
        return SourceLoc(code.co_filename, first + n.lineno - 1, n.col_offset + indent + 1)

    args = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
    returns = tuple(map(loc, _value_returns(node)))
    annotations = {a.arg: loc(a.annotation) for a in args if a.annotation is not None}
    return Source(loc(node), {a.arg: loc(a) for a in args}, annotations, returns)


def _read_params(
    fn: Callable[..., object],
    namespace: dict[str, object],
    def_loc: SourceLoc,
    positions: dict[str, SourceLoc],
    annotations: dict[str, SourceLoc],
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
                except DSLError as exc:
                    # A DSL rule the annotation breaks (`M / 2`), already at its parameter.
                    raise exc.with_traceback(None) from None
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
    check_recoverable(params, annotations)
    return tuple(params)


def check_recoverable(params: list[Param], annotations: dict[str, SourceLoc]) -> None:
    """A dim expression (`T.ceildiv(K, 128)`) is computed from symbolic dims that some
    tensor parameter has plainly: a call gives their sizes, from which the runtime
    checks the expression's dim and the kernel computes its value. A dim used only
    inside expressions would have to be solved for, which tilec does not do."""
    tensors = [p for p in params if isinstance(p.type, TensorType)]
    plain = {
        d.name
        for p in tensors
        for d in p.type.shape  # type: ignore[union-attr]
        if isinstance(d, SymbolicDim) and not isinstance(d, DimExpr)
    }
    for p in tensors:
        for axis, d in enumerate(p.type.shape):  # type: ignore[union-attr]
            missing = [n for n in d.symbols() if n not in plain] if isinstance(d, DimExpr) else []
            if missing:
                raise DSLError(
                    f"T.Tensor dim {axis} of '{p.name}' is {d.name}, but dim '{missing[0]}' is "
                    "not a dim of any tensor parameter by itself, so it cannot be recovered "
                    f"from the arguments; add a tensor parameter that has {missing[0]} as a "
                    f"dim, or make {missing[0]} a Python int",
                    annotations.get(p.name, p.loc),
                )


# The kernels being traced in this context, outermost first: one that is
# called or built again while it is traced would recurse without end.
_tracing: ContextVar[tuple[PrimFunc, ...]] = ContextVar("tilec_language_kernels", default=())


def _calls_itself(name: str) -> str:
    return f"kernel '{name}' calls itself; kernels cannot be recursive"


def check_traceable(fn: object) -> None:
    """`fn` must be a function whose body runs when called: the trace is that run."""
    if not inspect.isfunction(fn):
        raise semantic.error(f"T.prim_func needs a Python function but got {fn!r}")
    if inspect.isgeneratorfunction(fn) or inspect.iscoroutinefunction(fn):
        raise semantic.error(
            f"T.prim_func needs a plain function but '{fn.__name__}' is a generator or async "
            "function, whose body does not run when it is called"
        )


class PrimFunc:
    """A kernel written in the DSL: `.name`, `.params`, `.build(context)`, `.ir()`."""

    def __init__(self, fn: Callable[..., object], namespace: dict[str, object]):
        check_traceable(fn)
        source = read_source(fn)
        params = _read_params(fn, namespace, source.function, source.params, source.annotations)
        # What the trace runs: the function with its control flow rewritten
        # to be traced (see `rewrite`), or itself when there is none.
        self._setup(fn, rewrite(fn, control) or fn, source, params)  # type: ignore[arg-type]

    def _setup(
        self, fn: Callable[..., object], body: Callable[..., object], source: Source,
        params: tuple[Param, ...],
    ) -> None:
        self.fn = fn
        self._body = body
        self.name: str = fn.__name__
        self.loc = source.function
        self._value_returns = source.value_returns
        self.params = params
        self._text: str | None = None
        self._outputs: int | None = None

    def __call__(self, *args: object, **kwargs: object) -> NoReturn:
        """A kernel is not a Python function: it runs compiled, launched from the host.

        Inside a kernel it cannot be called either: like TileLang's prim_funcs,
        kernels do not call one another.
        """
        kernels = _tracing.get()
        if self in kernels:
            raise semantic.error(_calls_itself(self.name))
        if kernels:
            raise semantic.error(
                f"kernel '{kernels[-1].name}' calls kernel '{self.name}'; a kernel cannot call "
                "another, so write the shared code as a plain Python function and call that"
            )
        raise semantic.error(
            f"kernel '{self.name}' cannot be called directly; compile it with "
            f"tilec.compile({self.name}) and call the result"
        )

    def build(self, context: ir.Context) -> ir.Module:
        """Traces the kernel into a new verified module in `context` (with tilec's dialects)."""
        try:
            return self._trace(context)
        except DSLError as exc:
            raise exc.with_traceback(None) from None
        except Exception as exc:
            raise self._unexpected(exc).with_traceback(None) from None

    def _unexpected(self, exc: Exception) -> DSLError:
        """A Python error the kernel's code ran into, at the user's line where it happened.

        A runaway recursion is reported where it began, the line of the first
        recursive call, rather than wherever Python's limit struck (often
        inside MLIR's bindings).
        """
        recursion = recursion_loc(exc.__traceback__) if isinstance(exc, RecursionError) else None
        if recursion is None:
            where = traceback_loc(exc.__traceback__) or self.loc
            return DSLError(f"{type(exc).__name__}: {exc}", where)
        where, code = recursion
        if code is self._body.__code__:  # type: ignore[attr-defined]
            return DSLError(_calls_itself(self.name), where)
        return DSLError(
            f"function '{code.co_qualname}' calls itself without end while the kernel is "
            f"traced (past Python's recursion limit of {sys.getrecursionlimit()})",
            where,
        )

    @property
    def out_idx(self) -> list[int]:
        """The positions of the outputs the kernel declares with T.empty, as TileLang's
        `out_idx` counts them (`[-1]`): the last parameters of the traced function."""
        if self._outputs is None:
            self.ir()
        assert self._outputs is not None, "tracing counted the outputs"
        return list(range(-self._outputs, 0))

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
        kernels = _tracing.get()
        if self in kernels:
            raise semantic.error(_calls_itself(self.name))
        token = _tracing.set((*kernels, self))
        try:
            return self._run(context)
        finally:
            _tracing.reset(token)

    def _run(self, context: ir.Context) -> ir.Module:
        """One tracing of the kernel function into a module in `context`."""
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
                self._bind_dims(trace, block.arguments)
                args = [
                    self._bind(trace, p, a)
                    for p, a in zip(self.params, block.arguments, strict=True)
                ]
                result = self._body(*args)
                if trace.pending is not None:
                    raise trace.pending
                # Without the source (exec'd code) the definition is the best place.
                with at(self._value_returns[0] if self._value_returns else self.loc):
                    semantic.check_result(trace, result)
                self._outputs = len(semantic.outputs(trace))
                with at(self.loc):
                    trace.close(body)
            _verify(module)
        return module

    def _bind(self, trace: Trace, param: Param, arg: ir.Value) -> Buffer | Scalar:
        body = trace.current
        if isinstance(param.type, DType):
            dtype = param.kernel_dtype
            if dtype.is_float or dtype == index:
                return Scalar(arg, dtype, body)
            with at(param.loc):
                return semantic.convert(Scalar(arg, index, body), dtype)
        return Buffer(
            arg, param.type.shape, param.type.dtype, "global", param.name, body, param.loc
        )

    def _bind_dims(self, trace: Trace, arguments: Sequence[ir.Value]) -> None:
        """The value of each symbolic dim: the size of the first tensor that has it
        plainly; then each dim expression's, computed from those (so every tensor's
        dims are known before any expression needs them)."""
        dims = semantic.symbolic_dims(trace)
        tensors = [
            (p, a) for p, a in zip(self.params, arguments, strict=True)
            if isinstance(p.type, TensorType)
        ]
        for param, arg in tensors:
            with at(param.loc):
                for axis, d in enumerate(param.type.shape):  # type: ignore[union-attr]
                    plain = isinstance(d, SymbolicDim) and not isinstance(d, DimExpr)
                    if plain and d.name not in dims:
                        dims[d.name] = Scalar(builder.dim(arg, axis), index, trace.current)
        for param, _ in tensors:
            with at(param.loc):
                for d in param.type.shape:  # type: ignore[union-attr]
                    if isinstance(d, DimExpr) and d.name not in dims:
                        dims[d.name] = semantic.derived_value(d)


def _verify(module: ir.Module) -> None:
    try:
        module.operation.verify()
    except ir.MLIRError as exc:
        raise DSLError(from_mlir_error(exc).diagnostics) from None


@dsl_api
def macro(fn: Callable[..., object]) -> Callable[..., object]:
    """Makes `fn` a helper that kernels call (TileLang's `T.macro`): its body is
    rewritten like a kernel's, so `if`, `and`, `or` and `not` on traced values, and
    assignments to T.alloc_var, work in it. Calling it inlines its ops where it is
    called, as calling any Python function in a kernel does."""
    if not inspect.isfunction(fn):
        raise semantic.error(f"T.macro needs a Python function but got {fn!r}")
    return rewrite(fn, control) or fn


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
