"""`tilec.compile`: tile IR -> tile-to-cpu pipeline -> native code -> CompiledKernel.

The pipeline runs one pass at a time so that the IR after every pass can
be looked at afterwards (`.ir(stage)`) and, with `timing=True`, each pass
has its own wall time. Printing a stage costs about as much as running a
cheap pass, which is why it happens for every compile: a user debugging a
kernel should not have to compile it again to see its IR.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from mlir import ir

from tilec import ir as tilec_ir
from tilec.diagnostics import CompileError, Diagnostic
from tilec.passes.pipeline import Pipeline, build_pass_manager, parse_pipeline
from tilec.runtime import native
from tilec.runtime.signature import (
    Param,
    check_arguments,
    check_scalar_supported,
    entry_params,
    packed_arguments,
)

PIPELINE = "tile-to-cpu"
TARGETS = ("cpu",)


@dataclass(frozen=True)
class Options:
    """What changes the generated code (and so belongs to the cache key)."""

    opt_level: int = 3
    timing: bool = False

    def key(self) -> str:
        return f"opt_level={self.opt_level}"


class CompiledKernel:
    """A kernel compiled for the cpu: call it on numpy arrays and scalars.

    Arrays are passed by reference, so outputs are written in place into
    the arrays given for them. Arguments are checked against the entry
    function's signature before the call (see `tilec.runtime.signature`).
    """

    def __init__(
        self,
        name: str,
        params: Sequence[Param],
        function: native.NativeKernel,
        stages: dict[str, str],
        timings: dict[str, float] | None,
        compile_seconds: float,
    ):
        self.name = name
        self.params = list(params)
        self._function = function
        self._stages = stages
        self._timings = timings
        self.compile_seconds = compile_seconds

    def __call__(self, *args: object) -> None:
        check_arguments(self.name, self.params, args)
        packed, keep = packed_arguments(self.params, args)
        self._function(packed)
        del keep

    def stages(self) -> list[str]:
        """The names `ir` accepts, in pipeline order."""
        return list(self._stages)

    def ir(self, stage: str = "tile") -> str:
        """The IR at `stage`: "tile" (the input), a pass of the pipeline (the IR
        after it), or "llvm" (the LLVM dialect that was compiled)."""
        if stage not in self._stages:
            raise KeyError(f"no stage '{stage}'; stages: {', '.join(self._stages)}")
        return self._stages[stage]

    def timings(self) -> dict[str, float]:
        """Wall seconds of each pass and of the native code generation."""
        if self._timings is None:
            raise RuntimeError(
                f"kernel '{self.name}' was compiled without timing=True"
                + ("" if self._stages.get("tile") else " or loaded from the cache")
            )
        return dict(self._timings)

    def __repr__(self) -> str:
        signature = ", ".join(p.name for p in self.params)
        return f"<CompiledKernel {self.name}({signature}) cpu>"


@dataclass
class Lowered:
    """A module after the pipeline, with everything a CompiledKernel needs."""

    module: ir.Module
    entry: str
    params: list[Param]
    stages: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)


def source_text(kernel: object, context: ir.Context) -> str:
    """Tile IR text (with locations) of a DSL kernel, a module or IR text."""
    if isinstance(kernel, str):
        return kernel
    if isinstance(kernel, ir.Module):
        return kernel.operation.get_asm(enable_debug_info=True)
    build = getattr(kernel, "build", None)
    if callable(build):
        with context:
            module = build(context)
        return module.operation.get_asm(enable_debug_info=True)
    raise TypeError(
        "tilec.compile expects a DSL kernel (with .build(context)), an ir.Module or IR text, "
        f"not {type(kernel).__name__}"
    )


def find_entry(module: ir.Module) -> ir.Operation:
    entries = [
        op.operation
        for op in module.body.operations
        if op.operation.name == "func.func" and "tile.entry" in op.operation.attributes
    ]
    if len(entries) != 1:
        names = ", ".join(ir.StringAttr(e.attributes["sym_name"]).value for e in entries)
        found = f"{len(entries)} ({names})" if entries else "none"
        raise CompileError(
            Diagnostic(
                "error",
                f"expected one function with the tile.entry attribute but found {found}",
            )
        )
    return entries[0]


def lower(text: str, context: ir.Context, source_name: str) -> Lowered:
    """Parses tile IR and runs tile-to-cpu pass by pass, keeping each stage."""
    with context, ir.Location.unknown(context):
        module = tilec_ir.parse_module(text, source_name, context)
        entry = find_entry(module)
        name = ir.StringAttr(entry.attributes["sym_name"]).value
        params = entry_params(entry)
        for param in params:
            check_scalar_supported(param)
        lowered = Lowered(module, name, params)
        lowered.stages["tile"] = str(module)
        for leaf in parse_pipeline(PIPELINE).leaves:
            pass_manager = build_pass_manager(Pipeline([leaf]), context)
            start = time.perf_counter()
            try:
                pass_manager.run(module.operation)
            except ir.MLIRError as exc:
                diagnostics = [Diagnostic.from_mlir(d) for d in exc.error_diagnostics]
                raise CompileError(diagnostics or [Diagnostic("error", str(exc))]) from None
            stage = _unique(leaf.element.name, lowered.stages)
            lowered.timings[stage] = time.perf_counter() - start
            lowered.stages[stage] = str(module)
        lowered.stages["llvm"] = str(module)
        return lowered


def _unique(name: str, taken: dict[str, str]) -> str:
    if name not in taken:
        return name
    count = 2
    while f"{name}#{count}" in taken:
        count += 1
    return f"{name}#{count}"


def check_target(target: str) -> None:
    if target not in TARGETS:
        raise ValueError(f"unknown target '{target}'; tilec.compile supports {', '.join(TARGETS)}")


def options_from(kwargs: dict[str, object]) -> Options:
    unknown = set(kwargs) - {"opt_level", "timing"}
    if unknown:
        raise TypeError(f"unknown compile options: {', '.join(sorted(unknown))}")
    return Options(**kwargs)  # type: ignore[arg-type]


def compile(kernel: object, target: str = "cpu", **options: object) -> CompiledKernel:
    """Compiles `kernel` (a DSL kernel, an ir.Module or tile IR text with one
    `tile.entry` function) for `target`.

    Options: `opt_level` (LLVM optimization level, default 3) and `timing`
    (record per-pass wall times, see `CompiledKernel.timings`). Raises
    `tilec.diagnostics.CompileError` with MLIR-style diagnostics when the IR
    is invalid or a pass fails.
    """
    check_target(target)
    opts = options_from(options)
    start = time.perf_counter()
    context = tilec_ir.make_context()
    text = source_text(kernel, context)
    return build(text, context, opts, start, getattr(kernel, "name", "<kernel>"))[0]


def build(
    text: str, context: ir.Context, opts: Options, start: float, source_name: str
) -> tuple[CompiledKernel, object]:
    """Lowers and JIT-compiles; also returns the engine (to dump its object)."""
    lowered = lower(text, context, source_name)
    codegen_start = time.perf_counter()
    with context:
        function, engine = native.jit(lowered.module, lowered.entry, opts.opt_level)
    lowered.timings["llvm-codegen"] = time.perf_counter() - codegen_start
    kernel = CompiledKernel(
        lowered.entry,
        lowered.params,
        function,
        lowered.stages,
        lowered.timings if opts.timing else None,
        time.perf_counter() - start,
    )
    return kernel, engine
