"""The library's tensors: torch tensors (any device) or numpy arrays, seen by kernels
as arrays over the same memory.

numpy has no bfloat16 or float8 of its own and DLPack cannot carry them into
numpy, so a host torch tensor of those dtypes is viewed through an integer
dtype of its width and relabelled with ml_dtypes' type: no copy, the strides
kept. A CUDA tensor is passed as it is (the cuda driver takes device
tensors). Outputs a call allocates are made in the framework of its input.
"""

from __future__ import annotations

from collections.abc import Sequence

import ml_dtypes
import numpy as np

# torch dtype name -> (numpy dtype of the same bits, integer dtype of its width)
_NUMPY_OF_TORCH: dict[str, tuple[np.dtype, str]] = {
    "bfloat16": (np.dtype(ml_dtypes.bfloat16), "int16"),
    "float8_e4m3fn": (np.dtype(ml_dtypes.float8_e4m3fn), "uint8"),
    "float8_e5m2": (np.dtype(ml_dtypes.float8_e5m2), "uint8"),
}


def is_torch(value: object) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "data_ptr")


def dtype_name(value: object) -> str:
    """The element type's name, as torch and ml_dtypes spell it ("bfloat16",
    "float8_e4m3fn", "float32", ...)."""
    if is_torch(value):
        return str(value.dtype).removeprefix("torch.")  # type: ignore[attr-defined]
    return np.asarray(value).dtype.name


def kernel_view(value: object, what: str) -> object:
    """`value` as a kernel argument: a numpy array over its memory (host data), or the
    CUDA tensor itself."""
    if isinstance(value, np.ndarray):
        return value
    if not is_torch(value):
        raise TypeError(f"{what} must be a torch tensor or a numpy array but got "
                        f"{type(value).__name__}")
    if getattr(value, "is_cuda", False):
        return value
    name = dtype_name(value)
    if name in _NUMPY_OF_TORCH:
        import torch

        numpy_dtype, integer = _NUMPY_OF_TORCH[name]
        return value.view(getattr(torch, integer)).numpy().view(numpy_dtype)  # type: ignore[attr-defined]
    return value.numpy()  # type: ignore[attr-defined]


def as_strided_view(value: object, shape: Sequence[int], strides: Sequence[int]) -> object:
    """A view of `value`'s memory with other shape and element strides (a padded
    column-major scale tensor seen as its row-major storage)."""
    if is_torch(value):
        return value.as_strided(tuple(shape), tuple(strides))  # type: ignore[attr-defined]
    array = np.asarray(value)
    return np.lib.stride_tricks.as_strided(
        array, tuple(shape), tuple(s * array.itemsize for s in strides), writeable=True
    )


def strides_of(value: object) -> tuple[int, ...]:
    """Element strides."""
    if is_torch(value):
        return tuple(value.stride())  # type: ignore[attr-defined]
    array = np.asarray(value)
    return tuple(s // array.itemsize for s in array.strides)


def is_row_major(value: object) -> bool:
    """Contiguous in C order (size-1 dims may have any stride; an empty tensor is)."""
    shape, strides, expected = tuple(value.shape), strides_of(value), 1  # type: ignore[attr-defined]
    if 0 in shape:
        return True
    for size, stride in zip(reversed(shape), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def empty_like_framework(like: object, shape: Sequence[int], dtype: str) -> object:
    """A new tensor of `shape` and `dtype` ("float32", "float8_e4m3fn", ...), made by
    the framework of `like` on its device (torch), or a numpy array."""
    if is_torch(like):
        import torch

        return torch.empty(tuple(shape), dtype=getattr(torch, dtype), device=like.device)  # type: ignore[attr-defined]
    numpy_dtype = _NUMPY_OF_TORCH[dtype][0] if dtype in _NUMPY_OF_TORCH else np.dtype(dtype)
    return np.empty(tuple(shape), numpy_dtype)


def host_int32(like: object, values: Sequence[int]) -> object:
    """A small int32 tensor of host metadata (offsets from a CPU list) in the framework
    and on the device of `like`."""
    if is_torch(like):
        import torch

        return torch.tensor(list(values), dtype=torch.int32, device=like.device)  # type: ignore[attr-defined]
    return np.asarray(list(values), np.int32)
