"""DeepGEMM's M-grouped GEMMs (one expert per group): contiguous (per-row group ids,
or end offsets with `use_psum_layout=True`) and masked layouts, BF16 and FP8 (SM90
scales). See grouped_kernels for the layouts. Operands are K-major, as SM90's FP8
kernels require; D is written only where upstream writes it.
"""

from __future__ import annotations

import itertools
import math

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, host_int32, is_row_major, kernel_view

from . import grouped_kernels
from .gemm_kernels import GROUP
from .grouped_kernels import Layout
from .utils.layout import get_mk_alignment_for_contiguous_layout


def _fail(api: str, message: str) -> None:
    raise ValueError(f"deep_gemm.{api}: {message}")


def _block_rows(api: str, alignment: int) -> int:
    """Rows per block: a divisor of the alignment, so a block never spans two groups."""
    rows = math.gcd(alignment, 64)
    if rows < 16:
        _fail(api, f"the M alignment {alignment} must be a multiple of 16 (set it with "
                   "set_mk_alignment_for_contiguous_layout)")
    return rows


def _check(api: str, fp8: bool, a: object, b: object, d: object, layout: object,
           layout_kind: Layout) -> None:
    operand = "float8_e4m3fn" if fp8 else "bfloat16"
    masked = layout_kind == "masked"
    for name, t, rank in (("A", a, 3 if masked else 2), ("B", b, 3), ("D", d, 3 if masked else 2)):
        if len(t.shape) != rank:  # type: ignore[attr-defined]
            _fail(api, f"{name} must have {rank} dims but has shape {tuple(t.shape)}")  # type: ignore[attr-defined]
        if name == "B" and not fp8 and not is_row_major(t) and is_row_major(t.mT):  # type: ignore[attr-defined]
            continue  # MN-major: the transpose of a contiguous (G, K, N)
        if not is_row_major(t):
            _fail(api, f"{name} must be K-major (row-major contiguous)" if name != "D" else
                  "D must be N-major (row-major contiguous)")
    for name, t in (("A", a), ("B", b)):
        if dtype_name(t) != operand:
            _fail(api, f"{name} must be {operand} but is {dtype_name(t)}")
    if dtype_name(d) not in ("bfloat16", "float32"):
        _fail(api, f"D must be bfloat16 or float32 but is {dtype_name(d)}")
    groups, n, k = tuple(b.shape)  # type: ignore[attr-defined]
    rows_a, rows_d = tuple(a.shape)[:-1], tuple(d.shape)[:-1]  # type: ignore[attr-defined]
    if tuple(a.shape)[-1] != k or tuple(d.shape)[-1] != n or rows_a != rows_d:  # type: ignore[attr-defined]
        _fail(api, f"shapes do not match: A {tuple(a.shape)}, B {tuple(b.shape)}, "  # type: ignore[attr-defined]
                   f"D {tuple(d.shape)}")  # type: ignore[attr-defined]
    if masked and rows_a[0] != groups:
        _fail(api, f"A has {rows_a[0]} groups but B has {groups}")
    expected = (groups,) if layout_kind != "contiguous" else (rows_a[0],)
    if dtype_name(layout) != "int32" or tuple(layout.shape) != expected:  # type: ignore[attr-defined]
        what = "masked_m" if masked else "grouped_layout"
        _fail(api, f"{what} must be int32 of shape {expected} but is {dtype_name(layout)} "
                   f"{tuple(layout.shape)}")  # type: ignore[attr-defined]


def _run(api: str, fp8: bool, a: object, b: object, d: object, layout: object,
         layout_kind: Layout) -> None:
    with targets.library_call():
        (a_data, sfa), (b_data, sfb) = (a, b) if fp8 else ((a, None), (b, None))
        _check(api, fp8, a_data, b_data, d, layout, layout_kind)
        if fp8:
            groups, n, k = tuple(b_data.shape)  # type: ignore[attr-defined]
            k_groups = -(-k // GROUP)
            rows = tuple(a_data.shape)[:-1]  # type: ignore[attr-defined]
            for name, sf, shape in (("SFA", sfa, (*rows, k_groups)),
                                    ("SFB", sfb, (groups, -(-n // GROUP), k_groups))):
                if dtype_name(sf) != "float32" or tuple(sf.shape) != shape or not is_row_major(sf):  # type: ignore[attr-defined]
                    _fail(api, f"{name} must be row-major float32 scales of shape {shape} (SM90's "
                               f"1x128 / 128x128 recipe) but is {dtype_name(sf)} "
                               f"{tuple(sf.shape)}")  # type: ignore[attr-defined]
        if 0 in tuple(d.shape):  # type: ignore[attr-defined]
            return
        alignment = get_mk_alignment_for_contiguous_layout()
        block_M = _block_rows(api, alignment) if layout_kind != "masked" else 64
        out = dtype_name(d)
        b_mn = not is_row_major(b_data)
        arguments = [kernel_view(a_data, "A")]
        if fp8:
            arguments.append(kernel_view(sfa, "SFA"))
        arguments.append(kernel_view(b_data.mT if b_mn else b_data, "B"))  # type: ignore[attr-defined]
        if fp8:
            arguments.append(kernel_view(sfb, "SFB"))
        arguments += [kernel_view(layout, "layout"), kernel_view(d, "D")]
        variant = (layout_kind, fp8, out, alignment, block_M, 64, b_mn)
        targets.launch(
            f"deep_gemm.{api}", variant, lambda: grouped_kernels.grouped_gemm(*variant),
            targets.target_for(a_data, b_data, d), *arguments,
        )


def m_grouped_fp8_fp4_gemm_nt_contiguous(
    a: tuple[object, object], b: tuple[object, object], d: object, grouped_layout: object,
    recipe: tuple[int, int, int] | None = None, recipe_a: tuple[int, int] | None = None,
    recipe_b: tuple[int, int] | None = None, compiled_dims: str = "nk",
    disable_ue8m0_cast: bool = False, use_psum_layout: bool = False,
    ensure_zero_padding: bool = True, expected_m_for_psum_layout: int | None = None,
) -> None:
    """D (M_sum, N) = A (M_sum, K) @ B[group of the row] (G, N, K).T, FP8 with scales."""
    _run("m_grouped_fp8_fp4_gemm_nt_contiguous", True, a, b, d, grouped_layout,
         "psum" if use_psum_layout else "contiguous")


def m_grouped_fp8_fp4_gemm_nn_contiguous(
    a: tuple[object, object], b: tuple[object, object], d: object, grouped_layout: object,
    recipe: tuple[int, int, int] | None = None, recipe_a: tuple[int, int] | None = None,
    recipe_b: tuple[int, int] | None = None, compiled_dims: str = "nk",
    disable_ue8m0_cast: bool = False, use_psum_layout: bool = False,
    ensure_zero_padding: bool = True,
) -> None:
    """NN: B (G, K, N) and its scales transposed, as upstream defines it; FP8 operands must
    then be K-major (SM90's rule), so only K-major storage passes."""
    m_grouped_fp8_fp4_gemm_nt_contiguous(
        a, (b[0].mT, b[1].mT), d, grouped_layout, recipe, recipe_a, recipe_b,  # type: ignore[attr-defined]
        compiled_dims, disable_ue8m0_cast, use_psum_layout, ensure_zero_padding)


def m_grouped_fp8_fp4_gemm_nt_masked(
    a: tuple[object, object], b: tuple[object, object], d: object, masked_m: object,
    expected_m: int, recipe: tuple[int, int, int] | None = None,
    recipe_a: tuple[int, int] | None = None, recipe_b: tuple[int, int] | None = None,
    compiled_dims: str = "nk", disable_ue8m0_cast: bool = False,
) -> None:
    """D[g, :masked_m[g]] = A[g, :masked_m[g]] @ B[g].T, FP8 with scales."""
    _run("m_grouped_fp8_fp4_gemm_nt_masked", True, a, b, d, masked_m, "masked")


def m_grouped_bf16_gemm_nt_contiguous(
    a: object, b: object, d: object, grouped_layout: object, compiled_dims: str = "nk",
    use_psum_layout: bool = False, ensure_zero_padding: bool = True,
    expected_m_for_psum_layout: int | None = None,
) -> None:
    """D (M_sum, N) = A (M_sum, K) @ B[group of the row] (G, N, K).T in BF16."""
    _run("m_grouped_bf16_gemm_nt_contiguous", False, a, b, d, grouped_layout,
         "psum" if use_psum_layout else "contiguous")


def m_grouped_bf16_gemm_nn_contiguous(
    a: object, b: object, d: object, grouped_layout: object, compiled_dims: str = "nk",
    use_psum_layout: bool = False, ensure_zero_padding: bool = True,
) -> None:
    """D (M_sum, N) = A (M_sum, K) @ B[group of the row] with B (G, K, N) in BF16."""
    m_grouped_bf16_gemm_nt_contiguous(a, b.mT, d, grouped_layout, compiled_dims,  # type: ignore[attr-defined]
                                      use_psum_layout, ensure_zero_padding)


def m_grouped_bf16_gemm_nt_masked(a: object, b: object, d: object, masked_m: object,
                                  expected_m: int, compiled_dims: str = "nk") -> None:
    """D[g, :masked_m[g]] = A[g, :masked_m[g]] @ B[g].T in BF16."""
    _run("m_grouped_bf16_gemm_nt_masked", False, a, b, d, masked_m, "masked")


def k_grouped_bf16_gemm_tn_contiguous(
    a: object, b: object, d: object, ks_cpu: list[int] | None, grouped_layout: object,
    c: object | None = None, compiled_dims: str = "mn", use_psum_layout: bool = False,
) -> None:
    """D[g] = C[g] + A[K rows of g].T @ B[K rows of g] (weight gradients): A (K_sum, M) and
    B (K_sum, N) bfloat16, C and D (G, M, N) float32. The groups' K extents are `ks_cpu`
    (multiples of the M/K alignment, as `grouped_layout` holds them on the device), or
    with `use_psum_layout` the end offsets in `grouped_layout`."""
    api = "k_grouped_bf16_gemm_tn_contiguous"
    with targets.library_call():
        for name, t, rank, dtype in (("A", a, 2, "bfloat16"), ("B", b, 2, "bfloat16"),
                                     ("D", d, 3, "float32"), ("C", c, 3, "float32")):
            if t is None:
                _fail(api, "C is required: the groups' products are added to it (it may be D)")
            if len(t.shape) != rank or dtype_name(t) != dtype or not is_row_major(t):  # type: ignore[attr-defined]
                _fail(api, f"{name} must be a contiguous {rank}-D {dtype} tensor but is "
                           f"{dtype_name(t)} {tuple(t.shape)}")  # type: ignore[attr-defined]
        groups, m, n = tuple(d.shape)  # type: ignore[attr-defined]
        k = int(a.shape[0])  # type: ignore[attr-defined]
        shapes = (tuple(a.shape), tuple(b.shape), tuple(c.shape))  # type: ignore[attr-defined, union-attr]
        if shapes != ((k, m), (k, n), (groups, m, n)):
            _fail(api, f"shapes do not match: A {tuple(a.shape)}, B {tuple(b.shape)}, "  # type: ignore[attr-defined]
                       f"C {tuple(c.shape)}, D {tuple(d.shape)}")  # type: ignore[attr-defined, union-attr]
        alignment = get_mk_alignment_for_contiguous_layout()
        if alignment % 32:
            _fail(api, f"the K alignment must be a multiple of 32 but is {alignment}")
        if use_psum_layout:
            ends = grouped_layout
            if dtype_name(ends) != "int32" or tuple(ends.shape) != (groups,):  # type: ignore[attr-defined]
                _fail(api, f"grouped_layout must be int32 of shape ({groups},)")
        else:
            if not ks_cpu or len(ks_cpu) != groups:
                _fail(api, f"ks_cpu must list the K of each of the {groups} groups")
            if any(group_k % alignment for group_k in ks_cpu) or sum(ks_cpu) != k:
                _fail(api, f"ks_cpu {list(ks_cpu)} must be multiples of {alignment} summing to "
                           f"A's {k} rows")
            ends = host_int32(d, list(itertools.accumulate(ks_cpu)))
        if 0 in (groups, m, n):
            return
        targets.launch(
            f"deep_gemm.{api}", (alignment,),
            lambda: grouped_kernels.k_grouped_bf16_gemm(alignment),
            targets.target_for(a, b, d), kernel_view(a, "A"), kernel_view(b, "B"),
            kernel_view(ends, "grouped_layout"), kernel_view(c, "C"), kernel_view(d, "D"),
        )


# DeepGEMM's aliases.
m_grouped_fp8_gemm_nt_contiguous = m_grouped_fp8_fp4_gemm_nt_contiguous
m_grouped_fp8_gemm_nn_contiguous = m_grouped_fp8_fp4_gemm_nn_contiguous
m_grouped_fp8_gemm_nt_masked = m_grouped_fp8_fp4_gemm_nt_masked
fp8_m_grouped_gemm_nt_masked = m_grouped_fp8_fp4_gemm_nt_masked
bf16_m_grouped_gemm_nt_masked = m_grouped_bf16_gemm_nt_masked
