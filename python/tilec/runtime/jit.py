"""`tilec.jit`: compile a kernel for the shapes it is called with, once.

The kernel's tile IR is built (or parsed) once. At a call with shapes not
seen before, a copy of it gets the actual sizes in place of its dynamic
dims (each tensor argument gets a static memref type and a `memref.cast`
back to the generic type, which canonicalization folds into its users), so
bounds checks of interior tiles and loop trip counts become constants. The
result is kept in memory for the JitKernel and on disk (see
`tilec.runtime.cache`) for later processes. The first calls of a kernel
from several threads compile it once: the others wait for it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from mlir import ir
from mlir.dialects import memref

from tilec import backends
from tilec import ir as tilec_ir
from tilec.runtime import compiler
from tilec.runtime.cache import DiskCache, cache_dir, cache_key
from tilec.runtime.calls import call_arguments, output_positions, returned
from tilec.runtime.compiler import CompiledKernel
from tilec.runtime.signature import Param, check_arguments, entry_params

Shapes = tuple[tuple[int, ...] | None, ...]


def specialize(module: ir.Module, shapes: Shapes) -> ir.Module:
    """A copy of `module` whose entry's tensor arguments have the static `shapes`."""
    with module.context, ir.Location.unknown(module.context):
        copy = ir.Module.create()
        for name in module.operation.attributes:
            copy.operation.attributes[name] = module.operation.attributes[name]
        with ir.InsertionPoint(copy.body):
            for op in module.body.operations:
                op.operation.clone()
        entry = compiler.find_entry(copy)
        block = entry.regions[0].blocks[0]
        first = next(iter(block.operations)).operation
        for argument, shape in zip(block.arguments, shapes, strict=True):
            if shape is None:
                continue
            generic = ir.MemRefType(argument.type)
            if generic.has_static_shape:
                continue
            static = ir.MemRefType.get(list(shape), generic.element_type, generic.layout)
            argument.set_type(static)
            with ir.InsertionPoint(first):
                cast = memref.cast(generic, argument)
            argument.replace_all_uses_except(cast, cast.owner.operation)
        function_type = ir.FunctionType(ir.TypeAttr(entry.attributes["function_type"]).value)
        entry.attributes["function_type"] = ir.TypeAttr.get(
            ir.FunctionType.get([a.type for a in block.arguments], function_type.results)
        )
        return copy


class JitKernel:
    """A kernel compiled on demand for each set of argument shapes."""

    def __init__(
        self,
        kernel: object,
        target: str | None,
        options: dict[str, object],
        out_idx: int | Sequence[int] | None = None,
    ):
        self._kernel = kernel
        # A DSL kernel that returns its T.empty outputs names them itself.
        self._out_idx = out_idx if out_idx is not None else getattr(kernel, "out_idx", None)
        self._target, self._backend, self._options = backends.configure(target, options)
        self._context = tilec_ir.make_context()
        self._module: ir.Module | None = None
        self._params: list[Param] = []
        self._compiled: dict[Shapes, CompiledKernel] = {}
        self._out_positions: tuple[int, ...] = ()
        self._lock = threading.Lock()
        self.name = getattr(kernel, "name", None)

    @property
    def target(self) -> str:
        return self._target.spec

    def _generic(self) -> tuple[ir.Module, list[Param]]:
        if self._module is None:
            module = compiler.load_module(self._kernel, self._context)
            with self._context, ir.Location.unknown(self._context):
                entry = compiler.find_entry(module)
                self._params = entry_params(entry)
                self.name = compiler.entry_name(entry)
            self._out_positions = output_positions(self._out_idx, len(self._params))
            self._module = module
        return self._module, self._params

    def compiled(self, *args: object) -> CompiledKernel:
        """The kernel specialized for these arguments' shapes, compiling or
        loading it from the disk cache when needed."""
        with self._lock:
            module, params = self._generic()
            check_arguments(self.name or "<kernel>", params, args)
            shapes: Shapes = tuple(
                tuple(a.shape) if params[i].is_array else None for i, a in enumerate(args)
            )
            if shapes not in self._compiled:
                self._compiled[shapes] = self._load_or_build(specialize(module, shapes))
            return self._compiled[shapes]

    def _load_or_build(self, module: ir.Module) -> CompiledKernel:
        start = time.perf_counter()
        disk = DiskCache(cache_dir(), self._target, self._backend)
        text = module.operation.get_asm(enable_debug_info=True)
        key = cache_key(text, self._target, self._options)
        cached = disk.load(key, self._options)
        if cached is not None:
            return cached
        kernel = compiler.compile_module(module, self._target, self._backend, self._options, start)
        disk.store(key, kernel)
        return kernel

    def __call__(self, *args: object) -> object:
        """Runs the kernel; with `out_idx`, allocates and returns the outputs."""
        with self._lock:
            _, params = self._generic()
        full, outputs = call_arguments(self.name or "<kernel>", params, self._out_positions, args,
                                       self._backend.driver.takes_device_tensors)
        self.compiled(*full)(*full)
        return returned(outputs)

    def __repr__(self) -> str:
        return (
            f"<JitKernel {self.name or '?'} {self._target.spec}, "
            f"{len(self._compiled)} specializations>"
        )


class JitFactory:
    """A function that returns a kernel (TileLang's `@tilelang.jit` style):
    each call makes (once per set of arguments) a JitKernel of its result."""

    def __init__(
        self,
        factory: Callable[..., object],
        target: str | None,
        options: dict[str, object],
        out_idx: int | Sequence[int] | None,
    ):
        self._factory = factory
        self._target, self._options, self._out_idx = target, options, out_idx
        self._kernels: dict[object, JitKernel] = {}
        self.__name__ = getattr(factory, "__name__", "kernel")
        self.__doc__ = getattr(factory, "__doc__", None)

    def __call__(self, *args: object, **kwargs: object) -> JitKernel:
        key = (args, tuple(sorted(kwargs.items())))
        try:
            cached = self._kernels.get(key)
        except TypeError:  # unhashable arguments: a kernel per call
            key, cached = None, None
        if cached is None:
            cached = JitKernel(
                self._factory(*args, **kwargs), self._target, self._options, self._out_idx
            )
            if key is not None:
                self._kernels[key] = cached
        return cached


def _is_factory(kernel: object) -> bool:
    """A plain function, not a DSL kernel, module or IR text."""
    return callable(kernel) and not hasattr(kernel, "build") and not isinstance(kernel, str)


def jit(
    kernel: object | None = None,
    *,
    target: str | None = None,
    out_idx: int | Sequence[int] | None = None,
    **options: object,
) -> JitKernel | JitFactory | Callable[[object], JitKernel | JitFactory]:
    """Wraps `kernel` (a DSL kernel, an ir.Module or tile IR text) so that it
    compiles for the shapes of its arguments at the first call with them.

    Usable as `tilec.jit(kernel)`, `@tilec.jit` or `@tilec.jit(opt_level=2)`;
    takes the target and options of `tilec.compile`. Compiled kernels are
    cached in memory and in `$TILEC_CACHE_DIR` (default ~/.cache/tilec).

    On a function that returns a kernel (`@tilec.jit(out_idx=[-1])` over
    `def matmul(M, N, K, ...): ... return gemm`, as with `tilelang.jit`),
    calling the function gives the JitKernel of the kernel it returns. With
    `out_idx` the kernel is called with its inputs only and returns the
    outputs it allocates (`C = kernel(A, B)`).
    """

    def wrap(k: object) -> JitKernel | JitFactory:
        if _is_factory(k):
            return JitFactory(k, target, options, out_idx)  # type: ignore[arg-type]
        return JitKernel(k, target, options, out_idx)

    # Check the target and options where they are written, not at the first call.
    backends.configure(target, options)
    return wrap if kernel is None else wrap(kernel)
