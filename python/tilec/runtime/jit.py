"""`tilec.jit`: compile a kernel for the shapes it is called with, once.

At a call with shapes not seen before, the kernel's dynamic dims are
replaced by the actual sizes (each tensor argument gets a static memref
type and a `memref.cast` back to the generic type, which canonicalization
folds into its users), so bounds checks of interior tiles and loop trip
counts become constants. The result is kept in memory for the JitKernel
and on disk (see `tilec.runtime.cache`) for later processes.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
from mlir import ir
from mlir.dialects import memref

from tilec import ir as tilec_ir
from tilec.runtime import compiler
from tilec.runtime.cache import DiskCache, cache_dir, cache_key
from tilec.runtime.compiler import CompiledKernel, Options
from tilec.runtime.signature import Param, check_arguments, entry_params

Shapes = tuple[tuple[int, ...] | None, ...]


def specialize(text: str, shapes: Shapes) -> str:
    """`text` with the entry's tensor arguments given the static `shapes`."""
    context = tilec_ir.make_context()
    with context, ir.Location.unknown(context):
        module = tilec_ir.parse_module(text, "<jit>", context)
        entry = compiler.find_entry(module)
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
        return module.operation.get_asm(enable_debug_info=True)


class JitKernel:
    """A kernel compiled on demand for each set of argument shapes."""

    def __init__(self, kernel: object, options: Options):
        self._kernel = kernel
        self._options = options
        self._text: str | None = None
        self._params: list[Param] = []
        self._compiled: dict[Shapes, CompiledKernel] = {}
        self.name = getattr(kernel, "name", None)

    def _generic(self) -> tuple[str, list[Param]]:
        if self._text is None:
            context = tilec_ir.make_context()
            self._text = compiler.source_text(self._kernel, context)
            with context, ir.Location.unknown(context):
                module = tilec_ir.parse_module(self._text, "<jit>", context)
                entry = compiler.find_entry(module)
                self._params = entry_params(entry)
                self.name = ir.StringAttr(entry.attributes["sym_name"]).value
        return self._text, self._params

    def compiled(self, *args: object) -> CompiledKernel:
        """The kernel specialized for these arguments' shapes, compiling or
        loading it from the disk cache when needed."""
        text, params = self._generic()
        check_arguments(self.name or "<kernel>", params, args)
        shapes: Shapes = tuple(a.shape if isinstance(a, np.ndarray) else None for a in args)
        if shapes not in self._compiled:
            self._compiled[shapes] = self._load_or_build(specialize(text, shapes))
        return self._compiled[shapes]

    def _load_or_build(self, text: str) -> CompiledKernel:
        disk = DiskCache(cache_dir())
        key = cache_key(text, self._options)
        cached = disk.load(key, self._options.opt_level)
        if cached is not None:
            return cached
        start = time.perf_counter()
        context = tilec_ir.make_context()
        kernel, engine = compiler.build(text, context, self._options, start, self.name or "<jit>")
        disk.store(key, kernel, engine)
        return kernel

    def __call__(self, *args: object) -> None:
        self.compiled(*args)(*args)

    def __repr__(self) -> str:
        return f"<JitKernel {self.name or '?'} cpu, {len(self._compiled)} specializations>"


def jit(
    kernel: object | None = None, *, target: str = "cpu", **options: object
) -> JitKernel | Callable[[object], JitKernel]:
    """Wraps `kernel` (a DSL kernel, an ir.Module or tile IR text) so that it
    compiles for the shapes of its arguments at the first call with them.

    Usable as `tilec.jit(kernel)`, `@tilec.jit` or `@tilec.jit(opt_level=2)`;
    takes the options of `tilec.compile`. Compiled kernels are cached in
    memory and in `$TILEC_CACHE_DIR` (default ~/.cache/tilec).
    """
    compiler.check_target(target)
    opts = compiler.options_from(options)
    if kernel is None:
        return lambda k: JitKernel(k, opts)
    return JitKernel(kernel, opts)
