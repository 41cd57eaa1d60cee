"""`simulate`: run an `ascend` kernel on numpy inputs and get its outputs and a report.

The module can be MLIR text, a file path or a parsed `ir.Module`. Inputs are
given per kernel argument, by position or by name (names are read from the
source text: the parser does not keep them). A GM argument takes a numpy
array: f16/f32/int arrays are used as they are; bf16 and fp8 arguments take
float arrays (rounded to nearest even) or their raw bits (uint16/uint8).
Outputs are every GM argument after the run, bf16/fp8 decoded to float32.

A scalar argument takes a number: an `index` or integer parameter a whole
number in its type's range (2.0 is 2; 2.5 or 2**40 for an i32 is an error),
a float parameter any real number, rounded to its type (±inf beyond its range).

Races, deadlocks and flag misuse are reported in the result (`result.ok`
says whether there were any); problems that stop the simulation raise
`SimError` with MLIR-style diagnostics. So does going over a budget
(`max_steps`, `max_cycles`, `max_memory`, `max_blocks`: see `tilec.sim.budget`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from mlir import ir

from tilec import ir as tilec_ir
from tilec.diagnostics import CompileError, Diagnostic
from tilec.sim import (  # noqa: F401  (they register the semantics of their ops)
    affine_ops,
    ascend_ops,
    memref_ops,
    scalar_ops,
)
from tilec.sim.blas import single_threaded
from tilec.sim.budget import Budget, positive_int
from tilec.sim.deadlock import deadlocks as find_deadlocks
from tilec.sim.diagnostics import SimError, fail
from tilec.sim.instruction import PIPE_NAMES, PIPES_OF_CORE
from tilec.sim.interpreter import (
    Argument,
    Program,
    kernel_functions,
    source_argument_names,
)
from tilec.sim.memory import Arena, Buffer
from tilec.sim.result import SYNC_KINDS, PathTraffic, SimResult
from tilec.sim.scalar_ops import scalar_value
from tilec.sim.scheduler import FLAG_IDENTITIES, Machine
from tilec.sim.trace import write_trace
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.profiles import Profile, get_profile


def _parse(module: str | os.PathLike | ir.Module, context: ir.Context,
           source_name: str) -> tuple[ir.Module, str | None]:
    """The module and its source text (None when given parsed)."""
    if isinstance(module, ir.Module):
        return module, None
    if isinstance(module, os.PathLike):
        path = Path(module)
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as exc:
            raise SimError(Diagnostic("error", f"cannot read {path}: {exc}")) from None
        return tilec_ir.parse_module(text, str(path), context), text
    return tilec_ir.parse_module(module, source_name, context), module


def _profile(profile: str | Profile) -> Profile:
    """The profile named `profile`; an unknown name is a `SimError`, like every other
    problem of the simulator's inputs."""
    try:
        return get_profile(profile)
    except ValueError as exc:
        raise SimError(Diagnostic("error", str(exc))) from None


def load_program(module: str | os.PathLike | ir.Module, *, kernel: str | None = None,
                 profile: str | Profile = "910b", source_name: str = "<string>") -> Program:
    """Parses (when needed) and compiles the kernel `kernel` (default: the only one).

    MLIR text is named `source_name` in locations."""
    profile = _profile(profile)
    context = module.context if isinstance(module, ir.Module) else tilec_ir.make_context()
    with context:
        try:
            parsed, text = _parse(module, context, source_name)
        except CompileError as exc:
            if isinstance(exc, SimError):
                raise
            raise SimError(exc.diagnostics) from None
        kernels = kernel_functions(parsed)
        names = [ir.StringAttr(k.attributes["sym_name"]).value for k in kernels]
        if not kernels:
            raise SimError(Diagnostic("error", "no function with an 'ascend.kernel' attribute "
                                               "in the module"))
        if kernel is None and len(kernels) > 1:
            raise SimError(Diagnostic("error", f"the module has several kernels "
                                               f"({', '.join(names)}): choose one"))
        if kernel is not None and kernel not in names:
            raise SimError(Diagnostic("error", f"no kernel named '{kernel}' "
                                               f"(kernels: {', '.join(names)})"))
        func = kernels[names.index(kernel) if kernel is not None else 0]
        arg_names = source_argument_names(text, names[kernels.index(func)]) if text else None
        program = Program(func, profile, arg_names)
        program.module = parsed  # keeps the IR (and its context) alive with the program
        return program


def _gm_argument(arg: Argument, value: object, where: str, budget: Budget) -> Buffer:
    element = arg.element
    if element is None:
        raise fail(where, f"argument %{arg.name}: the simulator cannot store "
                          f"{arg.type.element_type}")
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise fail(where, f"argument %{arg.name}: not an array ({exc})") from None
    # Before the shape: None or a string is not "an array of shape ()".
    if array.dtype.kind not in "biuf":
        given = f"an array of {array.dtype}" if array.ndim else repr(value)
        raise fail(where, f"argument %{arg.name} ({arg.type}) needs an array of numbers, "
                          f"not {given}")
    shape = list(arg.type.shape)
    if array.ndim != len(shape):
        raise fail(where, f"argument %{arg.name} ({arg.type}) needs a {len(shape)}-D array, "
                          f"got shape {array.shape}")
    for dim, (want, have) in enumerate(zip(shape, array.shape, strict=True)):
        if want != ir.ShapedType.get_dynamic_size() and want != have:
            raise fail(where, f"argument %{arg.name} ({arg.type}): dimension {dim} is {have}, "
                              f"not {want}")
    budget.charge_memory(array.size * element.itemsize, f"argument %{arg.name}", where)
    if array.dtype == element.storage:
        raw = np.array(array, order="C", copy=True)
    else:
        raw = np.ascontiguousarray(element.from_host(array))
    arena = Arena("gm", raw.reshape(-1).view(np.uint8), f"argument %{arg.name}")
    return Buffer(raw, arena, element)


def _bind(program: Program, inputs: Sequence | Mapping, budget: Budget) -> list:
    where = program.site.location
    arguments = program.arguments
    if isinstance(inputs, Mapping):
        unknown = set(inputs) - {a.name for a in arguments}
        if unknown:
            raise fail(where, f"no kernel argument named {', '.join(sorted(map(str, unknown)))} "
                              f"(arguments: {', '.join(a.name for a in arguments)})")
        missing = [a.name for a in arguments if a.name not in inputs]
        values = [inputs.get(a.name) for a in arguments]
    elif not isinstance(inputs, Sequence) or isinstance(inputs, str | bytes):
        raise fail(where, f"the inputs must be a mapping from argument names to values or a "
                          f"sequence of values, not {type(inputs).__name__}")
    else:
        values = list(inputs)
        missing = [a.name for a in arguments[len(values):]]
        if len(values) > len(arguments):
            raise fail(where, f"{len(values)} inputs for {len(arguments)} kernel arguments")
    if missing:
        raise fail(where, f"no input for kernel argument {', '.join('%' + m for m in missing)}")
    bound = []
    for arg, value in zip(arguments, values, strict=True):
        if arg.is_memref:
            bound.append(_gm_argument(arg, value, where, budget))
            continue
        try:
            bound.append(scalar_value(arg.type, value))
        except ValueError as exc:
            raise fail(where, f"argument %{arg.name} ({arg.type}) {exc}") from None
    return bound


def simulate(module: str | os.PathLike | ir.Module | Program,
             inputs: Sequence | Mapping, *, kernel: str | None = None,
             profile: str | Profile = "910b", block_dim: int = 1,
             trace: str | os.PathLike | None = None, source_name: str = "<string>",
             max_steps: int = Budget.max_steps, max_cycles: int = Budget.max_cycles,
             max_memory: int = Budget.max_memory,
             max_blocks: int = Budget.max_blocks, flag_identity: str = "pair") -> SimResult:
    """Runs the kernel on every core of a `block_dim` grid and reports what happened.

    MLIR text is named `source_name` in locations. `max_*` are the budgets
    (`tilec.sim.budget.Budget`): going over one raises `SimError`.
    `flag_identity` is how the hardware names a flag (`pair`: source,
    destination and event; `source`: source and event only, the stricter
    reading; see `tilec.sim.scheduler.FLAG_IDENTITIES`)."""
    if flag_identity not in FLAG_IDENTITIES:
        raise SimError(Diagnostic("error", f"unknown flag identity '{flag_identity}' "
                                           f"(known: {', '.join(FLAG_IDENTITIES)})"))
    budget = Budget(max_steps=max_steps, max_cycles=max_cycles, max_memory=max_memory,
                    max_blocks=max_blocks)
    profile = _profile(profile)
    program = module if isinstance(module, Program) else load_program(
        module, kernel=kernel, profile=profile, source_name=source_name)
    if program.profile != profile:
        raise fail(program.site.location, f"the kernel was compiled for the "
                                          f"{program.profile.name} profile, not {profile.name}")
    block_dim = positive_int("block_dim", block_dim, program.site.location)
    if block_dim > budget.max_blocks:
        raise budget.exceeded("max_blocks", program.site.location,
                              f"block_dim {block_dim} is over the block budget of "
                              f"{budget.max_blocks} blocks")
    arg_values = _bind(program, inputs, budget)
    machine = Machine(program, arg_values, profile, block_dim, budget, timeline=trace is not None,
                      flag_identity=flag_identity)
    with np.errstate(all="ignore"), single_threaded():
        machine.run()
    deadlocks = find_deadlocks(machine)
    result = _result(program, profile, machine, deadlocks)
    if trace is not None:
        try:
            write_trace(trace, machine.timeline, [(c.name, c.kind) for c in machine.cores],
                        profile.clock_ghz,
                        {"kernel": program.name, "profile": profile.name,
                         "block_dim": block_dim, "cycles": result.cycles})
        except OSError as exc:
            raise SimError(Diagnostic("error", f"cannot write the trace {trace}: "
                                               f"{exc.strerror or exc}")) from None
    return result


def _memory_peak(cores: list) -> dict[str, int]:
    peak: dict[str, int] = {}
    for core in cores:
        for space, arena in core.arenas.items():
            peak[space] = max(peak.get(space, 0), arena.peak)
    return dict(sorted(peak.items()))


def _result(program: Program, profile: Profile, machine: Machine,
            deadlocks: list[Diagnostic]) -> SimResult:
    cores = [c for c in machine.cores if c.started]
    cycles = max([machine.end_time, *(max(c.free_at) for c in cores)])
    busy = {name: sum(c.busy[i] for c in cores) for i, name in enumerate(PIPE_NAMES)}
    # Cores that ran at the same time: blocks beyond the physical cores run in waves.
    concurrent = min(len(machine.blocks), machine.slots)
    per_block = {kind: sum(1 for c in machine.blocks[0] if c.kind == kind)
                 for kind in ("aic", "aiv")}
    owners = {name: concurrent * sum(n for kind, n in per_block.items()
                                     if pipe in PIPES_OF_CORE[kind])
              for pipe, name in enumerate(PIPE_NAMES)}
    utilization = {name: busy[name] / (cycles * owners[name]) if cycles and owners[name] else 0.0
                   for name in PIPE_NAMES if owners[name]}
    seconds = cycles / (profile.clock_ghz * 1e9)
    bandwidth = {path: PathTraffic(n, n / cycles if cycles else 0.0,
                                   n / seconds / 1e9 if seconds else 0.0)
                 for path, n in machine.path_bytes.items() if path != "v"}
    peak = _memory_peak(cores)
    outputs = {arg.name: arg.element.values(value.array).copy()
               for arg, value in zip(program.arguments, machine.arg_values, strict=True)
               if arg.is_memref}
    return SimResult(
        kernel=program.name, core_kind=program.core_kind, profile=profile,
        block_dim=machine.block_dim, core_count=len(machine.cores), outputs=outputs,
        cycles=cycles, steps=machine.budget.steps_used, pipe_busy=busy,
        pipe_utilization=utilization,
        cube_utilization=utilization.get("M", 0.0), vector_utilization=utilization.get("V", 0.0),
        macs=machine.macs, bandwidth=bandwidth,
        core_cycles={c.name: c.finished_at for c in cores if c.finished_at is not None},
        memory_peak=peak,
        memory_capacity={space: ascend_attr.usable_bytes(profile, space, program.func)
                         for space in peak},
        races=machine.races.diagnostics(), deadlocks=deadlocks, errors=machine.findings,
        sync_counts={name: machine.sync_counts[name] for name in SYNC_KINDS},
        cross_wait_cycles=dict(machine.cross_wait_cycles),
        flag_identity=machine.flag_identity)

