"""The cuda backend's driver half: finding a GPU without ever aborting, and launching.

The checks go in the order that cannot take the process down on a machine
without a GPU (DESIGN.md §3): load `libcuda.so.1` (OSError when there is
no driver), `cuInit`, then count the devices. Nothing else of CUDA is ever
loaded before they pass; calling a kernel on a machine without them raises
a CompileError saying so.

A launch goes through the driver API (ctypes on `libcuda.so.1`): the module
is loaded from the cubin (or the PTX, JIT-compiled by the driver, when no
ptxas is installed), numpy arguments are copied to device memory and the
written ones copied back after the kernel. The grid and the scalar kernel
arguments come from the `LaunchPlan`: expressions over the entry's
parameters and their shapes, recorded from the host function at compile
time. A memref argument is passed as MLIR's descriptor expanded to
scalars: allocated and aligned pointer, offset, sizes, strides. A tensor
already on the GPU (torch, cupy: anything whose DLPack device is CUDA) is
passed by its own pointer (`dlpack.py`), zero-copy: the kernel writes it
in place. A kernel that loads tiles by TMA also takes pointers to tensor
maps of its arguments, encoded before each launch into device memory
(`tensor_maps.py`).
"""

from __future__ import annotations

import ctypes
import functools
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from tilec.backends.base import Driver, Launcher
from tilec.backends.cuda.binary import CudaBinary, find_ptxas
from tilec.backends.cuda.dlpack import DeviceArray, device_array, is_device_tensor
from tilec.backends.cuda.launch_plan import LaunchPlan, evaluate
from tilec.backends.cuda.options import CudaOptions
from tilec.backends.cuda.tensor_maps import (
    TENSOR_MAP_BYTES,
    TmaDescriptor,
    encode,
    tensor_map_arguments,
)
from tilec.diagnostics import error
from tilec.runtime.signature import Param, numpy_dtype

if TYPE_CHECKING:
    from tilec.runtime.compiler import CompiledKernel

_CUDA_SUCCESS = 0
_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
_STATIC_SHARED_LIMIT = 48 * 1024

@functools.cache
def _libcuda() -> ctypes.CDLL | None:
    """The driver library, initialized, when it loads and sees a device."""
    try:
        libcuda = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    if libcuda.cuInit(0) != _CUDA_SUCCESS:
        return None
    count = ctypes.c_int(0)
    if libcuda.cuDeviceGetCount(ctypes.byref(count)) != _CUDA_SUCCESS or count.value == 0:
        return None
    return libcuda


def device_count() -> int:
    """How many CUDA devices a working driver reports (0 without a driver)."""
    libcuda = _libcuda()
    if libcuda is None:
        return 0
    count = ctypes.c_int(0)
    libcuda.cuDeviceGetCount(ctypes.byref(count))
    return count.value


def _check(libcuda: ctypes.CDLL, result: int, what: str) -> None:
    if result != _CUDA_SUCCESS:
        name = ctypes.c_char_p()
        libcuda.cuGetErrorName(result, ctypes.byref(name))
        raise error(f"{what} failed: {(name.value or b'?').decode()} ({result})")


class _Context:
    """The primary context of device 0, made current once."""

    @staticmethod
    @functools.cache
    def current(libcuda: ctypes.CDLL) -> ctypes.c_void_p:
        device = ctypes.c_int(0)
        _check(libcuda, libcuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
        context = ctypes.c_void_p()
        _check(libcuda, libcuda.cuDevicePrimaryCtxRetain(ctypes.byref(context), device),
               "cuDevicePrimaryCtxRetain")
        _check(libcuda, libcuda.cuCtxSetCurrent(context), "cuCtxSetCurrent")
        return context


def _scalar(kind: str, value: object) -> ctypes._SimpleCData:
    table = {"index": ctypes.c_int64, "i64": ctypes.c_int64, "i32": ctypes.c_int32,
             "i16": ctypes.c_int16, "i8": ctypes.c_int8, "f64": ctypes.c_double,
             "f32": ctypes.c_float}
    if kind not in table:
        raise error(f"a kernel argument of type {kind} cannot be passed from the host")
    return table[kind](value)  # type: ignore[arg-type]


class CudaDriver(Driver[CudaBinary, CudaOptions]):

    takes_device_tensors = True
    def present(self) -> bool:
        return device_count() > 0

    def launcher(self, binary: CudaBinary, params: Sequence[Param]) -> Launcher:
        def launch(args: Sequence[object]) -> None:
            libcuda = _libcuda()
            if libcuda is None:
                raise error("no CUDA GPU with a working driver here (libcuda.so.1 did not load "
                            "or reports no device): the kernel compiled (kernel.source() is "
                            "its PTX) but cannot run; use target='cpu' to run it here")
            _launch(libcuda, binary, params, device_arguments(params, args))

        return launch

    def save(self, binary: CudaBinary, directory: Path) -> None:
        (directory / "kernel.ptx").write_text(binary.source())
        (directory / "launch.json").write_text(binary.plan.to_json())
        (directory / "arch").write_text(binary.arch)

    def load(self, directory: Path, entry: str, options: CudaOptions) -> CudaBinary:
        plan = LaunchPlan.from_json((directory / "launch.json").read_text())
        return CudaBinary((directory / "kernel.ptx").read_text(),
                          (directory / "arch").read_text(), plan)


def device_arguments(params: Sequence[Param], args: Sequence[object]) -> list[object]:
    """`args` with every GPU tensor for an array parameter as a `DeviceArray`
    of the parameter's element type and rank (a CompileError otherwise)."""
    converted = list(args)
    for i, (param, arg) in enumerate(zip(params, args, strict=False)):
        if not param.is_array or not is_device_tensor(arg):
            continue
        array = device_array(arg, param.name)
        expected = numpy_dtype(param.element)
        if array.dtype.itemsize != expected.itemsize or (
            array.dtype.kind != expected.kind and param.element != "bf16"
        ):
            raise error(f"argument '{param.name}' expects {expected} but the GPU tensor holds "
                        f"{array.dtype}")
        assert param.shape is not None
        if array.ndim != len(param.shape) or any(
            s is not None and s != a for s, a in zip(param.shape, array.shape, strict=True)
        ):
            raise error(f"argument '{param.name}' expects shape {param.describe_shape()} but "
                        f"the GPU tensor has {array.shape}")
        converted[i] = array
    return converted


def _functions(libcuda: ctypes.CDLL, binary: CudaBinary) -> dict[str, ctypes.c_void_p]:
    """The loaded kernels of `binary` by name (loaded once: the module stays
    for the process)."""
    if binary.loaded is not None:
        return binary.loaded
    _Context.current(libcuda)
    image = binary() if find_ptxas() else binary.ptx.encode() + b"\0"
    module = ctypes.c_void_p()
    _check(libcuda, libcuda.cuModuleLoadData(ctypes.byref(module), image), "cuModuleLoadData")
    functions: dict[str, ctypes.c_void_p] = {}
    for launch in binary.plan.launches:
        function = ctypes.c_void_p()
        _check(libcuda, libcuda.cuModuleGetFunction(ctypes.byref(function), module,
                                                    launch.kernel.encode()),
               "cuModuleGetFunction")
        if launch.shared_bytes > _STATIC_SHARED_LIMIT:
            _check(libcuda, libcuda.cuFuncSetAttribute(
                function, _MAX_DYNAMIC_SHARED_SIZE_BYTES, launch.shared_bytes),
                "cuFuncSetAttribute")
        functions[launch.kernel] = function
    binary.loaded = functions
    return functions


def _alloc(libcuda: ctypes.CDLL, nbytes: int) -> ctypes.c_uint64:
    pointer = ctypes.c_uint64()
    _check(libcuda, libcuda.cuMemAlloc_v2(ctypes.byref(pointer), max(nbytes, 1)), "cuMemAlloc")
    return pointer


def _descriptor(pointer: int, shape: Sequence[int]) -> list[ctypes._SimpleCData]:
    """A row-major memref descriptor expanded to scalars (MLIR's calling convention)."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * int(shape[i + 1])
    return [ctypes.c_uint64(pointer), ctypes.c_uint64(pointer), ctypes.c_int64(0),
            *[ctypes.c_int64(int(s)) for s in shape], *[ctypes.c_int64(s) for s in strides]]


def _launch(libcuda: ctypes.CDLL, binary: CudaBinary, params: Sequence[Param],
            args: Sequence[object], repeats: int = 1) -> float:
    """Copies the arrays in, runs the entry's launches `repeats` times, copies
    the written arrays back; returns the mean seconds of one run (CUDA events)."""
    plan = binary.plan
    functions = _functions(libcuda, binary)
    device: dict[int, ctypes.c_uint64] = {}
    workspaces: list[tuple[ctypes.c_uint64, list[int]]] = []
    maps: list[ctypes.c_uint64 | None] = []
    try:
        for i, arg in enumerate(args):
            if isinstance(arg, np.ndarray):
                host = np.ascontiguousarray(arg)
                device[i] = _alloc(libcuda, host.nbytes)
                _check(libcuda, libcuda.cuMemcpyHtoD_v2(device[i], host.ctypes.data_as(
                    ctypes.c_void_p), ctypes.c_size_t(host.nbytes)), "cuMemcpyHtoD")
        for element, shape_exprs in plan.workspaces:
            shape = [int(evaluate(e, args)) for e in shape_exprs]
            itemsize = np.dtype(_NUMPY.get(element, "float32")).itemsize
            count = 1
            for size in shape:
                count *= size
            workspaces.append((_alloc(libcuda, count * itemsize), shape))
        maps.extend(_tensor_map(libcuda, d, args, device) for d in plan.descriptors)
        runs = []
        for launch in plan.launches:
            values: list[ctypes._SimpleCData] = []
            for expr, kind in zip(launch.args, launch.arg_types, strict=True):
                if kind.startswith("memref") and expr[0] == "workspace":
                    pointer, shape = workspaces[expr[1]]
                    values += _descriptor(pointer.value, shape)
                elif expr[0] == "tma":
                    map_pointer = maps[expr[1]]
                    values.append(ctypes.c_uint64(0 if map_pointer is None else map_pointer.value))
                elif kind.startswith("memref"):
                    values += _descriptor(_pointer(args[expr[1]], device.get(expr[1])),
                                          np.shape(args[expr[1]]))
                else:
                    values.append(_scalar(kind, evaluate(expr, args)))
            pointers = (ctypes.c_void_p * max(len(values), 1))(
                *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p) for v in values]
            )
            grid = [int(evaluate(g, args)) for g in launch.grid]
            runs.append((functions[launch.kernel], grid, launch, pointers, values))
        events = [ctypes.c_void_p(), ctypes.c_void_p()]
        for event in events:
            _check(libcuda, libcuda.cuEventCreate(ctypes.byref(event), 0), "cuEventCreate")
        _check(libcuda, libcuda.cuEventRecord(events[0], None), "cuEventRecord")
        for _ in range(repeats):
            for function, grid, launch, pointers, _values in runs:
                if min(grid) <= 0:
                    continue
                _check(libcuda, libcuda.cuLaunchKernel(
                    function, *[ctypes.c_uint(g) for g in grid],
                    *[ctypes.c_uint(b) for b in launch.block], ctypes.c_uint(launch.shared_bytes),
                    None, pointers, None), f"cuLaunchKernel of {launch.kernel}")
        _check(libcuda, libcuda.cuEventRecord(events[1], None), "cuEventRecord")
        _check(libcuda, libcuda.cuCtxSynchronize(), "the kernel")
        milliseconds = ctypes.c_float()
        _check(libcuda, libcuda.cuEventElapsedTime(ctypes.byref(milliseconds), *events),
               "cuEventElapsedTime")
        for event in events:
            libcuda.cuEventDestroy_v2(event)
        for i, param in enumerate(params):
            arg = args[i]
            if i in device and param.written and isinstance(arg, np.ndarray):
                host = np.empty_like(arg, order="C")
                _check(libcuda, libcuda.cuMemcpyDtoH_v2(host.ctypes.data_as(ctypes.c_void_p),
                                                        device[i], ctypes.c_size_t(host.nbytes)),
                       "cuMemcpyDtoH")
                arg[...] = host
        return milliseconds.value / 1000 / repeats
    finally:
        for pointer in [*device.values(), *(w for w, _ in workspaces),
                        *(m for m in maps if m is not None)]:
            libcuda.cuMemFree_v2(pointer)


def _tensor_map(libcuda: ctypes.CDLL, descriptor: TmaDescriptor, args: Sequence[object],
                device: dict[int, ctypes.c_uint64]) -> ctypes.c_uint64 | None:
    """A device copy of the tensor map of `descriptor` for this call's
    argument, None where it cannot be encoded (the kernel copies by threads)."""
    arg = args[descriptor.param]
    arguments = tensor_map_arguments(descriptor, np.shape(arg),
                                     _pointer(arg, device.get(descriptor.param)))
    if arguments is None:
        return None
    host = encode(libcuda, arguments)
    pointer = _alloc(libcuda, TENSOR_MAP_BYTES)
    _check(libcuda, libcuda.cuMemcpyHtoD_v2(pointer, host, ctypes.c_size_t(TENSOR_MAP_BYTES)),
           "cuMemcpyHtoD")
    return pointer


def _pointer(arg: object, copy: ctypes.c_uint64 | None) -> int:
    """The device address of an array argument: a GPU tensor's own, else its copy's."""
    if isinstance(arg, DeviceArray):
        return arg.pointer
    assert copy is not None
    return copy.value


_NUMPY = {"f16": "float16", "f32": "float32", "f64": "float64", "i8": "int8", "i16": "int16",
          "i32": "int32", "i64": "int64", "bf16": "uint16"}


def time_kernel(kernel: CompiledKernel, *args: object, repeats: int = 20) -> float:
    """Mean seconds of one launch of a compiled cuda kernel on numpy `args`
    (copied in once) or GPU tensors (used in place); the launches run back
    to back, timed by CUDA events."""
    libcuda = _libcuda()
    if libcuda is None:
        raise error("no CUDA GPU with a working driver here")
    binary, params = kernel.binary, kernel.params
    if not isinstance(binary, CudaBinary):
        raise error(f"time_kernel times cuda kernels, not one compiled for {kernel.target}")
    args = tuple(device_arguments(params, args))
    _launch(libcuda, binary, params, args)  # warm-up: loads the module
    return _launch(libcuda, binary, params, args, repeats)
