"""Native code for a lowered module: JIT it, or link and load a cached object.

Both ways end in the same callable: the packed C interface
`_mlir__mlir_ciface_<name>(void **args)` that MLIR's ExecutionEngine adds
for every `llvm.emit_c_interface` function, which also ends up in the
object file the engine can dump. So a kernel loaded from the disk cache is
called exactly like a freshly JIT-compiled one.

The async runtime (multi-core kernels) is loaded once into the process with
RTLD_GLOBAL and found by the JIT through the process's symbols, not passed
as an ExecutionEngine shared library: an engine tears down the runtime's
global thread pool when it is destroyed, which crashes every other live
kernel (measured with MLIR 22.1.8).
"""

from __future__ import annotations

import collections
import ctypes
import functools
import shutil
import subprocess
import time
from pathlib import Path

import mlir
from mlir import ir
from mlir.execution_engine import ExecutionEngine

_RUNTIME_LIBRARIES = ("libmlir_c_runner_utils.so", "libmlir_async_runtime.so")
_PACKED = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def mlir_library_dir() -> Path:
    return Path(next(iter(mlir.__path__))) / "lib"


@functools.cache
def load_runtime_libraries() -> None:
    for name in _RUNTIME_LIBRARIES:
        ctypes.CDLL(str(mlir_library_dir() / name), mode=ctypes.RTLD_GLOBAL)


def packed_symbol(entry: str) -> str:
    return f"_mlir__mlir_ciface_{entry}"


# Code owners (engines, libraries) of kernels that are gone, with the time
# they went. A worker thread of the async runtime may still be running the
# tail of a kernel's task (its coroutine's cleanup) just after the call that
# waited for it returned, so freeing the code at once can pull it from
# under that thread (a crash, measured). Owners are freed after a grace period.
_RETIRED: collections.deque[tuple[float, object]] = collections.deque()
RETIRE_SECONDS = 5.0


def _retire(owner: object) -> None:
    now = time.monotonic()
    _RETIRED.append((now, owner))
    while _RETIRED and now - _RETIRED[0][0] > RETIRE_SECONDS:
        _RETIRED.popleft()


class NativeKernel:
    """A callable entry point that keeps the code it lives in alive."""

    def __init__(self, owner: object, address: int):
        self._owner = owner
        self._function = _PACKED(address)

    def __call__(self, packed_args: int) -> None:
        """Calls the entry with the address of its `void**` argument array."""
        self._function(packed_args)

    def __del__(self) -> None:
        _retire(self._owner)


def jit(module: ir.Module, entry: str, opt_level: int) -> tuple[NativeKernel, ExecutionEngine]:
    """JIT-compiles an LLVM-dialect module; the engine can still dump its object."""
    load_runtime_libraries()
    engine = ExecutionEngine(module, opt_level=opt_level, enable_pic=True)
    engine.initialize()
    address = engine.raw_lookup(f"_mlir_ciface_{entry}")
    if not address:
        raise RuntimeError(f"entry function '{entry}' is missing from the compiled module")
    return NativeKernel(engine, address), engine


def linker() -> str | None:
    """A C compiler driver that can link a shared library, if the machine has one."""
    return shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")


def link_shared_library(engine: ExecutionEngine, path: Path) -> None:
    """Writes the engine's object code as a shared library at `path`."""
    driver = linker()
    if driver is None:
        raise RuntimeError("no C compiler driver (cc, gcc, clang) to link a shared library")
    obj = path.with_suffix(".o")
    engine.dump_to_object_file(str(obj))
    libs = mlir_library_dir()
    command = [
        driver, "-shared", "-o", str(path), str(obj),
        f"-L{libs}", "-lmlir_async_runtime", "-lmlir_c_runner_utils", f"-Wl,-rpath,{libs}",
    ]  # fmt: skip
    try:
        subprocess.run(command, check=True, capture_output=True, text=True)
    finally:
        obj.unlink(missing_ok=True)


def load_shared_library(path: Path, entry: str) -> NativeKernel:
    """Loads a library written by `link_shared_library`; OSError or
    AttributeError when it is not a loadable library with that entry."""
    load_runtime_libraries()
    library = ctypes.CDLL(str(path))
    function = getattr(library, packed_symbol(entry))
    return NativeKernel(library, ctypes.cast(function, ctypes.c_void_p).value)
