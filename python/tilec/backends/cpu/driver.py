"""The cpu backend's driver half: calling native code through its C interface.

An entry compiled with `llvm.emit_c_interface` is called as
`_mlir_ciface_<name>(void **args)`: one pointer per parameter, to a memref
descriptor (allocated and aligned pointer, offset, sizes, strides) for an
array or to the scalar itself. numpy arrays are passed by reference, so
outputs are written in place.

A cache entry holds `kernel.so` (the JIT's object code linked as a shared
library, loaded with no compilation at all) where a C compiler driver is
installed, and always `kernel.llvm.mlir`, which without one is compiled
again by LLVM when loaded.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from mlir import ir

from tilec import ir as tilec_ir
from tilec.backends.base import Binary, Driver, Launcher, Options
from tilec.backends.cpu import native
from tilec.runtime.signature import ArgumentError, Param

_LIBRARY = "kernel.so"
_LLVM = "kernel.llvm.mlir"

_SCALAR_CTYPES = {
    "index": ctypes.c_int64,
    "i64": ctypes.c_int64,
    "i32": ctypes.c_int32,
    "i16": ctypes.c_int16,
    "i8": ctypes.c_int8,
    "f64": ctypes.c_double,
    "f32": ctypes.c_float,
}

_DESCRIPTORS: dict[int, type[ctypes.Structure]] = {}


def _descriptor_type(rank: int) -> type[ctypes.Structure]:
    if rank not in _DESCRIPTORS:
        fields = [
            ("allocated", ctypes.c_void_p),
            ("aligned", ctypes.c_void_p),
            ("offset", ctypes.c_int64),
        ]
        if rank:
            fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
        _DESCRIPTORS[rank] = type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})
    return _DESCRIPTORS[rank]


def packed_arguments(params: Sequence[Param], args: Sequence[object]) -> tuple[object, list]:
    """The `void**` array the packed C interface takes, and the ctypes
    objects it points to (kept alive by the caller for the call)."""
    keep: list = []
    packed = (ctypes.c_void_p * len(params))()
    for i, (param, arg) in enumerate(zip(params, args, strict=True)):
        if param.is_array:
            assert isinstance(arg, np.ndarray)
            descriptor = _descriptor_type(arg.ndim)()
            pointer = arg.ctypes.data
            descriptor.allocated = descriptor.aligned = pointer
            descriptor.offset = 0
            if arg.ndim:
                descriptor.sizes[:] = arg.shape
                descriptor.strides[:] = [s // arg.itemsize for s in arg.strides]
            value = ctypes.pointer(descriptor)
        else:
            value = _SCALAR_CTYPES[param.element](arg)
        pointer_to_value = ctypes.pointer(value)
        keep.append(pointer_to_value)
        packed[i] = ctypes.cast(pointer_to_value, ctypes.c_void_p)
    return packed, keep


@dataclass
class CpuBinary(Binary):
    """Native code of one entry, and the LLVM dialect it came from."""

    function: native.NativeKernel
    llvm_dialect: str
    engine: object | None = None
    """The JIT engine (None when loaded from a library): it can dump its object."""

    def source(self) -> str:
        return self.llvm_dialect


class CpuDriver(Driver):
    def present(self) -> bool:
        return True

    def check_params(self, params: Sequence[Param]) -> None:
        for param in params:
            if param.shape is None and param.element not in _SCALAR_CTYPES:
                raise ArgumentError(
                    f"parameter '{param.name}' of type {param.element} cannot be passed as a "
                    f"scalar on cpu (use one of {', '.join(_SCALAR_CTYPES)})"
                )

    def launcher(self, binary: Binary, params: Sequence[Param]) -> Launcher:
        assert isinstance(binary, CpuBinary)
        function = binary.function

        def launch(args: Sequence[object]) -> None:
            packed, keep = packed_arguments(params, args)
            function(packed)
            del keep

        return launch

    def save(self, binary: Binary, directory: Path) -> None:
        (directory / _LLVM).write_text(binary.source())
        assert isinstance(binary, CpuBinary)
        engine = binary.engine
        if engine is not None and native.linker() is not None:
            native.link_shared_library(engine, directory / _LIBRARY)

    def load(self, directory: Path, entry: str, options: Options) -> Binary:
        llvm_text = (directory / _LLVM).read_text()
        if (directory / _LIBRARY).is_file():
            return CpuBinary(native.load_shared_library(directory / _LIBRARY, entry), llvm_text)
        context = tilec_ir.make_context()
        with context, ir.Location.unknown(context):
            module = ir.Module.parse(llvm_text)
            function, _ = native.jit(module, entry, options.opt_level)  # type: ignore[attr-defined]
        return CpuBinary(function, llvm_text)
