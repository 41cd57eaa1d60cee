"""`deep_gemm.utils.layout`: the scale layouts (rewritten by tilec kernels, see
layout_kernels) and the M/K alignment of grouped GEMMs."""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import (
    as_strided_view,
    dtype_name,
    empty_like_framework,
    host_int32,
    is_row_major,
    kernel_view,
    strides_of,
)

from . import layout_kernels

_TMA_ALIGNMENT_BYTES = 16  # a TMA box's global strides are multiples of 16 bytes
_mk_alignment = 128


def get_tma_aligned_size(x: int, element_size: int) -> int:
    """`x` rounded up so that `x` elements of `element_size` bytes fill whole 16-byte units."""
    per_unit = _TMA_ALIGNMENT_BYTES // element_size
    return -(-x // per_unit) * per_unit


def _fail(api: str, message: str) -> None:
    raise ValueError(f"deep_gemm.{api}: {message}")


def _batched(api: str, sf: object) -> tuple[object, tuple[int, int, int], tuple[int, ...]]:
    """`sf` as (B, MN, SF_K), its shape, and its element strides."""
    if dtype_name(sf) != "float32" or len(sf.shape) not in (2, 3):  # type: ignore[attr-defined]
        _fail(api, f"sf must be 2-D or 3-D float32 but is {dtype_name(sf)} "
                   f"{tuple(sf.shape)}")  # type: ignore[attr-defined]
    batched = sf if len(sf.shape) == 3 else sf[None]  # type: ignore[attr-defined, index]
    b, mn, k = (int(x) for x in batched.shape)  # type: ignore[attr-defined]
    strides = strides_of(batched)
    return batched, (b, mn, k), (k * strides[2] if b == 1 else strides[0], *strides[1:])


def _storage(api: str, batched: object, shape: tuple[int, int, int],
             strides: tuple[int, ...]) -> tuple[object, bool]:
    """The kernel's view of the scales: row-major (B, MN, SF_K) as they are, or the
    storage (B, SF_K, LD) of MN-major scales; and whether they are MN-major."""
    b, mn, k = shape
    if is_row_major(batched):
        return batched, False
    if strides[1] == 1 and strides[2] >= mn and (b == 1 or strides[0] == k * strides[2]):
        return as_strided_view(batched, (b, k, strides[2]), (k * strides[2], strides[2], 1)), True
    _fail(api, f"sf must be row-major or MN-major but has strides {strides_of(batched)}")
    raise AssertionError


def _mn_major(sf: object, storage: object, shape: tuple[int, int, int], aligned: int) -> object:
    """The (B, MN, K) (or (MN, K)) view of MN-major storage of `aligned` rows."""
    b, mn, k = shape
    if len(sf.shape) == 2:  # type: ignore[attr-defined]
        return as_strided_view(storage, (mn, k), (1, aligned))
    return as_strided_view(storage, (b, mn, k), (k * aligned, 1, aligned))


def get_mn_major_tma_aligned_tensor(sf: object) -> object:
    """The scales `sf` (mn, k) (or (groups, mn, k)) in the MN-major layout SM90 kernels
    read: column-major, the MN stride padded to 16 bytes; `sf` itself when it is so
    already, else a copy made by a tilec kernel."""
    api = "get_mn_major_tma_aligned_tensor"
    with targets.library_call():
        batched, shape, strides = _batched(api, sf)
        b, mn, k = shape
        aligned = get_tma_aligned_size(mn, 4)
        if strides[1] == 1 and strides[2] == aligned and (b == 1 or strides[0] == aligned * k):
            return sf
        source, mn_major = _storage(api, batched, shape, strides)
        storage = empty_like_framework(sf, (b * k * aligned,), "float32")
        if b * mn * k:
            targets.launch(
                f"deep_gemm.{api}", (mn_major,), lambda: layout_kernels.transpose_sf(mn_major),
                targets.target_for(sf), kernel_view(source, "sf"),
                kernel_view(as_strided_view(storage, (b, k, aligned), (k * aligned, aligned, 1)),
                            "out"), mn,
            )
        return _mn_major(sf, storage, shape, aligned)


def get_mn_major_tma_aligned_packed_ue8m0_tensor(sf: object,
                                                 psum_layout: object | None = None) -> object:
    """float32 UE8M0 scales (powers of two) `sf` (mn, k) or (groups, mn, k) -> SM100's
    format: their exponent bytes four K groups to an int32 (mn, ceil(k / 4)) (or batched),
    MN-major with the MN stride padded to 16 bytes; K groups past k pack as 0. With
    `psum_layout` (the end offsets of an M-grouped psum layout; sf then 2-D contiguous)
    the gap rows between groups pack as 0, since their scales were never written."""
    api = "get_mn_major_tma_aligned_packed_ue8m0_tensor"
    batched, shape, strides = _batched(api, sf)
    b, mn, k = shape
    alignment = None
    if psum_layout is not None:
        if b != 1 or not is_row_major(sf):
            _fail(api, "with psum_layout, sf must be one contiguous 2-D tensor")
        if (dtype_name(psum_layout) != "int32" or not is_row_major(psum_layout)
                or len(psum_layout.shape) != 1 or psum_layout.shape[0] == 0):  # type: ignore[attr-defined]
            _fail(api, "psum_layout must be a non-empty contiguous 1-D int32 tensor")
        alignment = get_mk_alignment_for_contiguous_layout()
    source, mn_major = _storage(api, batched, shape, strides)
    aligned, packed_k = get_tma_aligned_size(mn, 4), -(-k // 4)
    storage = empty_like_framework(sf, (b * packed_k * aligned,), "int32")
    if b * mn * k:
        ends = psum_layout if psum_layout is not None else host_int32(sf, [0])
        with targets.library_call():
            targets.launch(
                f"deep_gemm.{api}", (mn_major, alignment),
                lambda: layout_kernels.pack_ue8m0_mn_major(mn_major, alignment),
                targets.target_for(sf), kernel_view(source, "sf"), kernel_view(ends, "psum_layout"),
                kernel_view(as_strided_view(storage, (b, packed_k, aligned),
                                            (packed_k * aligned, aligned, 1)), "out"), mn,
            )
    return _mn_major(sf, storage, (b, mn, packed_k), aligned)


def _check_sf_layout(api: str, sf: object, mn: int, k: int, gran_mn: int, gran_k: int,
                     num_groups: int | None) -> tuple[int, ...]:
    """Upstream's check_sf_layout shape checks; the scales' strides."""
    dtype = dtype_name(sf)
    if dtype not in ("float32", "int32"):
        _fail(api, f"sf must be float32 scales or int32 packed UE8M0 but is {dtype}")
    expected = (*([num_groups] if num_groups is not None else []), -(-mn // gran_mn),
                -(-k // (gran_k * (1 if dtype == "float32" else 4))))
    if tuple(sf.shape) != expected:  # type: ignore[attr-defined]
        _fail(api, f"sf must have shape {expected} for mn={mn}, k={k}, granularity "
                   f"({gran_mn}, {gran_k}) but has {tuple(sf.shape)}")  # type: ignore[attr-defined]
    return strides_of(sf)


def transform_sf_into_required_layout(
    sf: object, mn: int, k: int, recipe: tuple[int, ...], num_groups: int | None = None,
    is_sfa: bool | None = None, disable_ue8m0_cast: bool = False,
    psum_layout: object | None = None,
) -> object:
    """The scales in the layout DeepGEMM's kernels read. `recipe` is (gran_m, gran_n,
    gran_k) with `is_sfa` choosing the MN granularity, or (gran_mn, gran_k). Float32
    (1, 128) scales become MN-major and TMA-aligned, (128, 128) ones are checked and
    returned (SM90's paths); float32 (1, 32) scales, which only SM100 takes, are packed
    to UE8M0 (get_mn_major_tma_aligned_packed_ue8m0_tensor); int32 (1, 32 | 128) packed
    scales must already be MN-major and TMA-aligned (SM100's)."""
    api = "transform_sf_into_required_layout"
    if len(recipe) == 3:
        if is_sfa is None:
            _fail(api, "a 3-element recipe needs is_sfa (which of its M and N granularities)")
        gran_mn, gran_k = (recipe[0] if is_sfa else recipe[1]), recipe[2]
    elif len(recipe) == 2:
        if is_sfa is not None:
            _fail(api, "a 2-element recipe (gran_mn, gran_k) takes no is_sfa")
        gran_mn, gran_k = recipe
    else:
        _fail(api, f"the recipe must have 2 or 3 elements but is {tuple(recipe)}")
    strides = _check_sf_layout(api, sf, mn, k, gran_mn, gran_k, num_groups)
    shape = tuple(sf.shape)  # type: ignore[attr-defined]
    if dtype_name(sf) == "float32" and (gran_mn, gran_k) == (1, 128):
        return get_mn_major_tma_aligned_tensor(sf)
    if dtype_name(sf) == "float32" and (gran_mn, gran_k) == (128, 128):
        if num_groups is not None and strides[-3] != shape[-2] * shape[-1]:
            _fail(api, "SM90's weight scales must be contiguous per group")
        if not ((strides[-1] == 1 and strides[-2] == shape[-1])
                or (strides[-1] == shape[-2] and strides[-2] == 1)):
            _fail(api, "SM90's weight scales must be contiguous, or contiguous after "
                       "transposing their last two dimensions")
        return sf
    if dtype_name(sf) == "float32" and (gran_mn, gran_k) == (1, 32) and not disable_ue8m0_cast:
        return get_mn_major_tma_aligned_packed_ue8m0_tensor(sf, psum_layout)
    if dtype_name(sf) == "int32" and gran_mn == 1 and gran_k in (32, 128):
        if num_groups is not None and strides[-3] != strides[-1] * shape[-1]:
            _fail(api, "packed scales' groups must follow one another")
        if (strides[-2] != 1 and mn != 1) or strides[-1] != get_tma_aligned_size(mn, 4):
            _fail(api, "packed scales must be MN-major with a TMA-aligned MN stride of "
                       f"{get_tma_aligned_size(mn, 4)} but have strides {strides}")
        return sf
    _fail(api, f"unknown scale transformation: {dtype_name(sf)} scales of granularity "
               f"({gran_mn}, {gran_k}){' with disable_ue8m0_cast' if disable_ue8m0_cast else ''}")
    raise AssertionError


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
