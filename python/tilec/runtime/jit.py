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
from collections.abc import Sequence

from mlir import ir
from mlir.dialects import memref

from tilec import backends
from tilec import ir as tilec_ir
from tilec.backends.base import Backend, Options
from tilec.runtime import cache, compiler
from tilec.runtime.cache import DiskCache, cache_dir, cache_key
from tilec.runtime.calls import (
    call_arguments,
    output_positions,
    returned,
    workspace_positions,
)
from tilec.runtime.compiler import CompiledKernel
from tilec.runtime.signature import Param, check_arguments, entry_params
from tilec.targets import TargetDescription

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


def load_or_build(module: ir.Module, target: TargetDescription, backend: Backend,
                  options: Options) -> CompiledKernel:
    """The kernel compiled from `module` for `target`: from the disk cache when an earlier
    process (or call) compiled the same IR with the same options, else built and stored
    (built only, while the cache is disabled)."""
    start = time.perf_counter()
    if not cache.enabled():
        return compiler.compile_module(module, target, backend, options, start)
    disk = DiskCache(cache_dir(), target, backend)
    text = module.operation.get_asm(enable_debug_info=True)
    key = cache_key(text, target, options)
    cached = disk.load(key, options)
    if cached is not None:
        return cached
    kernel = compiler.compile_module(module, target, backend, options, start)
    disk.store(key, kernel)
    return kernel


class JitKernel:
    """A kernel compiled on demand for each set of argument shapes."""

    def __init__(
        self,
        kernel: object,
        target: str | None,
        options: dict[str, object],
        out_idx: int | Sequence[int] | None = None,
        workspace_idx: int | Sequence[int] | None = None,
    ):
        self._kernel = kernel
        # A DSL kernel that returns its T.empty outputs names them itself.
        self._out_idx = out_idx if out_idx is not None else getattr(kernel, "out_idx", None)
        self._workspace_idx = workspace_idx
        self._target, self._backend, self._options = backends.configure(target, options)
        self._context = tilec_ir.make_context()
        self._module: ir.Module | None = None
        self._params: list[Param] = []
        self._compiled: dict[Shapes, CompiledKernel] = {}
        self._out_positions: tuple[int, ...] = ()
        self._workspace_positions: tuple[int, ...] = ()
        self._lock = threading.Lock()
        self.name = getattr(kernel, "name", None)

    @property
    def target(self) -> str:
        return self._target.spec

    @property
    def options(self) -> Options:
        """The compile options every specialization is compiled with (those given,
        `pass_configs`' among them, and the target's defaults)."""
        return self._options

    def _generic(self) -> tuple[ir.Module, list[Param]]:
        if self._module is None:
            module = compiler.load_module(self._kernel, self._context)
            with self._context, ir.Location.unknown(self._context):
                entry = compiler.find_entry(module)
                self._params = entry_params(entry)
                self.name = compiler.entry_name(entry)
            self._out_positions = output_positions(self._out_idx, len(self._params))
            self._workspace_positions = workspace_positions(
                self._workspace_idx, len(self._params), self._out_positions)
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
        return load_or_build(module, self._target, self._backend, self._options)

    def __call__(self, *args: object) -> object:
        """Runs the kernel; with `out_idx`, allocates and returns the outputs; with
        `workspace_idx`, allocates those parameters zero-filled, for this call only."""
        with self._lock:
            _, params = self._generic()
        full, outputs = call_arguments(self.name or "<kernel>", params, self._out_positions, args,
                                       self._backend.driver.takes_device_tensors,
                                       self._workspace_positions)
        self.compiled(*full)(*full)
        return returned(outputs)

    def run_ascendc(self, *args: object) -> object:
        """Runs the kernel's AscendC C++ on the CPU (`CompiledKernel.run_ascendc`)."""
        with self._lock:
            _, params = self._generic()
        full, outputs = call_arguments(self.name or "<kernel>", params, self._out_positions, args,
                                       False, self._workspace_positions)
        self.compiled(*full).run_ascendc(*full)
        return returned(outputs)

    def __repr__(self) -> str:
        return (
            f"<JitKernel {self.name or '?'} {self._target.spec}, "
            f"{len(self._compiled)} specializations>"
        )
