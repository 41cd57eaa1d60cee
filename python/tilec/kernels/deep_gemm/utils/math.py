"""`deep_gemm.utils.math`: DeepGEMM's host helpers, its FP8 casts run as tilec kernels."""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, empty_like_framework, is_row_major, kernel_view

from .. import cast_kernels


def ceil_div(x: int, y: int) -> int:
    return (x + y - 1) // y


def align(x: int, y: int) -> int:
    return ceil_div(x, y) * y


def _checked(api: str, x: object, use_packed_ue8m0: bool = False) -> str:
    if len(x.shape) != 2:  # type: ignore[attr-defined]
        raise ValueError(f"deep_gemm.{api}: x must be 2-D but has shape {tuple(x.shape)}")  # type: ignore[attr-defined]
    dtype = dtype_name(x)
    if dtype not in ("bfloat16", "float32", "float16"):
        raise ValueError(f"deep_gemm.{api}: x must be bfloat16, float16 or float32 but is {dtype}")
    if not is_row_major(x):
        raise ValueError(f"deep_gemm.{api}: x must be row-major contiguous")
    if use_packed_ue8m0:
        raise NotImplementedError(
            f"deep_gemm.{api}: use_packed_ue8m0=True (SM100's packed scales) is not implemented "
            "by tilec yet; pass use_packed_ue8m0=False for float32 scales"
        )
    return dtype


def per_token_cast_to_fp8(x: object, use_ue8m0: bool, gran_k: int = 128,
                          use_packed_ue8m0: bool = False) -> tuple[object, object]:
    """x (m, n) -> (float8_e4m3fn (m, n), float32 scales (m, ceil(n / gran_k)))."""
    dtype = _checked("per_token_cast_to_fp8", x, use_packed_ue8m0)
    with targets.library_call():
        m, n = tuple(x.shape)  # type: ignore[attr-defined]
        y = empty_like_framework(x, (m, n), "float8_e4m3fn")
        sf = empty_like_framework(x, (m, ceil_div(n, gran_k)), "float32")
        if m and n:
            targets.launch(
                "deep_gemm.per_token_cast_to_fp8", (dtype, use_ue8m0, gran_k),
                lambda: cast_kernels.per_token_cast(dtype, use_ue8m0, gran_k),
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
