"""GPU tensors of other frameworks (torch, cupy) as kernel arguments, zero-copy, via DLPack.

A tensor whose `__dlpack_device__()` is a CUDA device hands over a
`DLManagedTensor` in a capsule (`__dlpack__()`); `DeviceArray` reads its
data pointer, shape, strides and element type with ctypes and keeps the
capsule alive until the launch is over (the capsule's destructor then
returns the tensor to its owner, as the DLPack protocol says for a capsule
that was not renamed). No CUDA library is touched here, so reading a
tensor never aborts a machine without a GPU; the launch then passes the
pointer straight to the kernel: nothing is copied in or out.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from tilec.diagnostics import error

# DLDeviceType values whose memory a kernel can address.
KDL_CPU = 1
KDL_CUDA = 2
KDL_CUDA_HOST = 3
KDL_CUDA_MANAGED = 13
_DEVICE_TYPES = {KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED}
# DLDataTypeCode -> numpy kind.
_KINDS = {0: "i", 1: "u", 2: "f"}
_BFLOAT = 4


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("device", DLDevice),
        ("ndim", ctypes.c_int32),
        ("dtype", DLDataType),
        ("shape", ctypes.POINTER(ctypes.c_int64)),
        ("strides", ctypes.POINTER(ctypes.c_int64)),
        ("byte_offset", ctypes.c_uint64),
    ]


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p),
                ("deleter", ctypes.c_void_p)]


_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = ctypes.c_void_p
_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]


@dataclass(frozen=True)
class DeviceArray:
    """A row-major tensor in GPU memory, seen through its DLPack capsule."""

    pointer: int
    shape: tuple[int, ...]
    dtype: np.dtype
    device_id: int
    owner: object  # the capsule: keeps the memory alive while referenced

    @property
    def ndim(self) -> int:
        return len(self.shape)


def is_device_tensor(value: object) -> bool:
    """Whether `value` is a DLPack tensor in memory a CUDA kernel can address."""
    device = getattr(value, "__dlpack_device__", None)
    if device is None or isinstance(value, np.ndarray):
        return False
    try:
        kind = int(device()[0])
    except (TypeError, ValueError, IndexError, RuntimeError, BufferError):
        return False
    return kind in _DEVICE_TYPES


def _numpy_dtype(dtype: DLDataType, name: str) -> np.dtype:
    if dtype.lanes != 1:
        raise error(f"argument '{name}': a DLPack tensor of {dtype.lanes}-lane vectors cannot be "
                    "passed to a kernel")
    if dtype.code == _BFLOAT and dtype.bits == 16:
        return np.dtype("uint16")  # bf16 travels as its 16 bits
    if dtype.code not in _KINDS:
        raise error(f"argument '{name}': DLPack type code {dtype.code} has no kernel type")
    return np.dtype(f"{_KINDS[dtype.code]}{dtype.bits // 8}")


def device_array(value: object, name: str = "?") -> DeviceArray:
    """`value` (a CUDA DLPack tensor) as a `DeviceArray`; a CompileError when
    it is not C-contiguous or has no kernel type."""
    try:
        capsule = value.__dlpack__(stream=None)  # type: ignore[attr-defined]
    except TypeError:
        capsule = value.__dlpack__()  # type: ignore[attr-defined]
    address = _get_pointer(capsule, b"dltensor")
    tensor = DLManagedTensor.from_address(address).dl_tensor
    if tensor.device.device_type not in _DEVICE_TYPES:
        raise error(f"argument '{name}': the DLPack tensor is not in GPU memory "
                    f"(device type {tensor.device.device_type})")
    shape = tuple(int(tensor.shape[d]) for d in range(tensor.ndim))
    if tensor.strides:
        strides = [int(tensor.strides[d]) for d in range(tensor.ndim)]
        if not _row_major(shape, strides):
            raise error(f"argument '{name}': the GPU tensor with shape {shape} and strides "
                        f"{tuple(strides)} is not C-contiguous (make it .contiguous())")
    return DeviceArray((tensor.data or 0) + tensor.byte_offset, shape,
                       _numpy_dtype(tensor.dtype, name), tensor.device.device_id, capsule)


def _row_major(shape: Sequence[int], strides: Sequence[int]) -> bool:
    expected = 1
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True
