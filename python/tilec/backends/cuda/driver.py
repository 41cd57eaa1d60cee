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
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from mlir import ir

from tilec.backends.base import Binary, Driver, Launcher, Options
from tilec.backends.cuda.dlpack import DeviceArray, device_array, is_device_tensor
from tilec.backends.cuda.tensor_maps import (
    TENSOR_MAP_BYTES,
    TmaDescriptor,
    encode,
    tensor_map_arguments,
)
from tilec.diagnostics import error
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_cuda.tma_copy import TMA_DESCRIPTOR
from tilec.runtime.signature import Param, numpy_dtype

_CUDA_SUCCESS = 0
_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
_STATIC_SHARED_LIMIT = 48 * 1024

Expr = list
"""A host value as JSON: ["param", i], ["dim", i, d], ["const", v] or
[op name, attribute, operand expressions...]."""

_BINARY_OPS = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": lambda a, b: int(a / b),
    "arith.divui": lambda a, b: a // b,
    "arith.ceildivsi": lambda a, b: -(-a // b),
    "arith.ceildivui": lambda a, b: -(-a // b),
    "arith.floordivsi": lambda a, b: a // b,
    "arith.remsi": lambda a, b: int(np.fmod(a, b)),
    "arith.remui": lambda a, b: a % b,
    "arith.minsi": min,
    "arith.minui": min,
    "arith.maxsi": max,
    "arith.maxui": max,
    "arith.addf": lambda a, b: a + b,
    "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b,
    "arith.divf": lambda a, b: a / b,
}
_CASTS = {"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui",
          "arith.trunci", "arith.sitofp", "arith.extf", "arith.truncf"}
# arith.cmpi predicates by number: eq ne slt sle sgt sge ult ule ugt uge.
_COMPARE = [lambda a, b: a == b, lambda a, b: a != b, lambda a, b: a < b,
            lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a >= b,
            lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a > b,
            lambda a, b: a >= b]


def host_expression(value: ir.Value, params: list[ir.Value],
                    workspaces: list[ir.Value] | None = None,
                    descriptors: list[TmaDescriptor] | None = None) -> Expr:
    """`value` of the host function as an expression over its parameters;
    a `memref.alloc` of the host (a global workspace) is ["workspace", i],
    its position in `workspaces`, a TMA tensor map (`tma_copy.py`)
    ["tma", i], its position in `descriptors`. ValueError names an op that
    is not plain integer arithmetic."""
    for i, param in enumerate(params):
        if value == param:
            return ["param", i]
    op = value.owner
    name = op.name
    if name == "arith.constant":
        attr = op.attributes["value"]
        if isinstance(attr, ir.IntegerAttr):
            return ["const", ir.IntegerAttr(attr).value]
        return ["const", ir.FloatAttr(attr).value]
    if name == "memref.cast":
        # A cast between static and dynamic shapes keeps the buffer.
        return host_expression(op.operands[0], params, workspaces)
    if name == "memref.alloc" and workspaces is not None:
        if value not in workspaces:
            workspaces.append(value)
        return ["workspace", workspaces.index(value)]
    if name == "builtin.unrealized_conversion_cast" and TMA_DESCRIPTOR in op.attributes:
        source = host_expression(op.operands[0], params)
        if descriptors is None or source[0] != "param":
            raise ValueError("a TMA tensor map of a value that is not a parameter")
        descriptor = TmaDescriptor.of(source[1], ir.DictAttr(op.attributes[TMA_DESCRIPTOR]))
        if descriptor not in descriptors:
            descriptors.append(descriptor)
        return ["tma", descriptors.index(descriptor)]
    if name == "memref.dim":
        source, dim = op.operands
        position = host_expression(source, params, workspaces)
        dim_expr = host_expression(dim, params, workspaces)
        if position[0] != "param" or dim_expr[0] != "const":
            raise ValueError("memref.dim of a value that is not a parameter")
        return ["dim", position[1], dim_expr[1]]
    operands = [host_expression(v, params, workspaces) for v in op.operands]
    if name in _BINARY_OPS or name in _CASTS or name == "arith.select":
        return [name, None, *operands]
    if name == "arith.cmpi":
        return [name, ir.IntegerAttr(op.attributes["predicate"]).value, *operands]
    raise ValueError(f"'{name}' computes a launch value on the host")


def evaluate(expr: Expr, args: Sequence[object]) -> int | float:
    kind = expr[0]
    if kind == "param":
        return args[expr[1]]  # type: ignore[return-value]
    if kind == "const":
        return expr[1]
    if kind == "dim":
        return int(np.shape(args[expr[1]])[expr[2]])
    values = [evaluate(e, args) for e in expr[2:]]
    if kind in _CASTS:
        return values[0]
    if kind == "arith.select":
        return values[1] if values[0] else values[2]
    if kind == "arith.cmpi":
        return int(_COMPARE[expr[1]](*values))
    return _BINARY_OPS[kind](*values)


@dataclass(frozen=True)
class Launch:
    """One `gpu.launch_func` of the entry."""

    kernel: str
    grid: tuple[Expr, Expr, Expr]
    block: tuple[int, int, int]
    shared_bytes: int
    args: tuple[Expr, ...]
    """Per kernel argument: ["param", i] or ["workspace", i] for a memref, ["tma", i] for
    a pointer to the plan's tensor map i, else an expression."""
    arg_types: tuple[str, ...]
    """Per kernel argument: "memref<rank>" or the scalar's MLIR type."""


@dataclass(frozen=True)
class LaunchPlan:
    """How to run an entry from its arguments: its launches in order, the
    global workspaces (`T.alloc_global`) they share, as (element, shape),
    and the TMA tensor maps the driver makes from the arguments."""

    launches: tuple[Launch, ...]
    workspaces: tuple[tuple[str, tuple[Expr, ...]], ...] = ()
    descriptors: tuple[TmaDescriptor, ...] = ()

    @property
    def kernel(self) -> str:
        """The first kernel's name."""
        return self.launches[0].kernel

    @property
    def grid(self) -> tuple[Expr, Expr, Expr]:
        return self.launches[0].grid

    @property
    def block(self) -> tuple[int, int, int]:
        return self.launches[0].block

    @property
    def shared_bytes(self) -> int:
        """The most dynamic shared memory one of the kernels uses."""
        return max(launch.shared_bytes for launch in self.launches)

    @staticmethod
    def from_module(module: ir.Module, entry: str) -> LaunchPlan:
        funcs = [op for op in module.body.operations
                 if op.operation.name == "func.func"
                 and ir.StringAttr(op.attributes["sym_name"]).value == entry]
        if not funcs:
            raise error(f"no host function '{entry}' after the cuda pipeline")
        func = funcs[0].operation
        found = irb.collect(func, "gpu.launch_func")
        if not found:
            raise error(f"'{entry}' launches no kernel", func.location)
        params = list(func.regions[0].blocks[0].arguments)
        workspaces: list[ir.Value] = []
        descriptors: list[TmaDescriptor] = []
        launches = tuple(_launch_of(op, params, workspaces, descriptors) for op in found)
        shapes = []
        for value in workspaces:
            type_ = ir.MemRefType(value.type)
            sizes = iter(value.owner.operands)
            shape = tuple(
                host_expression(next(sizes), params) if ir.ShapedType.is_dynamic_size(size)
                else ["const", size]
                for size in type_.shape
            )
            shapes.append((str(type_.element_type), shape))
        return LaunchPlan(launches, tuple(shapes), tuple(descriptors))

    def to_json(self) -> str:
        return json.dumps({"launches": [launch.__dict__ for launch in self.launches],
                           "workspaces": self.workspaces,
                           "descriptors": [d.to_json() for d in self.descriptors]})

    @staticmethod
    def from_json(text: str) -> LaunchPlan:
        data = json.loads(text)
        launches = tuple(
            Launch(d["kernel"], tuple(d["grid"]), tuple(d["block"]), d["shared_bytes"],
                   tuple(d["args"]), tuple(d["arg_types"]))
            for d in data["launches"]
        )
        return LaunchPlan(launches, tuple((e, tuple(s)) for e, s in data["workspaces"]),
                          tuple(TmaDescriptor.from_json(d) for d in data.get("descriptors", [])))


def _launch_of(launch: ir.Operation, params: list[ir.Value], workspaces: list[ir.Value],
               descriptors: list[TmaDescriptor]) -> Launch:
    view = launch.opview
    try:
        grid = tuple(host_expression(v, params)
                     for v in (view.gridSizeX, view.gridSizeY, view.gridSizeZ))
        block = tuple(evaluate(host_expression(v, params), [])
                      for v in (view.blockSizeX, view.blockSizeY, view.blockSizeZ))
        shared = view.dynamicSharedMemorySize
        shared_bytes = 0 if shared is None else int(evaluate(host_expression(shared, params), []))
        args = tuple(host_expression(v, params, workspaces, descriptors)
                     for v in view.kernelOperands)
    except (ValueError, KeyError) as exc:
        raise error(f"cannot launch this kernel from its arguments: {exc}",
                    launch.location) from None
    kinds = tuple(
        f"memref{ir.MemRefType(v.type).rank}" if isinstance(v.type, ir.MemRefType)
        else str(v.type)
        for v in view.kernelOperands
    )
    for expr, kind in zip(args, kinds, strict=True):
        if kind.startswith("memref") and expr[0] not in ("param", "workspace"):
            raise error("a kernel's memref argument must be an entry parameter or a workspace",
                        launch.location)
    # @module::@kernel: the kernel's own name is the last reference.
    kernel = str(launch.attributes["kernel"]).rsplit("@", 1)[-1].strip('"')
    return Launch(kernel, grid, block, shared_bytes, args, kinds)  # type: ignore[arg-type]


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


class CudaDriver(Driver):

    takes_device_tensors = True
    def present(self) -> bool:
        return device_count() > 0

    def launcher(self, binary: Binary, params: Sequence[Param]) -> Launcher:
        def launch(args: Sequence[object]) -> None:
            libcuda = _libcuda()
            if libcuda is None:
                raise error("no CUDA GPU with a working driver here (libcuda.so.1 did not load "
                            "or reports no device): the kernel compiled (kernel.source() is "
                            "its PTX) but cannot run; use target='cpu' to run it here")
            _launch(libcuda, binary, params, device_arguments(params, args))

        return launch

    def save(self, binary: Binary, directory: Path) -> None:
        (directory / "kernel.ptx").write_text(binary.source())
        (directory / "launch.json").write_text(binary.plan.to_json())  # type: ignore[attr-defined]
        (directory / "arch").write_text(binary.arch)  # type: ignore[attr-defined]

    def load(self, directory: Path, entry: str, options: Options) -> Binary:
        from tilec.backends.cuda.compiler import CudaBinary

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


def _functions(libcuda: ctypes.CDLL, binary: Binary) -> dict[str, ctypes.c_void_p]:
    """The loaded kernels of `binary` by name (loaded once: the module stays
    for the process)."""
    from tilec.backends.cuda.compiler import CudaBinary, find_ptxas

    assert isinstance(binary, CudaBinary)
    cached = getattr(binary, "_functions", None)
    if cached is not None:
        return cached
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
    binary._functions = functions  # type: ignore[attr-defined]
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


def _launch(libcuda: ctypes.CDLL, binary: Binary, params: Sequence[Param],
            args: Sequence[object], repeats: int = 1) -> float:
    """Copies the arrays in, runs the entry's launches `repeats` times, copies
    the written arrays back; returns the mean seconds of one run (CUDA events)."""
    plan = binary.plan  # type: ignore[attr-defined]
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


def time_kernel(kernel: object, *args: object, repeats: int = 20) -> float:
    """Mean seconds of one launch of a compiled cuda kernel on numpy `args`
    (copied in once) or GPU tensors (used in place); the launches run back
    to back, timed by CUDA events."""
    libcuda = _libcuda()
    if libcuda is None:
        raise error("no CUDA GPU with a working driver here")
    binary, params = kernel.binary, kernel.params  # type: ignore[attr-defined]
    args = tuple(device_arguments(params, args))
    _launch(libcuda, binary, params, args)  # warm-up: loads the module
    return _launch(libcuda, binary, params, args, repeats)
