"""TileLang's eager kernels: a function of the tensors themselves, under `@tilec.jit`.

    @tilec.jit
    def matmul(A, B, block_M: int = 128):
        M, N, K = T.const("M, N, K")
        A: T.Tensor((M, K), T.float16)
        B: T.Tensor((K, N), T.float16)
        C = T.empty((M, N), T.float16)
        with T.Kernel(T.ceildiv(N, 128), T.ceildiv(M, block_M)) as (bx, by):
            ...
        return C

The parameters the body annotates (`A: ...`, a statement Python alone would
not evaluate) are the kernel's tensors; the others are Python values of the
build (tile sizes, dtypes), like a factory's arguments. When the body is
traced, `T.const` dims are Python ints, as TileLang's are: those given to
`matmul.compile(M=..., ...)`, or the sizes of a call's arrays. To learn which
dim of which tensor a const is, the body first runs with symbolic dims, only
until every tensor has its annotation (`EagerFunction.tensor_params`).
`T.dynamic` dims stay dynamic: one kernel serves every size.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from mlir import ir

from . import control, semantic
from .errors import DSLError
from .kernel import (
    CONST_DIMS,
    ConstDims,
    Param,
    PrimFunc,
    TensorType,
    check_recoverable,
    check_traceable,
    read_source,
)
from .rewrite import parse_definition, rewrite
from .source import at, caller_loc, traceback_loc
from .values import DimExpr, SymbolicDim

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
V = TypeVar("V")


def tensor_parameters(fn: object) -> tuple[str, ...]:
    """The parameters of `fn` that its body annotates without a value (`A: T.Tensor(...)`),
    in the order of the signature: empty unless `fn` is an eager kernel."""
    if not inspect.isfunction(fn):
        return ()
    parsed = parse_definition(fn)
    if parsed is None:
        return ()
    node = parsed[0]
    annotated, pending = set(), list(node.body)
    while pending:
        stmt = pending.pop()
        if isinstance(stmt, _SCOPES):
            continue
        bare = isinstance(stmt, ast.AnnAssign) and stmt.value is None
        if bare and isinstance(stmt.target, ast.Name):
            annotated.add(stmt.target.id)
        pending.extend(ast.iter_child_nodes(stmt))
    return tuple(name for name in inspect.signature(fn).parameters if name in annotated)


@contextmanager
def _bound(var: ContextVar[V], value: V) -> Iterator[None]:
    token = var.set(value)
    try:
        yield
    finally:
        var.reset(token)


class _AllAnnotated(Exception):
    """Every tensor parameter has its type: the rest of the body need not run."""


class _Unannotated:
    """A tensor parameter in the body before its annotation."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attribute: str) -> object:
        raise semantic.error(
            f"tensor parameter '{self._name}' is used before its annotation; write "
            f"`{self._name}: T.Tensor(shape, dtype)` first in the body"
        )


class EagerFunction:
    """An eager kernel's function: its tensor parameters and its rewritten body."""

    def __init__(self, fn: Callable[..., object]):
        check_traceable(fn)
        self.fn = fn
        self.name = fn.__name__
        self.source = read_source(fn)
        self.signature = inspect.signature(fn)
        for p in self.signature.parameters.values():
            if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
                with at(self.source.params.get(p.name, self.source.function)):
                    raise semantic.error(f"kernel parameter '{p.name}' must be a plain parameter")
        self.tensors = tensor_parameters(fn)
        body = rewrite(fn, control, self.tensors)  # type: ignore[arg-type]
        assert body is not None, "an eager kernel's annotations are rewritten"
        self.body: Callable[..., object] = body

    def values(self, given: Mapping[str, object]) -> dict[str, object]:
        """The build's Python values: `given`, and the defaults of the others."""
        values = {}
        for name, p in self.signature.parameters.items():
            if name in self.tensors:
                continue
            if name in given:
                values[name] = given[name]
            elif p.default is not p.empty:
                values[name] = p.default
            else:
                raise TypeError(f"{self.name}() is missing its argument '{name}'")
        return values

    def bind(self, args: tuple[object, ...], kwargs: dict[str, object],
             omitted: tuple[str, ...] = ()) -> tuple[dict[str, object], dict[str, object]]:
        """A call's Python values and its tensors, by parameter name; the call does not
        pass the tensors `omitted` (the workspaces the runtime allocates)."""
        signature = self.signature.replace(parameters=[
            p for p in self.signature.parameters.values() if p.name not in omitted])
        bound = signature.bind(*args, **kwargs)
        tensors = {name: bound.arguments.pop(name) for name in self.tensors
                   if name not in omitted}
        return self.values(bound.arguments), tensors

    def run(self, values: Mapping[str, object], tensors: Mapping[str, object]) -> object:
        return self.body(**values, **tensors)

    def tensor_params(self, values: Mapping[str, object], consts: ConstDims) -> dict[str, Param]:
        """Each tensor parameter's type, from its annotation: the body runs (with the
        `consts` T.const gives) until all are annotated."""
        found: dict[str, Param] = {}

        def annotate(name: str, current: control.Thunk, annotation: object) -> object:
            loc = caller_loc()
            if not isinstance(annotation, TensorType):
                with at(loc):
                    raise semantic.error(
                        f"tensor parameter '{name}' needs the annotation T.Tensor(shape, dtype) "
                        f"but got {annotation}"
                    )
            found.setdefault(name, Param(name, annotation, loc))
            if len(found) == len(self.tensors):
                raise _AllAnnotated
            return current()

        placeholders = {name: _Unannotated(name) for name in self.tensors}
        try:
            with _bound(CONST_DIMS, consts), _bound(control.ANNOTATE, annotate):
                self.run(values, placeholders)
        except _AllAnnotated:
            pass
        except Exception as exc:
            raise self._unannotated(exc, found) from None
        missing = [name for name in self.tensors if name not in found]
        if missing:
            raise DSLError(
                f"kernel '{self.name}': tensor parameter '{missing[0]}' was not annotated before "
                f"the body ended; write `{missing[0]}: T.Tensor(shape, dtype)` before the "
                "kernel uses it, outside any `if`",
                self.source.function,
            )
        params = [found[name] for name in self.tensors]
        check_recoverable(params, {p.name: p.loc for p in params})
        return found

    def _unannotated(self, exc: Exception, found: dict[str, Param]) -> DSLError:
        """The error of the body before every tensor was annotated, saying which is not
        (a DSL call such as `with T.Kernel` there fails for want of it)."""
        if not isinstance(exc, DSLError):
            where = traceback_loc(exc.__traceback__) or self.source.function
            exc = DSLError(f"{type(exc).__name__}: {exc}", where)
        missing = next(name for name in self.tensors if name not in found)
        return DSLError(
            f"{exc.message} (tensor parameter '{missing}' of eager kernel '{self.name}' has no "
            f"annotation yet: write `{missing}: T.Tensor(shape, dtype)` before this line, "
            "outside any `if`)",
            exc.loc,
        ).with_traceback(None)

    def const_sizes(self, values: Mapping[str, object], arrays: Mapping[str, object]
                    ) -> dict[str, int]:
        """The sizes of the T.const dims in the shapes of a call's arrays (a tensor the
        call does not pass takes its sizes from the others)."""
        consts = ConstDims(None)
        params = self.tensor_params(values, consts)
        sizes: dict[str, int] = {}
        whose: dict[str, str] = {}
        for name in self.tensors:
            if name not in arrays:
                continue
            param, array = params[name], arrays[name]
            shape = getattr(array, "shape", None)
            assert isinstance(param.type, TensorType)
            if shape is None:
                raise TypeError(
                    f"{self.name}(): argument '{name}' expects an array but got "
                    f"{type(array).__name__}"
                )
            if len(shape) != len(param.type.shape):
                raise TypeError(
                    f"{self.name}(): argument '{name}' expects {len(param.type.shape)} dims but "
                    f"got {len(shape)}"
                )
            for axis, (dim, size) in enumerate(zip(param.type.shape, shape, strict=True)):
                plain = isinstance(dim, SymbolicDim) and not isinstance(dim, DimExpr)
                if not plain or dim.name not in consts.asked:
                    continue
                known = sizes.setdefault(dim.name, int(size))
                whose.setdefault(dim.name, f"dim {axis} of '{name}'")
                if known != size:
                    raise ValueError(
                        f"{self.name}(): T.const dim '{dim.name}' is {known} in "
                        f"{whose[dim.name]} but {size} in dim {axis} of '{name}'"
                    )
        return sizes


class EagerKernel(PrimFunc):
    """An eager kernel built for one set of Python values and T.const sizes: a kernel
    like a `@T.prim_func`, whose parameters are the tensors (then its T.empty outputs)."""

    def __init__(self, function: EagerFunction, values: dict[str, object],
                 consts: dict[str, int]):
        params = function.tensor_params(values, ConstDims(consts))
        names = function.tensors

        def body(*tensors: object) -> object:
            return function.run(values, dict(zip(names, tensors, strict=True)))

        self._setup(function.fn, body, function.source, tuple(params[n] for n in names))
        self._consts = consts
        self.const_names: tuple[str, ...] = ()

    def _run(self, context: ir.Context) -> ir.Module:
        consts = ConstDims(self._consts)
        with _bound(CONST_DIMS, consts), _bound(control.ANNOTATE, None):
            module = super()._run(context)
        self.const_names = tuple(consts.asked)
        return module
