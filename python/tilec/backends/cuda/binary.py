"""A compiled cuda entry: its PTX, its launch plan, and the cubin and resource report of
the CUDA assembler (`ptxas -v`), run on first use.

ptxas is found through `$TILEC_PTXAS`, `$CUDA_HOME/bin`, `$CUDA_PATH/bin`, `PATH`,
then `/usr/local/cuda/bin`; without it the PTX is still the kernel's source, and the
driver JIT-compiles it.
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from tilec.backends.base import Binary
from tilec.backends.cuda.launch_plan import LaunchPlan
from tilec.diagnostics import error


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
    loaded: dict[str, ctypes.c_void_p] | None = field(default=None, repr=False)
    """Its kernels by name once the driver has loaded them (the module stays loaded)."""

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
