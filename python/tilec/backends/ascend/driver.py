"""The ascend backend's driver half: kernels run in tilec's simulator.

There is no NPU to find here: the simulator (`tilec.sim`) is the machine, so
`present()` is false and ascend is never the default target. A call runs the
whole grid in the simulator on the given arrays and writes the outputs back
into them; a race, a deadlock or an unbalanced flag raises `SimError` naming
the ops at their source lines (the IR keeps the DSL's locations), and
`kernel.report()` gives the run's `SimResult`.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from mlir import ir

from tilec import ir as tilec_ir
from tilec.backends.ascend.options import AscendOptions
from tilec.backends.base import Binary, Driver, Launcher
from tilec.passes.conversion.tile_to_ascend.analysis.global_scratch import scratch_sizes
from tilec.runtime.signature import Param
from tilec.sim import SimError, SimResult, simulate
from tilec.sim.api import load_program
from tilec.sim.dtypes import element_type
from tilec.sim.interpreter import Program
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.profiles import get_profile

_SOURCE = "kernel.ascend.mlir"
_PROFILE = "profile"


@dataclass
class AscendBinary(Binary):
    """The synchronized `ascend` IR of one kernel, loaded by the simulator."""

    program: Program
    text: str
    located_text: str
    """The IR with its locations, what the disk cache keeps."""
    profile: str
    options: AscendOptions
    ascendc: str
    """The AscendC C++ of the kernel and its host launcher."""
    last: SimResult | None = field(default=None)
    """The report of the run that finished last, in any thread."""
    mine: threading.local = field(default_factory=threading.local)
    """The report of this thread's last run (`report()` prefers it)."""

    @staticmethod
    def from_module(module: ir.Module, entry: str, profile: str,
                    options: AscendOptions) -> AscendBinary:
        """The kernel the simulator runs, and its AscendC: written here, so a kernel the
        emitter cannot write fails to compile at the op's located error instead of
        running in the simulator and failing at `.source()`."""
        from tilec.backends.ascend.ascendc import ascendc_text

        program = load_program(module, kernel=entry, profile=profile)
        with module.context:
            source = ascendc_text(module, profile)
        return AscendBinary(program, str(module),
                            module.operation.get_asm(enable_debug_info=True), profile, options,
                            source)

    def source(self) -> str:
        """The AscendC C++ of the kernel and its host launcher (built with the
        vendor toolkit; README, "Building the AscendC output")."""
        return self.ascendc

    def final_ir(self) -> str:
        """The synchronized ascend IR the simulator runs (the "ascend" stage)."""
        return self.text

    def report(self) -> SimResult:
        last = getattr(self.mine, "result", None) or self.last
        if last is None:
            raise RuntimeError("the kernel has not run yet: kernel.report() describes the last run")
        return last

    def block_dim(self) -> int:
        """The launch size: the option, else one core per block of a static
        grid, at most the cores of the kernel's kind."""
        if self.options.block_dim:
            return self.options.block_dim
        profile = get_profile(self.profile)
        cores = profile.aic_cores * (profile.aiv_per_aic if self.program.core_kind == "aiv" else 1)
        attributes = self.program.func.attributes
        if ascend_attr.GRID not in attributes:
            return cores
        # an empty static grid runs as an empty dynamic one does (and as on cpu): one
        # core, whose grid-stride loop has no block to run
        return max(1, min(cores, ascend_attr.integer(self.program.func, ascend_attr.GRID)))




def extra_arguments(func: ir.Operation, block_dim: int, args: Sequence[object]
                    ) -> list[np.ndarray]:
    """The GM buffers of the trailing arguments the kernel's parameters do not
    have, allocated for one call with `args` (the parameters' values), in
    argument order: a mix kernel's workspaces, zeroed (`rows` per AI core of
    the launch, the argument's other extents), and global scratch
    (`T.alloc_global`, `global_scratch.SCRATCH`) sized from `args` and, as on
    cpu, not initialized: filled with all-ones bytes."""
    if "arg_attrs" not in func.attributes:
        return []
    arrays = []
    inputs = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs
    for attrs, type_ in zip(ir.ArrayAttr(func.attributes["arg_attrs"]), inputs, strict=True):
        attrs = ir.DictAttr(attrs)
        if ascend_attr.WORKSPACE not in attrs and ascend_attr.SCRATCH not in attrs:
            continue
        memref = ir.MemRefType(type_)
        dtype = element_type(memref.element_type).compute_dtype
        if ascend_attr.WORKSPACE in attrs:
            rows = ascend_attr.integer(func, ascend_attr.WORKSPACE, attrs)
            arrays.append(np.zeros((block_dim * rows, *memref.shape[1:]), dtype))
            continue
        scratch = np.empty(scratch_sizes(ir.ArrayAttr(attrs[ascend_attr.SCRATCH]), args), dtype)
        scratch.view(np.uint8)[...] = 0xFF
        arrays.append(scratch)
    return arrays


def _simulator_value(param: Param, value: object) -> object:
    """What the simulator takes for one argument: bf16/fp8 arrays as float32
    (exact); an integer scalar of a narrower or unsigned dtype as the bits of
    its signless parameter, read signed (a uint64 2**64 - 5 as -5), which is
    what a C call passes and what the kernel's unsigned ops interpret back;
    everything else as it is."""
    if param.is_array and isinstance(value, np.ndarray) and value.dtype.kind == "V":
        return value.astype(np.float32)
    if (not param.is_array and param.dtype is not None
            and isinstance(value, int | np.integer) and not isinstance(value, bool)):
        bits = 64 if param.element == "index" else int(param.element.removeprefix("i"))
        wrapped = int(value) % (1 << bits)
        return wrapped - (1 << bits) if wrapped >> (bits - 1) else wrapped
    return value


class AscendDriver(Driver[AscendBinary, AscendOptions]):
    def launcher(self, binary: AscendBinary, params: Sequence[Param]) -> Launcher:
        def launch(args: Sequence[object]) -> None:
            options = binary.options
            inputs = [_simulator_value(p, a) for p, a in zip(params, args, strict=True)]
            inputs += extra_arguments(binary.program.func, binary.block_dim(), inputs)
            result = simulate(
                binary.program, inputs, profile=binary.profile, block_dim=binary.block_dim(),
                trace=options.trace or None, max_steps=options.max_steps)
            binary.last = binary.mine.result = result
            if not result.ok:
                raise SimError(result.diagnostics)
            outputs = iter(result.outputs.values())
            for param, arg in zip(params, args, strict=True):
                if not param.is_array:
                    continue
                out = next(outputs)
                if param.written:
                    assert isinstance(arg, np.ndarray)
                    arg[...] = out.astype(arg.dtype, copy=False).reshape(arg.shape)

        return launch

    def save(self, binary: AscendBinary, directory: Path) -> None:
        (directory / _SOURCE).write_text(binary.located_text)
        (directory / _PROFILE).write_text(binary.profile)

    def load(self, directory: Path, entry: str, options: AscendOptions) -> AscendBinary:
        text = (directory / _SOURCE).read_text()
        context = tilec_ir.make_context()
        module = tilec_ir.parse_module(text, str(directory / _SOURCE), context)
        profile = (directory / _PROFILE).read_text().strip()
        return AscendBinary.from_module(module, entry, profile, options)
