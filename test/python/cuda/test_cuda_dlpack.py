"""GPU tensors through DLPack, without a GPU: a fake producer hands out
DLManagedTensor capsules claiming CUDA memory, and the driver reads their
pointers, shapes and types (zero-copy: the kernel descriptor carries the
producer's own pointer) without loading anything of CUDA."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest

from tilec.backends.cuda import driver, launch_plan
from tilec.backends.cuda.dlpack import (
    KDL_CPU,
    KDL_CUDA,
    DLDataType,
    DLDevice,
    DLManagedTensor,
    DLTensor,
    device_array,
    is_device_tensor,
)
from tilec.diagnostics import CompileError
from tilec.runtime.signature import Param

_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]


class FakeGpuTensor:
    """A DLPack producer whose memory is 'on' CUDA device 0 at `address`."""

    def __init__(self, address: int, shape, code: int, bits: int, strides=None,
                 device_type: int = KDL_CUDA, byte_offset: int = 0):
        self.shape_array = (ctypes.c_int64 * len(shape))(*shape)
        self.strides_array = None if strides is None else (ctypes.c_int64 * len(shape))(*strides)
        self.managed = DLManagedTensor(
            DLTensor(ctypes.c_void_p(address), DLDevice(device_type, 0), len(shape),
                     DLDataType(code, bits, 1), self.shape_array,
                     self.strides_array, byte_offset),
            None, None,
        )
        self.device_type = device_type
        self.exports = 0

    def __dlpack_device__(self):
        return (self.device_type, 0)

    def __dlpack__(self, stream=None):
        self.exports += 1
        return _capsule_new(ctypes.addressof(self.managed), b"dltensor", None)


def test_a_cuda_tensor_is_read_in_place():
    tensor = FakeGpuTensor(0x7F0000000000, (64, 32), code=2, bits=16, byte_offset=256)
    assert is_device_tensor(tensor)
    array = device_array(tensor, "A")
    assert (array.pointer, array.shape, array.dtype) == (0x7F0000000100, (64, 32),
                                                         np.dtype("float16"))
    assert tensor.exports == 1


def test_host_tensors_and_numpy_are_not_device_tensors():
    assert not is_device_tensor(np.zeros(4, np.float32))
    assert not is_device_tensor(FakeGpuTensor(0x1000, (4,), 2, 32, device_type=KDL_CPU))
    assert not is_device_tensor(3.0)


def test_strided_gpu_tensor_is_a_clear_error():
    tensor = FakeGpuTensor(0x1000, (8, 8), code=2, bits=32, strides=(1, 8))
    with pytest.raises(CompileError, match=r"argument 'X': .* not C-contiguous"):
        device_array(tensor, "X")
    # Row-major strides (and any stride of a size-1 dim) are fine.
    assert device_array(FakeGpuTensor(0x1000, (1, 8), 2, 32, strides=(99, 1)), "X").shape == (1, 8)


def test_device_arguments_check_type_and_shape_and_pass_the_pointer():
    params = [Param("A", "f16", (64, None), written=False, dim_names=(None, "K")),
              Param("n", "index", None, written=False)]
    args = driver.device_arguments(params, [FakeGpuTensor(0x2000, (64, 48), 2, 16), 5])
    assert args[1] == 5 and args[0].pointer == 0x2000
    # The kernel's memref descriptor carries that pointer: no copy is made.
    descriptor = driver._descriptor(driver._pointer(args[0], None), args[0].shape)
    assert [v.value for v in descriptor] == [0x2000, 0x2000, 0, 64, 48, 48, 1]
    assert launch_plan.evaluate(["dim", 0, 1], args) == 48
    with pytest.raises(CompileError, match="expects float16 but the GPU tensor holds int16"):
        driver.device_arguments(params, [FakeGpuTensor(0x2000, (64, 48), 0, 16), 5])
    with pytest.raises(CompileError, match=r"expects shape .* but the GPU tensor has \(32, 48\)"):
        driver.device_arguments(params, [FakeGpuTensor(0x2000, (32, 48), 2, 16), 5])
