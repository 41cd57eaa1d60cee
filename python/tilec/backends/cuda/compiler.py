"""The cuda backend's compiler half: `tile-to-cuda`, PTX in process, cubin through ptxas.

`tilec.compile(kernel, target="cuda", arch="sm_80")` (or `target="cuda:sm_80"`)
lowers tile IR to a gpu.module in the NVVM dialect and takes it to PTX with
`gpu-module-to-binary{format=isa}` in this process. `.source()` is the PTX;
`kernel.binary()` is the cubin and `kernel.binary.resources(name)` the
registers, spills and shared memory per kernel, both from the CUDA
assembler (`ptxas -v`) when one is found (`$TILEC_PTXAS`, `$CUDA_HOME/bin`,
`$CUDA_PATH/bin`, `PATH`, then `/usr/local/cuda/bin`); it runs on first
use. The host function's `gpu.launch_func`s become a launch plan: per launch,
the kernel's name, its grid as expressions over the entry's parameters
(and their shapes), the block size, the dynamic shared memory size and
which entry parameter or global workspace (`T.alloc_global`) each kernel
argument is, so the driver can run the entry without running host code.
All kernels of an entry are in one PTX module
(tile-cuda-merge-kernel-modules).
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from mlir import ir
from mlir.dialects import gpu
from mlir.passmanager import PassManager

from tilec.backends.base import Backend, Binary, CodegenOptions, OptionError
from tilec.backends.cuda.driver import CudaDriver, LaunchPlan
from tilec.diagnostics import CompileError, Diagnostic, capture_errors, error
from tilec.passes.conversion.tile_to_cuda.pipelines import tile_to_cuda
from tilec.targets import CudaTarget, TargetError, get_target


@dataclass(frozen=True)
class CudaOptions(CodegenOptions):
    arch: str = ""
    """The compute capability (sm_80, sm_86, sm_89, sm_90a); default: the target's variant."""
    fast_math: bool = False
    """Every exp/log/log2/tanh as the GPU's approximate instruction (default: those
    marked `afn`); exp2, rsqrt and sqrt are approximate always."""

    def check(self) -> None:
        super().check()
        if self.arch and self.arch not in CudaTarget.variants:
            raise OptionError(f"compile option 'arch' must be one of "
                              f"{', '.join(CudaTarget.variants)} but got '{self.arch}'")


@functools.cache
def find_ptxas() -> str | None:
    """The CUDA assembler's path, or None when no CUDA toolkit is installed."""
    candidates = [os.environ.get("TILEC_PTXAS")]
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(variable):
            candidates.append(str(Path(os.environ[variable]) / "bin" / "ptxas"))
    candidates += [shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"]
    for candidate in candidates:
        if candidate and Path(candidate).is_file() and os.access(candidate, os.X_OK):
            return candidate
    return None


@dataclass(frozen=True)
class Resources:
    """What `ptxas -v` reports for one kernel."""

    registers: int
    spill_stores: int
    spill_loads: int
    stack_bytes: int
    shared_bytes: int
    """Static shared memory; the launch adds `dynamic_shared_bytes`."""
    dynamic_shared_bytes: int


def parse_ptxas_report(text: str, dynamic_shared_bytes: int) -> dict[str, Resources]:
    """Per-kernel resources from `ptxas -v` output (its stderr)."""
    found: dict[str, Resources] = {}
    for block in re.split(r"ptxas info\s*: Compiling entry function ", text)[1:]:
        name = block.split("'")[1]

        def number(pattern: str, block: str = block) -> int:
            match = re.search(pattern, block)
            return int(match.group(1)) if match else 0

        found[name] = Resources(
            registers=number(r"Used (\d+) registers"),
            spill_stores=number(r"(\d+) bytes spill stores"),
            spill_loads=number(r"(\d+) bytes spill loads"),
            stack_bytes=number(r"(\d+) bytes stack frame"),
            shared_bytes=number(r"(\d+) bytes smem"),
            dynamic_shared_bytes=dynamic_shared_bytes,
        )
    return found


@dataclass
class CudaBinary(Binary):
    """The PTX of one kernel, its launch plan, and (lazily) ptxas' cubin."""

    ptx: str
    arch: str
    plan: LaunchPlan
    _cubin: bytes | None = field(default=None, repr=False)
    _report: str = field(default="", repr=False)

    def source(self) -> str:
        return self.ptx

    def __call__(self) -> bytes:
        """The cubin ptxas assembles from the PTX (`kernel.binary()`)."""
        if self._cubin is None:
            self._assemble()
        assert self._cubin is not None
        return self._cubin

    def resources(self, kernel: str | None = None) -> Resources:
        """Registers, spills and shared memory of `kernel` (default: the
        first the entry launches), from `ptxas -v`."""
        if self._cubin is None:
            self._assemble()
        name = kernel or self.plan.kernel
        launch = next((x for x in self.plan.launches if x.kernel == name), None)
        found = parse_ptxas_report(self._report, launch.shared_bytes if launch else 0)
        if name not in found:
            raise error(f"ptxas reported nothing for kernel '{name}' "
                        f"(kernels: {', '.join(found) or 'none'})")
        return found[name]

    def _assemble(self) -> None:
        ptxas = find_ptxas()
        if ptxas is None:
            raise error("no CUDA assembler (ptxas) found: install the CUDA toolkit or set "
                        "$TILEC_PTXAS; the PTX is kernel.source()")
        with tempfile.TemporaryDirectory(prefix="tilec-ptxas-") as work:
            ptx_path, cubin_path = Path(work) / "kernel.ptx", Path(work) / "kernel.cubin"
            ptx_path.write_text(self.ptx)
            done = subprocess.run(
                [ptxas, "-v", f"-arch={self.arch}", str(ptx_path), "-o", str(cubin_path)],
                capture_output=True, text=True, check=False,
            )
            if done.returncode:
                raise error(f"ptxas rejected the PTX of '{self.plan.kernel}':\n{done.stderr}")
            self._report = done.stderr + done.stdout
            self._cubin = cubin_path.read_bytes()


def _short(errors: list[Diagnostic]) -> list[Diagnostic]:
    """The errors without the notes that print the whole failing module."""
    return [
        dataclasses.replace(
            d, notes=tuple(n for n in d.notes if not n.message.startswith("see current operation"))
        )
        for d in errors
    ]


def module_to_ptx(module: ir.Module) -> str:
    """PTX of the module's one gpu.module, made in this process."""
    with capture_errors(module.context) as errors:
        try:
            PassManager.parse("builtin.module(gpu-module-to-binary{format=isa})",
                              module.context).run(module.operation)
        except ir.MLIRError as exc:
            raise CompileError(_short(errors) or [Diagnostic("error", str(exc))]) from None
    if errors:
        raise CompileError(_short(errors))
    for op in module.body.operations:
        if op.operation.name == "gpu.binary":
            payload = gpu.ObjectAttr(op.attributes["objects"][0]).object
            return payload.decode() if isinstance(payload, bytes) else str(payload)
    raise error("the cuda pipeline left no gpu.module to compile")


class CudaBackend(Backend):
    name = "cuda"
    options_type = CudaOptions
    driver = CudaDriver()
    codegen_stage = "ptx-codegen"
    final_stage = "ptx"

    def configure(self, target: CudaTarget, options: CudaOptions) -> CudaTarget:  # type: ignore[override]
        if not options.arch or options.arch == target.variant:
            return target
        try:
            return get_target(f"cuda:{options.arch}")  # type: ignore[return-value]
        except TargetError as exc:
            raise OptionError(str(exc)) from None

    def pipeline(self, target: CudaTarget, options: CudaOptions) -> str:  # type: ignore[override]
        return tile_to_cuda(target, options.opt_level, options.fast_math)

    def codegen(  # type: ignore[override]
        self, module: ir.Module, entry: str, target: CudaTarget, options: CudaOptions
    ) -> CudaBinary:
        plan = LaunchPlan.from_module(module, entry)
        return CudaBinary(module_to_ptx(module), target.arch, plan)
