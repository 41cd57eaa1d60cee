"""`deep_gemm.utils.math`: DeepGEMM's host helpers, its FP8 casts run as tilec kernels."""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, is_row_major, kernel_view

from .. import cast_kernels


def ceil_div(x: int, y: int) -> int:
    return (x + y - 1) // y


def align(x: int, y: int) -> int:
    return ceil_div(x, y) * y


def _checked(api: str, x: object) -> str:
    if len(x.shape) != 2:  # type: ignore[attr-defined]
        raise ValueError(f"deep_gemm.{api}: x must be 2-D but has shape {tuple(x.shape)}")  # type: ignore[attr-defined]
    dtype = dtype_name(x)
    if dtype not in ("bfloat16", "float32", "float16"):
        raise ValueError(f"deep_gemm.{api}: x must be bfloat16, float16 or float32 but is {dtype}")
    if not is_row_major(x):
        raise ValueError(f"deep_gemm.{api}: x must be row-major contiguous")
    return dtype


def per_token_cast_to_fp8(x: object, use_ue8m0: bool, gran_k: int = 128,
                          use_packed_ue8m0: bool = False) -> tuple[object, object]:
    """x (m, n) -> (float8_e4m3fn (m, n), float32 scales (m, ceil(n / gran_k))); with
    `use_packed_ue8m0` (which needs `use_ue8m0` and a multiple of 4 groups) the scales'
    exponents packed four to an int32, (m, ceil(n / gran_k) / 4)."""
    api = "per_token_cast_to_fp8"
    dtype = _checked(api, x)
    m, n = tuple(x.shape)  # type: ignore[attr-defined]
    groups = ceil_div(n, gran_k)
    if use_packed_ue8m0 and (not use_ue8m0 or groups % 4):
        raise ValueError(f"deep_gemm.{api}: use_packed_ue8m0 packs UE8M0 scales (use_ue8m0=True) "
                         f"four to an int32, so the {groups} groups must be a multiple of 4")
    with targets.library_call():
        y = empty_like_framework(x, (m, n), "float8_e4m3fn")
        sf = empty_like_framework(x, (m, groups), "float32")
        target = targets.target_for(x)
        if m and n:
            targets.launch(
                f"deep_gemm.{api}", (dtype, use_ue8m0, gran_k),
                lambda: cast_kernels.per_token_cast(dtype, use_ue8m0, gran_k),
                target, kernel_view(x, "x"), kernel_view(y, "out"), kernel_view(sf, "sf"),
            )
        return y, _packed(x, sf, use_packed_ue8m0, target)


def _packed(x: object, sf: object, use_packed_ue8m0: bool, target: str) -> object:
    """The scales as they are, or their exponents packed four to an int32 by a tilec kernel."""
    if not use_packed_ue8m0:
        return sf
    m, groups = tuple(sf.shape)  # type: ignore[attr-defined]
    packed = empty_like_framework(x, (m, ceil_div(groups, 4)), "int32")
    if m and groups:
        targets.launch("deep_gemm.pack_ue8m0_to_int", (), cast_kernels.pack_ue8m0, target,
                       kernel_view(sf, "sf"), kernel_view(packed, "packed"))
    return packed


def per_token_cast_to_fp4(x: object, use_ue8m0: bool, gran_k: int = 128,
                          use_packed_ue8m0: bool = False) -> tuple[object, object]:
    """x (m, n), n even -> (FP4 e2m1 codes packed two to a byte, the even column low: int8
    (m, n / 2), float32 scales amax / 6 (m, ceil(n / gran_k))); with `use_packed_ue8m0`
    (which needs `use_ue8m0`) the exponents four to an int32, padded with 1.0."""
    api = "per_token_cast_to_fp4"
    dtype = _checked(api, x)
    m, n = tuple(x.shape)  # type: ignore[attr-defined]
    if n % 2 or gran_k % 2:
        raise ValueError(f"deep_gemm.{api}: two FP4 values share a byte, so n ({n}) and "
                         f"gran_k ({gran_k}) must be even")
    if use_packed_ue8m0 and not use_ue8m0:
        raise ValueError(f"deep_gemm.{api}: use_packed_ue8m0 packs UE8M0 scales "
                         "(use_ue8m0=True)")
    with targets.library_call():
        y = empty_like_framework(x, (m, n // 2), "int8")
        sf = empty_like_framework(x, (m, ceil_div(n, gran_k)), "float32")
        target = targets.target_for(x)
        if m and n:
            targets.launch(
                f"deep_gemm.{api}", (dtype, use_ue8m0, gran_k),
                lambda: cast_kernels.per_token_cast_fp4(dtype, use_ue8m0, gran_k),
                target, kernel_view(x, "x"), kernel_view(y, "out"), kernel_view(sf, "sf"),
            )
        return y, _packed(x, sf, use_packed_ue8m0, target)


def per_channel_cast_to_fp8(x: object, use_ue8m0: bool,
                            gran_k: int = 128) -> tuple[object, object]:
    """x (m, n), m a multiple of gran_k -> (float8_e4m3fn (m, n), float32 scales
    (m / gran_k, n)): one scale per column and gran_k rows (the K-grouped GEMMs' operands)."""
    api = "per_channel_cast_to_fp8"
    dtype = _checked(api, x)
    m, n = tuple(x.shape)  # type: ignore[attr-defined]
    if m % gran_k:
        raise ValueError(f"deep_gemm.{api}: x's rows ({m}) must be a multiple of gran_k "
                         f"({gran_k})")
    with targets.library_call():
        y = empty_like_framework(x, (m, n), "float8_e4m3fn")
        sf = empty_like_framework(x, (m // gran_k, n), "float32")
        if m and n:
            targets.launch(
                f"deep_gemm.{api}", (dtype, use_ue8m0, gran_k),
                lambda: cast_kernels.per_channel_cast(dtype, use_ue8m0, gran_k),
                targets.target_for(x), kernel_view(x, "x"), kernel_view(y, "out"),
                kernel_view(sf, "sf"),
            )
        return y, sf


def per_block_cast_to_fp8(x: object, use_ue8m0: bool,
                          gran_k: int = 128) -> tuple[object, object]:
    """x (m, n) -> (float8_e4m3fn (m, n), float32 scales (ceil(m / gran_k), ceil(n / gran_k)))."""
    dtype = _checked("per_block_cast_to_fp8", x)
    with targets.library_call():
        m, n = tuple(x.shape)  # type: ignore[attr-defined]
        y = empty_like_framework(x, (m, n), "float8_e4m3fn")
        sf = empty_like_framework(x, (ceil_div(m, gran_k), ceil_div(n, gran_k)), "float32")
        if m and n:
            targets.launch(
                "deep_gemm.per_block_cast_to_fp8", (dtype, use_ue8m0, gran_k),
                lambda: cast_kernels.per_block_cast(dtype, use_ue8m0, gran_k),
                targets.target_for(x), kernel_view(x, "x"), kernel_view(y, "out"),
                kernel_view(sf, "sf"),
            )
        return y, sf
