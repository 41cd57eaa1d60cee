"""`tilec.compile`: tile IR -> the target's pipeline -> its backend -> CompiledKernel.

Nothing here knows a target: the target spec resolves to a description and
a backend (`tilec.backends`), whose pipeline runs one pass at a time so
that, with `timing=True`, each pass has its own wall time. The IR after
every pass can be looked at afterwards (`.ir(stage)`) without compiling
again: it is printed on first look (`tilec.runtime.stages`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from mlir import ir

from tilec import backends
from tilec import ir as tilec_ir
from tilec.backends.base import Backend, Binary, Launcher, Options
from tilec.diagnostics import CompileError, Diagnostic
from tilec.pass_config import compile_options
from tilec.runtime.calls import call_arguments, output_positions, returned, workspace_positions
from tilec.runtime.signature import Param, check_arguments, entry_params
from tilec.runtime.stages import TILE_STAGE, Replay, Stages, run_stages
from tilec.runtime.target_names import tilec_target
from tilec.targets import TargetDescription


class CompiledKernel:
    """A kernel compiled for one target: call it on numpy arrays and scalars.

    Arrays are passed by reference, so outputs are written in place into
    the arrays given for them. Arguments are checked against the entry
    function's signature before the call (see `tilec.runtime.signature`).
    """

    def __init__(
        self,
        name: str,
        params: Sequence[Param],
        target: str,
        binary: Binary,
        launch: Launcher,
        stages: Stages,
        timings: dict[str, float] | None,
        compile_seconds: float,
        device_tensors: bool = False,
        from_cache: bool = False,
    ):
        self.name = name
        self.params = list(params)
        self.target = target
        """The target spec it was compiled for (`cpu:avx2`, ...)."""
        self.binary = binary
        self._launch = launch
        self._stages = stages
        self._timings = timings
        self.compile_seconds = compile_seconds
        self.device_tensors = device_tensors
        """Whether GPU tensors are passed as they are (the driver's `takes_device_tensors`)."""
        self.from_cache = from_cache
        """Whether it was loaded from the disk cache rather than compiled."""
        self.out_positions: tuple[int, ...] = ()
        self.workspace_positions: tuple[int, ...] = ()

    def __call__(self, *args: object) -> object:
        """Runs the kernel on numpy arrays (or any DLPack tensors) and scalars;
        with `out_idx`, allocates and returns the outputs."""
        full, outputs = call_arguments(self.name, self.params, self.out_positions, args,
                                       self.device_tensors, self.workspace_positions)
        check_arguments(self.name, self.params, full)
        self._launch(full)
        return returned(outputs)

    def run_ascendc(self, *args: object) -> object:
        """Runs the AscendC C++ of an ascend kernel on the CPU, as a call runs it in the
        simulator (`tilec.backends.ascend.cpu_model`; the headers `ASCEND_DEVKIT` names)."""
        from tilec.backends.ascend.cpu_model import run_compiled

        full, outputs = call_arguments(self.name, self.params, self.out_positions, args,
                                       False, self.workspace_positions)
        check_arguments(self.name, self.params, full)
        run_compiled(self, full)
        return returned(outputs)

    def with_out_idx(self, out_idx: int | Sequence[int] | None,
                     workspace_idx: int | Sequence[int] | None = None) -> CompiledKernel:
        """This kernel, called with only its inputs and returning the
        parameters at `out_idx` (TileLang's `out_idx`); those at `workspace_idx`
        (tilelang-ascend's GM workspaces) are allocated, zero-filled, at every call."""
        self.out_positions = output_positions(out_idx, len(self.params))
        self.workspace_positions = workspace_positions(workspace_idx, len(self.params),
                                                       self.out_positions)
        return self

    def source(self) -> str:
        """The compiled code as text: the LLVM dialect on cpu, PTX on cuda, AscendC C++
        on ascend (whose ascend IR is `ir("ascend")`)."""
        return self.binary.source()

    def stages(self) -> list[str]:
        """The names `ir` accepts, in pipeline order."""
        return list(self._stages)

    @property
    def replay(self) -> Replay | None:
        """The input and pipeline that reproduce the pass stages."""
        return self._stages.replay

    def ir(self, stage: str = TILE_STAGE) -> str:
        """The IR at `stage`: "tile" (the input), a pipeline element (the IR
        after it), or the last stage (what the backend compiled)."""
        if stage not in self._stages:
            raise KeyError(f"no stage '{stage}'; stages: {', '.join(self._stages)}")
        return self._stages[stage]

    def timings(self) -> dict[str, float]:
        """Wall seconds of each pass and of the backend's code generation."""
        if self._timings is None:
            raise RuntimeError(
                f"kernel '{self.name}' was compiled without timing=True"
                + (" (it was loaded from the cache)" if self.from_cache else "")
            )
        return dict(self._timings)

    def report(self) -> object:
        """The last run's measurements where the target makes them (ascend:
        the simulator's `tilec.sim.SimResult`: cycles, per-pipe busy time,
        utilization, bandwidth, sync instructions executed)."""
        return self.binary.report()

    def resources(self, kernel: str | None = None) -> object:
        """What the assembler says the kernel uses (cuda: registers, spills,
        stack and shared bytes from `ptxas -v`; `kernel` names one of the
        entry's GPU kernels, default the first it launches)."""
        return self.binary.resources(kernel)

    def __repr__(self) -> str:
        signature = ", ".join(p.name for p in self.params)
        return f"<CompiledKernel {self.name}({signature}) {self.target}>"


@dataclass
class Lowered:
    """A module after the pipeline, with what a CompiledKernel needs."""

    module: ir.Module
    entry: str
    params: list[Param]
    pipeline: str
    timings: dict[str, float] = field(default_factory=dict)


def load_module(kernel: object, context: ir.Context) -> ir.Module:
    """The tile module (with locations) of a DSL kernel, a module or IR text,
    in `context`."""
    if isinstance(kernel, str):
        return tilec_ir.parse_module(kernel, "<string>", context)
    if isinstance(kernel, ir.Module):
        # The module may live in a context without tilec's dialects.
        text = kernel.operation.get_asm(enable_debug_info=True)
        return tilec_ir.parse_module(text, "<module>", context)
    build = getattr(kernel, "build", None)
    if callable(build):
        with context:
            return build(context)
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


def entry_name(entry: ir.Operation) -> str:
    return ir.StringAttr(entry.attributes["sym_name"]).value


def lower(module: ir.Module, pipeline_text: str) -> Lowered:
    """Runs a pipeline on `module` in place, pass by pass, timing each."""
    context = module.context
    with context, ir.Location.unknown(context):
        entry = find_entry(module)
        lowered = Lowered(module, entry_name(entry), entry_params(entry), pipeline_text)
        start = time.perf_counter()

        def timed(stage: str) -> None:
            nonlocal start
            now = time.perf_counter()
            lowered.timings[stage] = now - start
            start = now

        run_stages(module, pipeline_text, timed)
        return lowered


def compile_module(
    module: ir.Module,
    target: TargetDescription,
    backend: Backend,
    options: Options,
    start: float,
) -> CompiledKernel:
    """Lowers `module` (consumed) for `target` and builds the callable kernel.

    When the pipeline or the code generation fails in a way the backend can
    relax (ascend: out of event ids, so fewer multi-buffer slots), it lowers a
    fresh copy of the input again with the options `Backend.retry` gives."""
    source = module.operation.get_asm(enable_debug_info=True)
    tile_text = str(module)
    while True:
        try:
            lowered = lower(module, backend.pipeline(target, options))
            backend.driver.check_params(lowered.params)
            codegen_start = time.perf_counter()
            with module.context:
                binary = backend.codegen(lowered.module, lowered.entry, target, options)
            break
        except CompileError as failure:
            relaxed = backend.retry(failure, options)
            if relaxed is None:
                raise
            options = relaxed
            module = tilec_ir.parse_module(source, "<module>", module.context)
    lowered.timings[backend.codegen_stage] = time.perf_counter() - codegen_start
    stages = Stages(tile_text, backend.final_stage, binary.final_ir,
                    Replay(source, lowered.pipeline))
    return CompiledKernel(
        lowered.entry,
        lowered.params,
        target.spec,
        binary,
        backend.driver.launcher(binary, lowered.params),
        stages,
        lowered.timings if options.timing else None,
        time.perf_counter() - start,
        backend.driver.takes_device_tensors,
    )


def compile(
    kernel: object,
    target: str | None = None,
    *,
    out_idx: int | Sequence[int] | None = None,
    workspace_idx: int | Sequence[int] | None = None,
    pass_configs: Mapping[object, object] | None = None,
    **options: object,
) -> CompiledKernel:
    """Compiles `kernel` (a DSL kernel, an ir.Module or tile IR text with one
    `tile.entry` function) for `target`: a spec such as "cpu", "cuda:sm_90a"
    or "ascend:910b". Without one, the best target present here is used
    (`$TILEC_TARGET` overrides; see `tilec.backends`), and
    `CompiledKernel.target` says which.

    Options depend on the target; every target takes `timing` (record
    per-pass wall times, see `CompiledKernel.timings`), cpu and cuda take
    `opt_level` (0 to 3, default 3). With `out_idx` (positions of output
    parameters, as in TileLang) the kernel is called with its inputs only and
    returns the outputs it allocated; `workspace_idx` and `pass_configs`, and
    tilelang-ascend's target strings ("auto", "ascendc"), are as in
    `tilec.jit`. Raises `tilec.diagnostics.CompileError`
    with MLIR-style diagnostics when the IR is invalid or a pass fails, and
    `tilec.targets.TargetError` or `tilec.backends.OptionError`, naming the
    candidates, for an unknown target or option.
    """
    start = time.perf_counter()
    target = tilec_target(target)
    options = {**options, **compile_options(pass_configs, backends.resolve(target)[0].name,
                                            options)}
    description, backend, opts = backends.configure(target, options)
    context = tilec_ir.make_context()
    module = load_module(kernel, context)
    if out_idx is None:
        # A DSL kernel that returns its T.empty outputs names them itself.
        out_idx = getattr(kernel, "out_idx", None)
    return compile_module(module, description, backend, opts, start).with_out_idx(
        out_idx, workspace_idx)
