"""DeepSelect's `topk` and `get_stride_requirement` on a tilec kernel.

Upstream picks its CUDA or Ascend backend by the machine; here the target of the
call decides (`tilec.kernels.targets`), and with it the backend contract the call
keeps. On an ascend target, the Ascend backend's: bfloat16 input, int32 indices, no
value sort, 32-byte input rows, vocab < 2^21, a NaN row's whole index row set to
0x3F3F3F3F, short rows checked too. On cpu and cuda, the CUDA backend's: bfloat16 or
float32, int32 or int64 indices, sorted values for float32 only, 1024-byte input
rows, vocab < 2^23, only index 0 of a NaN row set, rows of length <= topk not
checked. Where upstream's kernel traps on a NaN (`abort_when_nan_found`), the
kernel flags the row and the call raises RuntimeError after it.

Argument errors are upstream's newer Python-level ones (ValueError for `begin` and
`hint`, TypeError for an `output_idx` of another dtype); the backend's checks raise
RuntimeError, as its TORCH_CHECKs do. Which of the threshold's ties are taken is
unspecified upstream: here the lowest indices, and an unsorted selection always
comes out in ascending index order.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import torch

from tilec.kernels import targets
from tilec.kernels.tensors import as_strided_view, kernel_view

from . import select_kernels

API = "deep_select.topk"
CUDA_STRIDES = (1024, 32)  # input / output row stride requirements, bytes
ASCEND_STRIDES = (32, 32)
CUDA_MAX_VOCAB = 1 << 23  # vocab_size must be below these
ASCEND_MAX_VOCAB = 2 * 1024 * 1024
_WIDTH = {torch.bfloat16: 16, torch.float32: 32}
_BITS = {torch.bfloat16: torch.int16, torch.float32: torch.int32}


def _on_ascend(target: str) -> bool:
    return target.startswith("ascend")


def digit_bits(target: str) -> int:
    """The bits of the radix select's digit on `target` (see select_kernels). More bits
    read the row fewer times but count each tile 2^bits - 1 times: cuda's SMs count
    fast, so 4; the NPU's vector unit counts at about the speed GM delivers a tile, so 2
    (simulated, one bf16 row of 8192, top 2048: 64,003 cycles with 1 bit, 72,577 with 2,
    108,353 with 4 on the 910b; with 2 the row is read half as often, which is what a
    batch that loads every core's GM port pays for); the cpu, whose rows stay in its
    caches, 1."""
    if target.startswith("cpu"):
        return 1
    return 2 if target.startswith("ascend") else 4


def get_stride_requirement() -> tuple[int, int]:
    """(input, output) row stride requirements in bytes, of the backend that calls on
    host tensors run on now (the use_target block's or $TILEC_TARGET's, else cpu)."""
    return ASCEND_STRIDES if _on_ascend(targets.target_for()) else CUDA_STRIDES


def _check(condition: bool, message: str) -> None:
    """A backend check: RuntimeError, as upstream's TORCH_CHECK."""
    if not condition:
        raise RuntimeError(f"{API}: {message}")


def _aligned_empty(like: torch.Tensor, rows: int, cols: int, dtype: torch.dtype,
                   stride_bytes: int) -> torch.Tensor:
    """A (rows, cols) tensor whose row stride is `cols` rounded up to `stride_bytes`."""
    per_row = stride_bytes // dtype.itemsize
    padded = -(-cols // per_row) * per_row
    return torch.empty((rows, padded), dtype=dtype, device=like.device)[:, :cols]


def _row_span(tensor: torch.Tensor, bits: torch.dtype | None = None) -> object:
    """A (rows, cols) tensor with padded rows as the kernel's 1-D view from its first
    element to its last (the kernel takes the row stride as a scalar, so nothing past
    the last row is read), its floats seen as integers `bits` of their width."""
    rows, cols = tensor.shape
    span = as_strided_view(tensor, ((rows - 1) * tensor.stride(0) + cols,), (1,))
    return kernel_view(span.view(bits) if bits is not None else span, "tensor")  # type: ignore[union-attr]


def _fill_bits(value: float, dtype: torch.dtype) -> int:
    """The fill value's bits in the input dtype, rounded as upstream: to a C float,
    then (bf16) to nearest even."""
    single = np.float32(value)
    if dtype == torch.bfloat16:
        return int(np.array(single.astype(ml_dtypes.bfloat16)).view(np.int16))
    return int(np.array(single).view(np.int32))


def _vector_check(name: str, tensor: torch.Tensor, rows: int, device: torch.device) -> None:
    _check(tuple(tensor.shape) == (rows,),
           f"{name} must have shape ({rows},) but has {tuple(tensor.shape)}")
    _check(tensor.dtype == torch.int32, f"{name} must be int32 but is {tensor.dtype}")
    _check(tensor.is_contiguous(), f"{name} must be contiguous")
    _check(tensor.device == device, f"{name} must be on the input's device {device}")


def _row_check(name: str, tensor: torch.Tensor, shape: tuple[int, int], requirement: int,
               device: torch.device) -> None:
    """Shape, device, a contiguous last dim and the row stride alignment."""
    _check(tuple(tensor.shape) == shape, f"{name} must have shape {shape} but has "
                                         f"{tuple(tensor.shape)}")
    _check(tensor.device == device, f"{name} must be on the input's device {device}")
    _check(shape[1] <= 1 or tensor.stride(1) == 1, f"{name}'s last dim must be contiguous")
    stride, itemsize = tensor.stride(0), tensor.element_size()
    _check(shape[1] == 0 or stride * itemsize % requirement == 0,
           f"{name}.stride(0) (currently {stride} numbers) must be a multiple of "
           f"{requirement} Bytes ({requirement // itemsize} numbers)")


def topk(
    input: torch.Tensor,
    topk: int,
    sorted: bool = False,
    begin: torch.Tensor | None = None,
    end: torch.Tensor | None = None,
    indices_type: torch.dtype = torch.int64,
    sorted_index: bool = False,
    hint: torch.Tensor | None = None,
    output_idx: torch.Tensor | None = None,
    output_idx_offset: torch.Tensor | None = None,
    idx_oob_fill_value: int = 2147483647,
    value_oob_fill_value: float = float("-inf"),
    return_value: bool = True,
    abort_when_nan_found: bool = True,
) -> tuple[torch.Tensor | None, torch.Tensor]:
    """The `topk` largest entries of each row of `input` (b, vocab) (bfloat16 or
    float32; `end` (b,) int32 bounds each row exclusively) -> (values or None,
    indices), both (b, topk) with 32-byte aligned row strides; slots past a short
    row hold the oob fill values; `output_idx_offset` (b,) int32 is added to every
    selected index. `sorted` orders values descending (float32), `sorted_index`
    indices ascending; `begin` and `hint` are not supported."""
    with targets.library_call():
        if begin is not None:
            raise ValueError(f"{API}: `begin` is not supported now")
        if hint is not None:
            raise ValueError(f"{API}: `hint` is not supported now")
        if output_idx is not None and output_idx.dtype != indices_type:
            raise TypeError(f"{API}: output_idx is {output_idx.dtype} but indices_type is "
                            f"{indices_type}")
        target = targets.target_for(input)
        ascend = _on_ascend(target)
        input_stride, output_stride = ASCEND_STRIDES if ascend else CUDA_STRIDES
        _check(input.dim() == 2, f"input must be 2-D but has shape {tuple(input.shape)}")
        batch, vocab = input.shape
        device = input.device

        _check(topk > 0, "topk must > 0")
        _check(topk <= 4096, "topk must be <= 4096")
        _check(not (sorted and not return_value),
               "`return_value` must be enabled when `sorted_value` is True")
        _check(not (sorted and sorted_index),
               "`sorted_value` and `sorted_index` cannot be used at the same time")
        _check(indices_type in (torch.int32, torch.int64),
               f"indices_type must be torch.int32 or torch.int64 but is {indices_type}")
        if ascend:
            _check(input.dtype == torch.bfloat16, "input dtype must be bfloat16 on Ascend")
            _check(indices_type == torch.int32, "output_idx dtype must be torch.int32 on Ascend")
            _check(not sorted, "sorting by value is not supported on Ascend")
            _check(vocab < ASCEND_MAX_VOCAB, "vocab_size must be < 2M for bfloat16 input")
        else:
            _check(input.dtype in _WIDTH, "input dtype must be bfloat16 or float32")
            _check(not (sorted and input.dtype == torch.bfloat16),
                   "`sorted_value` is only supported for float32 input")
            _check(vocab < CUDA_MAX_VOCAB, f"vocab_size must be < 2^23 for {input.dtype} input")
        _row_check("input", input, (batch, vocab), input_stride, device)
        if output_idx is None:
            output_idx = _aligned_empty(input, batch, topk, indices_type, output_stride)
        _row_check("output_index", output_idx, (batch, topk), output_stride, device)
        values = _aligned_empty(input, batch, topk, input.dtype, output_stride) \
            if return_value else None
        if end is not None:
            _vector_check("end", end, batch, device)
        if output_idx_offset is not None:
            _vector_check("output_idx_offset", output_idx_offset, batch, device)
        if batch == 0:
            return values, output_idx

        bits = _BITS[input.dtype]
        sort_len = 1 << (topk - 1).bit_length()  # the bitonic sort's power of two
        nan_rows = torch.empty(batch, dtype=torch.int32, device=device)
        # one-element stand-ins for absent operands, never read
        unused, unused_bits = (torch.empty(1, dtype=d, device=device) for d in (torch.int32, bits))
        variant = (_WIDTH[input.dtype], str(indices_type).removeprefix("torch."),
                   end is not None, output_idx_offset is not None, return_value, bool(sorted),
                   "ascend" if ascend else "cuda", digit_bits(target))
        targets.launch(
            API, variant, lambda: select_kernels.topk_select(*variant), target,
            _row_span(input, bits) if vocab > 0 else kernel_view(unused_bits, "input"),
            kernel_view(end if end is not None else unused, "end"),
            kernel_view(output_idx_offset if output_idx_offset is not None else unused,
                        "output_idx_offset"),
            _row_span(values, bits) if values is not None else kernel_view(unused_bits, "values"),
            _row_span(output_idx),
            kernel_view(nan_rows, "NaN flags"),
            vocab, topk, input.stride(0), values.stride(0) if values is not None else 0,
            output_idx.stride(0), idx_oob_fill_value,
            _fill_bits(value_oob_fill_value, input.dtype), sort_len, sort_len.bit_length() - 1,
        )
        # the kernel's per-row NaN flags decide the abort (a status read, not data)
        if abort_when_nan_found and any(nan_rows.tolist()):
            raise RuntimeError(f"{API}: NaN found in the input (abort_when_nan_found=True)")
        return values, output_idx
