"""DeepGEMM's K-grouped FP8 GEMMs (the weight gradients of MoE experts): `D[g] = C[g] +
A_g^T B_g` over each group's K rows, float32 C and D (G, M, N), with the 1D1D recipe
(one float32 scale per row and gran_k values of K). Upstream runs the TN form on SM100
(MN-major operands, psum layout allowed) and the NT form on SM90 (K-major operands in
flat per-group buffers, plain layout only); both are here, with upstream's checks.
See k_grouped_kernels for the layouts.
"""

from __future__ import annotations

import itertools
import math

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, host_int32, is_row_major, kernel_view

from . import k_grouped_kernels
from .gemm import _scale_layout
from .gemm_kernels import GROUP
from .utils.layout import get_mk_alignment_for_contiguous_layout


def _fail(api: str, message: str) -> None:
    raise ValueError(f"deep_gemm.{api}: {message}")


def _shape(t: object) -> tuple[int, ...]:
    return tuple(int(s) for s in t.shape)  # type: ignore[attr-defined]


def _sum_k(api: str, ks_cpu: list[int] | None, grouped_layout: object, groups: int,
           use_psum_layout: bool, alignment: int, rows: int) -> int:
    """Upstream's check_k_grouped_args: K of all groups, from ks_cpu (each a multiple of
    the alignment) or, with the psum layout and no ks_cpu, A's rows."""
    if (dtype_name(grouped_layout) != "int32" or _shape(grouped_layout) != (groups,)
            or not is_row_major(grouped_layout)):
        _fail(api, f"grouped_layout must be a contiguous int32 tensor of the {groups} groups "
                   f"but is {dtype_name(grouped_layout)} {_shape(grouped_layout)}")
    if ks_cpu:
        if len(ks_cpu) != groups:
            _fail(api, f"ks_cpu lists {len(ks_cpu)} groups but D has {groups}")
        if any(k % alignment for k in ks_cpu):
            _fail(api, f"ks_cpu {list(ks_cpu)} must be multiples of the K alignment {alignment}")
        return sum(ks_cpu)
    if not use_psum_layout:
        _fail(api, "ks_cpu must list each group's K (only the psum layout reads them from "
                   "grouped_layout)")
    return rows


def _operands(api: str, a: object, b: object, d: object, c: object | None
              ) -> tuple[object, object, object, object]:
    """The data and scales of `a` and `b`, after the dtype and contiguity checks."""
    (a_data, sfa), (b_data, sfb) = a, b  # type: ignore[misc]
    for name, t in (("A", a_data), ("B", b_data)):
        if dtype_name(t) != "float8_e4m3fn":
            _fail(api, f"{name} must be float8_e4m3fn but is {dtype_name(t)}")
    for name, t in (("A", a_data), ("B", b_data), ("D", d)):
        if not is_row_major(t):
            _fail(api, f"{name} must be contiguous")
    if c is None or not is_row_major(c):
        _fail(api, "C must be given and contiguous: the groups' products are added to it "
                   "(it may be D)")
    for name, t in (("D", d), ("C", c)):
        if dtype_name(t) != "float32" or _shape(t) != _shape(d):
            _fail(api, f"{name} must be float32 of D's shape {_shape(d)} but is "
                       f"{dtype_name(t)} {_shape(t)}")
    for name, sf in (("SFA", sfa), ("SFB", sfb)):
        if dtype_name(sf) != "float32" or len(sf.shape) != 2:  # type: ignore[attr-defined]
            _fail(api, f"{name} must be 2-D float32 scales (SM100's packed UE8M0 int32 scales "
                       f"are not implemented) but is {dtype_name(sf)} {_shape(sf)}")
    return a_data, sfa, b_data, sfb


def k_grouped_fp8_gemm_tn_contiguous(
    a: tuple[object, object], b: tuple[object, object], d: object, ks_cpu: list[int] | None,
    grouped_layout: object, c: object | None = None,
    recipe: tuple[int, int, int] = (1, 1, 128), compiled_dims: str = "mn",
    use_psum_layout: bool = False,
) -> None:
    """D[g] = C[g] + dequant(A_g).T @ dequant(B_g): A (K_sum, M) and B (K_sum, N)
    float8_e4m3fn with float32 scales (SF_K, M) / (SF_K, N), ceil(k_g / gran_k) rows per
    group; groups from ks_cpu (multiples of the M/K alignment; grouped_layout then holds
    them on the device) or, with `use_psum_layout`, the end offsets in grouped_layout."""
    api = "k_grouped_fp8_gemm_tn_contiguous"
    with targets.library_call():
        if tuple(recipe[:2]) != (1, 1):
            _fail(api, f"the recipe must be 1D1D, (1, 1, gran_k), but is {tuple(recipe)}")
        gran_k = int(recipe[2])
        if gran_k not in (32, 128):
            _fail(api, f"gran_k must be 32 or 128 but is {gran_k}")
        alignment = get_mk_alignment_for_contiguous_layout()
        if alignment % 32:
            _fail(api, f"the K alignment must be a multiple of 32 but is {alignment}")
        for name, t, rank in (("D", d, 3), ("A", a[0], 2), ("B", b[0], 2)):
            if len(t.shape) != rank:  # type: ignore[attr-defined]
                _fail(api, f"{name} must have {rank} dims but has shape {_shape(t)}")
        groups, m, n = _shape(d)
        rows = _shape(a[0])[0]
        sum_k = _sum_k(api, ks_cpu, grouped_layout, groups, use_psum_layout, alignment, rows)
        if (_shape(a[0]), _shape(b[0])) != ((sum_k, m), (sum_k, n)):
            _fail(api, f"shapes do not match: A {_shape(a[0])} and B {_shape(b[0])} must be "
                       f"({sum_k}, {m}) and ({sum_k}, {n}) for D {_shape(d)}")
        a_data, sfa, b_data, sfb = _operands(api, a, b, d, c)
        # with psum ends the groups' true K are on the device: any count of scale rows
        scale_rows = _shape(sfa)[0] if use_psum_layout else sum(
            -(-k // gran_k) for k in ks_cpu)  # type: ignore[union-attr]
        for name, sf, mn in (("SFA", sfa, m), ("SFB", sfb, n)):
            if _shape(sf) != (scale_rows, mn) or not is_row_major(sf):
                _fail(api, f"{name} must be contiguous ({scale_rows}, {mn}) (each group's "
                           f"ceil(k / {gran_k}) scale rows) but is {_shape(sf)}")
        if _shape(sfb)[0] != _shape(sfa)[0]:
            _fail(api, f"SFA {_shape(sfa)} and SFB {_shape(sfb)} must have as many rows")
        if m == 0 or n == 0:
            return
        ends = grouped_layout if use_psum_layout else host_int32(
            d, list(itertools.accumulate(ks_cpu)))  # type: ignore[arg-type]
        variant = (gran_k, alignment, use_psum_layout or alignment % gran_k != 0)
        targets.launch(
            f"deep_gemm.{api}", variant, lambda: k_grouped_kernels.k_grouped_fp8_gemm_tn(*variant),
            targets.target_for(a_data, b_data, d),
            kernel_view(a_data, "A"), kernel_view(sfa, "SFA"), kernel_view(b_data, "B"),
            kernel_view(sfb, "SFB"), kernel_view(ends, "grouped_layout"), kernel_view(c, "C"),
            kernel_view(d, "D"),
        )


def k_grouped_fp8_gemm_nt_contiguous(
    a: tuple[object, object], b: tuple[object, object], d: object, ks_cpu: list[int] | None,
    grouped_layout: object, c: object | None = None,
    recipe: tuple[int, int, int] = (1, 1, 128), compiled_dims: str = "mn",
    use_psum_layout: bool = False,
) -> None:
    """D[g] = C[g] + dequant(A_g) @ dequant(B_g).T with K-major A_g (M, k_g) and B_g
    (N, k_g) stored one after the other in contiguous buffers of sum_k * M and sum_k * N
    float8_e4m3fn (any shape), float32 scales (M, sum_k / 128) and (N, sum_k / 128),
    row-major or MN-major; k_g from ks_cpu, multiples of 128 (no psum layout)."""
    api = "k_grouped_fp8_gemm_nt_contiguous"
    with targets.library_call():
        if tuple(recipe) != (1, 1, GROUP):
            _fail(api, f"the recipe must be (1, 1, 128) but is {tuple(recipe)}")
        if use_psum_layout or not ks_cpu:
            _fail(api, "the NT form has no psum layout: ks_cpu must list each group's K")
        if len(d.shape) != 3:  # type: ignore[attr-defined]
            _fail(api, f"D must have 3 dims but has shape {_shape(d)}")
        groups, m, n = _shape(d)
        sum_k = _sum_k(api, ks_cpu, grouped_layout, groups, False, GROUP, 0)
        sizes = (math.prod(_shape(a[0])), math.prod(_shape(b[0])))
        if sizes != (sum_k * m, sum_k * n):
            _fail(api, f"A and B hold {sizes[0]} and {sizes[1]} values but the groups' "
                       f"(M, k) and (N, k) need {sum_k * m} and {sum_k * n}")
        a_data, sfa, b_data, sfb = _operands(api, a, b, d, c)
        if m == 0 or n == 0:
            return
        sfa_view, sfa_layout = _scale_layout(api, "SFA", sfa, m, sum_k // GROUP)
        sfb_view, sfb_layout = _scale_layout(api, "SFB", sfb, n, sum_k // GROUP)
        ends = host_int32(d, list(itertools.accumulate(ks_cpu)))
        variant = (sfa_layout, sfb_layout)
        targets.launch(
            f"deep_gemm.{api}", variant, lambda: k_grouped_kernels.k_grouped_fp8_gemm_nt(*variant),
            targets.target_for(a_data, b_data, d),
            kernel_view(a_data.reshape(-1), "A"), kernel_view(sfa_view, "SFA"),  # type: ignore[attr-defined]
            kernel_view(b_data.reshape(-1), "B"), kernel_view(sfb_view, "SFB"),  # type: ignore[attr-defined]
            kernel_view(ends, "grouped_layout"), kernel_view(c, "C"), kernel_view(d, "D"),
        )
