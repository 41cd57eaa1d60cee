"""`deep_gemm.utils.layout`: the scale layouts and the M/K alignment of grouped GEMMs."""

from __future__ import annotations

from tilec.kernels.tensors import as_strided_view, empty_like_framework, is_torch

_TMA_ALIGNMENT_BYTES = 16  # a TMA box's global strides are multiples of 16 bytes
_mk_alignment = 128


def get_tma_aligned_size(x: int, element_size: int) -> int:
    """`x` rounded up so that `x` elements of `element_size` bytes fill whole 16-byte units."""
    per_unit = _TMA_ALIGNMENT_BYTES // element_size
    return -(-x // per_unit) * per_unit


def get_mn_major_tma_aligned_tensor(sf: object) -> object:
    """The scales `sf` (mn, k) (or (groups, mn, k)) in the MN-major layout SM90 kernels
    read: column-major, the MN stride padded to 16 bytes."""
    shape = tuple(sf.shape)  # type: ignore[attr-defined]
    *groups, mn, k = shape
    aligned = get_tma_aligned_size(mn, 4)
    count = 1
    for g in groups:
        count *= g
    storage = empty_like_framework(sf, (count * k * aligned,), "float32")
    strides = (*([k * aligned] if groups else []), 1, aligned)
    view = as_strided_view(storage, shape, strides)
    if is_torch(view):
        view.copy_(sf)  # type: ignore[attr-defined]
    else:
        view[...] = sf
    return view


def set_mk_alignment_for_contiguous_layout(alignment: int) -> None:
    """The M (or K) alignment of each group in the contiguous grouped layouts."""
    global _mk_alignment
    if alignment <= 0:
        raise ValueError(f"the alignment must be positive but is {alignment}")
    _mk_alignment = alignment


def get_mk_alignment_for_contiguous_layout() -> int:
    return _mk_alignment


def get_theoretical_mk_alignment_for_contiguous_layout() -> int:
    """The alignment tilec's grouped kernels need: a block's rows belong to one group
    when groups are padded to the block size (128, as on SM90)."""
    return 128


get_m_alignment_for_contiguous_layout = get_mk_alignment_for_contiguous_layout
get_k_alignment_for_contiguous_layout = get_mk_alignment_for_contiguous_layout
