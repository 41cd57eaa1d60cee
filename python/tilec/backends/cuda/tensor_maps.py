"""TMA tensor maps, made by the driver from a call's arrays (`cuTensorMapEncodeTiled`).

A kernel whose copies are TMA loads (passes/conversion/tile_to_cuda/ops/tma_copy.py)
takes, per (tensor, box), a pointer to a 128-byte tensor map. The compiler
records what the map is of (`TmaDescriptor`: which entry parameter, its
element type, the box and the swizzle); only the call knows the address,
dims and strides, so the driver encodes the map before each launch
(`tensor_map_arguments`, then `encode`) into device memory and passes its
address. Where the map cannot be encoded (address or rows not 16-byte
multiples, an empty dim) no map is passed: the kernel checks the same
condition and copies by threads there; a map the kernel `required`
(warp-specialized loops have no thread copies) is an error there instead.
Dims or strides past what a map can hold (2^31 elements for the kernel's
i32 coordinates, 2^40 bytes) are an error, never a wrong read. 8-bit
elements go as UINT8: TMA moves bytes, and the fp8 data types of the
driver are not needed for that.
"""

from __future__ import annotations

import ctypes
import math
from collections.abc import Sequence
from dataclasses import dataclass

from mlir import ir

from tilec.diagnostics import error

TENSOR_MAP_BYTES = 128
TENSOR_MAP_ALIGNMENT = 64
_ALIGNMENT = 16
_MAX_DIM = (1 << 31) - 1
_MAX_STRIDE = 1 << 40

# CUtensorMapDataType by element type.
DATA_TYPES = {"f16": 6, "bf16": 9, "f32": 7, "i32": 3, "i16": 1, "i8": 0,
              "f8E4M3FN": 0, "f8E5M2": 0}
ELEMENT_BYTES = {"f16": 2, "bf16": 2, "f32": 4, "i32": 4, "i16": 2, "i8": 1,
                 "f8E4M3FN": 1, "f8E5M2": 1}
# CUtensorMapSwizzle by swizzle width in bytes.
SWIZZLES = {0: 0, 32: 1, 64: 2, 128: 3}
_INTERLEAVE_NONE = 0
_L2_PROMOTION_128B = 2
_OOB_FILL_ZEROS = 0  # CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: out-of-bounds elements read 0


@dataclass(frozen=True)
class TmaDescriptor:
    """What one tensor map of a launch is of."""

    param: int
    element: str
    box: tuple[int, ...]
    """Box dims innermost first."""
    swizzle: int
    """Swizzle width in bytes (0: none)."""
    required: bool = False
    """The kernel cannot copy by threads instead (warp specialization)."""

    @staticmethod
    def of(param: int, spec: ir.DictAttr) -> TmaDescriptor:
        return TmaDescriptor(param, ir.StringAttr(spec["element"]).value,
                             tuple(ir.DenseI64ArrayAttr(spec["box"])),
                             ir.IntegerAttr(spec["swizzle"]).value, "required" in spec)

    def to_json(self) -> list:
        return [self.param, self.element, list(self.box), self.swizzle, self.required]

    @staticmethod
    def from_json(data: list) -> TmaDescriptor:
        return TmaDescriptor(data[0], data[1], tuple(data[2]), data[3], data[4])


@dataclass(frozen=True)
class TensorMapArguments:
    """The arguments of `cuTensorMapEncodeTiled` for one array."""

    data_type: int
    address: int
    dims: tuple[int, ...]
    """Innermost first."""
    strides: tuple[int, ...]
    """In bytes, of dims 1.. (innermost first; dim 0 is contiguous)."""
    box: tuple[int, ...]
    element_strides: tuple[int, ...]
    interleave: int
    swizzle: int
    l2_promotion: int
    oob_fill: int


def tensor_map_arguments(descriptor: TmaDescriptor, shape: Sequence[int],
                         address: int) -> TensorMapArguments | None:
    """The map of a row-major array of `shape` at `address`, None where TMA
    cannot read it (the kernel then copies by threads)."""
    size = ELEMENT_BYTES[descriptor.element]
    dims = tuple(int(d) for d in reversed(shape))
    if len(dims) != len(descriptor.box):
        raise error(f"a TMA box of rank {len(descriptor.box)} for an array of rank {len(dims)}")
    if address % _ALIGNMENT or dims[0] * size % _ALIGNMENT or 0 in dims:
        if descriptor.required:
            raise error(f"argument {descriptor.param} (shape {tuple(shape)}) must start at a "
                        "16-byte aligned address, have rows of a multiple of 16 bytes and no "
                        "empty dim: this kernel loads it by TMA only")
        return None
    strides = tuple(math.prod(dims[: i + 1]) * size for i in range(len(dims) - 1))
    if max(dims) > _MAX_DIM or any(s >= _MAX_STRIDE for s in strides):
        raise error(f"an array of shape {tuple(shape)} is too large for a TMA tensor map "
                    f"(at most {_MAX_DIM} elements a dim, strides under 2^40 bytes)")
    return TensorMapArguments(
        DATA_TYPES[descriptor.element], address, dims, strides, descriptor.box,
        (1,) * len(dims), _INTERLEAVE_NONE, SWIZZLES[descriptor.swizzle],
        _L2_PROMOTION_128B, _OOB_FILL_ZEROS,
    )


def encode(libcuda: ctypes.CDLL, arguments: TensorMapArguments) -> bytes:
    """The 128-byte tensor map the driver makes of `arguments`."""
    storage = (ctypes.c_uint8 * (TENSOR_MAP_BYTES + TENSOR_MAP_ALIGNMENT))()
    skip = -ctypes.addressof(storage) % TENSOR_MAP_ALIGNMENT
    pointer = ctypes.c_void_p(ctypes.addressof(storage) + skip)
    rank = len(arguments.dims)
    u64s, u32s = ctypes.c_uint64 * rank, ctypes.c_uint32 * rank
    result = libcuda.cuTensorMapEncodeTiled(
        pointer, ctypes.c_int(arguments.data_type), ctypes.c_uint32(rank),
        ctypes.c_void_p(arguments.address), u64s(*arguments.dims),
        (ctypes.c_uint64 * max(rank - 1, 1))(*arguments.strides), u32s(*arguments.box),
        u32s(*arguments.element_strides), ctypes.c_int(arguments.interleave),
        ctypes.c_int(arguments.swizzle), ctypes.c_int(arguments.l2_promotion),
        ctypes.c_int(arguments.oob_fill),
    )
    if result:
        raise error(f"cuTensorMapEncodeTiled failed ({result}) for {arguments}")
    return bytes(storage[skip : skip + TENSOR_MAP_BYTES])
