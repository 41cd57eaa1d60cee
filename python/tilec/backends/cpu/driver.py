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
import functools
import threading
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from mlir import ir

from tilec import ir as tilec_ir
from tilec.backends.base import Binary, CodegenOptions, Driver, Launcher
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


class _PackedArguments:
    """The `void**` array the packed C interface takes, with the descriptors and
    scalars it points to, built once for a signature and refilled at every call:
    a call sets only the data pointers, the sizes of dynamic dims and the scalars.
    Building it (ctypes objects, pointers and casts) at every call was half of what
    calling a small kernel cost (27 us, now 10 us with `_data_pointer`; measured side by
    side on a busy 2-core machine, see `benchmarks/call_overhead.py`).
    One per thread, so that calls from several threads do not write each other's
    arguments."""

    def __init__(self, params: Sequence[Param]):
        self.array = (ctypes.c_void_p * len(params))()
        self.address = ctypes.addressof(self.array)
        self._keep: list[object] = []
        self._fills: list[Callable[[object], None]] = []
        for i, param in enumerate(params):
            if param.shape is None:
                scalar = _SCALAR_CTYPES[param.element]()
                self.array[i] = ctypes.addressof(scalar)
                self._keep.append(scalar)
                self._fills.append(functools.partial(setattr, scalar, "value"))
                continue
            descriptor = _descriptor_type(len(param.shape))()
            # the interface takes a pointer to each argument: here a pointer to the descriptor
            holder = ctypes.c_void_p(ctypes.addressof(descriptor))
            self.array[i] = ctypes.addressof(holder)
            self._keep += [descriptor, holder]
            self._fills.append(_array_fill(descriptor, param.shape))

    def fill(self, args: Sequence[object]) -> None:
        for fill, arg in zip(self._fills, args, strict=True):
            fill(arg)


def _data_pointer_reader() -> Callable[[np.ndarray], int]:
    """How to read an array's data pointer. numpy's array object is PyObject_HEAD and
    then its data pointer (`PyArrayObject_fields.data` in numpy/ndarraytypes.h, what
    `PyArray_DATA` reads): reading it there takes 0.4 us where `__array_interface__`
    builds a dict (2 us, measured). Where that layout or `id` as the address does not
    hold (a probe array says), the interface is used."""
    offset = object.__basicsize__

    def from_object(array: np.ndarray) -> int:
        return ctypes.c_void_p.from_address(id(array) + offset).value or 0

    def from_interface(array: np.ndarray) -> int:
        return array.__array_interface__["data"][0]

    probe = np.arange(4)[1:]
    return from_object if from_object(probe) == from_interface(probe) else from_interface


_data_pointer = _data_pointer_reader()


def _array_fill(descriptor: ctypes.Structure,
                shape: tuple[int | None, ...]) -> Callable[[object], None]:
    """What sets `descriptor` for a C-contiguous array (the argument checks require one)
    of a parameter of `shape`: the sizes and strides once when they are all static."""

    def set_sizes(sizes: Sequence[int]) -> None:
        descriptor.sizes[:] = sizes
        stride = 1
        for dim in reversed(range(len(sizes))):
            descriptor.strides[dim] = stride
            stride *= sizes[dim]

    static = None not in shape
    if static and shape:
        set_sizes(typing.cast(tuple[int, ...], shape))

    def fill(arg: object) -> None:
        assert isinstance(arg, np.ndarray)
        descriptor.allocated = descriptor.aligned = _data_pointer(arg)
        if not static:
            set_sizes(arg.shape)

    return fill


@dataclass
class CpuBinary(Binary):
    """Native code of one entry, and the LLVM dialect it came from."""

    function: native.NativeKernel
    llvm_dialect: str
    engine: object | None = None
    """The JIT engine (None when loaded from a library): it can dump its object."""

    def source(self) -> str:
        return self.llvm_dialect


class CpuDriver(Driver[CpuBinary, CodegenOptions]):
    def present(self) -> bool:
        return True

    def check_params(self, params: Sequence[Param]) -> None:
        for param in params:
            if param.shape is None and param.element not in _SCALAR_CTYPES:
                raise ArgumentError(
                    f"parameter '{param.name}' of type {param.element} cannot be passed as a "
                    f"scalar on cpu (use one of {', '.join(_SCALAR_CTYPES)})"
                )

    def launcher(self, binary: CpuBinary, params: Sequence[Param]) -> Launcher:
        function = binary.function
        per_thread = threading.local()

        def launch(args: Sequence[object]) -> None:
            packed = getattr(per_thread, "packed", None)
            if packed is None:
                packed = per_thread.packed = _PackedArguments(params)
            packed.fill(args)
            function(packed.address)

        return launch

    def save(self, binary: CpuBinary, directory: Path) -> None:
        (directory / _LLVM).write_text(binary.source())
        engine = binary.engine
        if engine is not None and native.linker() is not None:
            native.link_shared_library(engine, directory / _LIBRARY)

    def load(self, directory: Path, entry: str, options: CodegenOptions) -> CpuBinary:
        llvm_text = (directory / _LLVM).read_text()
        if (directory / _LIBRARY).is_file():
            return CpuBinary(native.load_shared_library(directory / _LIBRARY, entry), llvm_text)
        context = tilec_ir.make_context()
        with context, ir.Location.unknown(context):
            module = ir.Module.parse(llvm_text)
            function, _ = native.jit(module, entry, options.opt_level)
        return CpuBinary(function, llvm_text)
