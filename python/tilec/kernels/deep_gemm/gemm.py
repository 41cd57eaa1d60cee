"""DeepGEMM's dense GEMM entry points (`D = C + A @ B.T`, "NT", and the NN/TN/TT
forms, which are NT on transposed views, as upstream defines them).

Checks follow upstream's: D (and C) N-major, BF16 or FP32 output, matching
shapes, FP8 operands K-major as SM90 requires; an empty problem returns at once
(D = C, or zeros, when K is 0). The data path is tilec kernels only.
"""

from __future__ import annotations

from tilec.kernels import targets, tuning
from tilec.kernels.tensors import (
    as_strided_view,
    dtype_name,
    is_row_major,
    kernel_view,
    strides_of,
)

from . import gemm_kernels
from .gemm_kernels import GROUP, Epilogue


def _fail(api: str, message: str) -> None:
    raise ValueError(f"deep_gemm.{api}: {message}")


def _major(api: str, name: str, tensor: object) -> tuple[object, bool]:
    """The operand's storage as a row-major array, and whether it is MN-major."""
    if len(tensor.shape) != 2:  # type: ignore[attr-defined]
        _fail(api, f"{name} must be 2-D but has shape {tuple(tensor.shape)}")  # type: ignore[attr-defined]
    if is_row_major(tensor):
        return tensor, False
    if is_row_major(tensor.T):  # type: ignore[attr-defined]
        return tensor.T, True  # type: ignore[attr-defined]
    _fail(api, f"{name} must be K-major or MN-major (contiguous, or the transpose of a "
               f"contiguous tensor) but has strides {strides_of(tensor)}")
    raise AssertionError


def _epilogue(api: str, c: object | None, d: object) -> Epilogue:
    if not is_row_major(d):
        _fail(api, "D must be N-major (row-major contiguous)")
    if dtype_name(d) not in ("bfloat16", "float32"):
        _fail(api, f"D must be bfloat16 or float32 but is {dtype_name(d)}")
    if c is None:
        return "none"
    if tuple(c.shape) != tuple(d.shape) or dtype_name(c) != dtype_name(d):  # type: ignore[attr-defined]
        _fail(api, f"C {tuple(c.shape)} {dtype_name(c)} must have D's shape and dtype "  # type: ignore[attr-defined]
                   f"{tuple(d.shape)} {dtype_name(d)}")  # type: ignore[attr-defined]
    if not is_row_major(c):
        _fail(api, "C must be N-major (row-major contiguous)")
    return "d" if _same_memory(c, d) else "c"


def _same_memory(x: object, y: object) -> bool:
    if hasattr(x, "data_ptr") and hasattr(y, "data_ptr"):
        return x.data_ptr() == y.data_ptr()  # type: ignore[attr-defined]
    return getattr(x, "__array_interface__", {}).get("data") == getattr(
        y, "__array_interface__", {}
    ).get("data")


def _dims(api: str, m: int, k: int, n: int, k2: int, d: object) -> None:
    if (m, n) != tuple(d.shape) or k != k2:  # type: ignore[attr-defined]
        _fail(api, f"shapes do not match: A is ({m}, {k}), B is ({n}, {k2}) and D is "
                   f"{tuple(d.shape)}")  # type: ignore[attr-defined]


def bf16_gemm_nt(a: object, b: object, d: object, c: object | None = None,
                 compiled_dims: str = "nk") -> None:
    """D = C + A @ B.T: A (M, K) and B (N, K) bfloat16 (K- or MN-major), D (M, N)
    bfloat16 or float32, C optional (may be D itself)."""
    api = "bf16_gemm_nt"
    with targets.library_call():
        a_store, a_mn = _major(api, "A", a)
        b_store, b_mn = _major(api, "B", b)
        for name, t in (("A", a), ("B", b)):
            if dtype_name(t) != "bfloat16":
                _fail(api, f"{name} must be bfloat16 but is {dtype_name(t)}")
        (m, k), (n, k2) = tuple(a.shape), tuple(b.shape)  # type: ignore[attr-defined]
        _dims(api, m, k, n, k2, d)
        epilogue = _epilogue(api, c, d)
        if m == 0 or n == 0:
            return
        target = targets.target_for(a, b, d)
        variant = (a_mn, b_mn, dtype_name(d), epilogue)
        tuning.launch(
            "deep_gemm.bf16_gemm_nt", variant, _bf16_tiles(target),
            lambda tiles: gemm_kernels.bf16_gemm(*variant, **tiles), target,
            kernel_view(a_store, "A"), kernel_view(b_store, "B"),
            kernel_view(d if c is None else c, "C"), kernel_view(d, "D"),
        )


def _bf16_tiles(target: str) -> list[dict[str, object]]:
    """The tiles bf16_gemm_nt may run with, the default first (`tilec.kernels.tuning`
    measures them when asked). The NPU's cube wants bigger tiles than cpu's (fewer,
    longer DMA bursts and mmads); 96 x 128 x 128 is cpu_gemm's benchmark's choice."""
    if target.startswith("ascend"):
        shapes = [(128, 128, 64), (128, 256, 64), (128, 128, 128), (64, 128, 128)]
    else:
        shapes = [(64, 64, 32), (96, 128, 128), (128, 128, 64), (64, 128, 64)]
    return [dict(block_M=m, block_N=n, block_K=k) for m, n, k in shapes]


def bf16_gemm_nn(a: object, b: object, d: object, c: object | None = None,
                 compiled_dims: str = "nk") -> None:
    """D = C + A @ B with B (K, N)."""
    bf16_gemm_nt(a, b.T, d, c, compiled_dims)  # type: ignore[attr-defined]


def bf16_gemm_tn(a: object, b: object, d: object, c: object | None = None,
                 compiled_dims: str = "mn") -> None:
    """D = C + A.T @ B with A (K, M) and B (K, N)."""
    bf16_gemm_nt(a.T, b.T, d, c, compiled_dims)  # type: ignore[attr-defined]


def bf16_gemm_tt(a: object, b: object, d: object, c: object | None = None,
                 compiled_dims: str = "mn") -> None:
    """D = C + A.T @ B.T with A (K, M) and B (N, K)."""
    bf16_gemm_nt(a.T, b, d, c, compiled_dims)  # type: ignore[attr-defined]


def _scale_rows(api: str, recipe: object, recipe_b: object, sfb: object, n: int) -> int:
    """How many rows of B one scale covers: 128 (SM90's 128x128 blocks) or 1 (per row)."""
    if recipe is not None:
        gran_n = recipe[1]  # type: ignore[index]
    elif recipe_b is not None:
        gran_n = recipe_b[0]  # type: ignore[index]
    else:
        gran_n = GROUP if sfb.shape[0] == -(-n // GROUP) else 1  # type: ignore[attr-defined]
    if gran_n not in (1, GROUP):
        _fail(api, f"B's scale granularity along N must be 1 or {GROUP} but is {gran_n}")
    return int(gran_n)


def _scale_layout(api: str, name: str, sf: object, rows: int, k_groups: int
                  ) -> tuple[object, str]:
    """The scale tensor as the kernel takes it, and its layout: float32 (rows, K groups)
    row-major ("row") or MN-major, the TMA-aligned layout DeepGEMM's kernels read ("mn",
    passed as the (K groups, leading dim) view of its storage); or SM100's UE8M0
    exponents packed four to an int32, (rows, ceil(K groups / 4)) row-major ("packed")."""
    dtype = dtype_name(sf)
    packed = dtype == "int32"
    shape = (rows, -(-k_groups // 4)) if packed else (rows, k_groups)
    if dtype not in ("float32", "int32"):
        _fail(api, f"{name} must be float32 scales or UE8M0 exponents packed in int32 but is "
                   f"{dtype}")
    if tuple(sf.shape) != shape:  # type: ignore[attr-defined]
        _fail(api, f"{name} must have shape {shape} but has {tuple(sf.shape)}")  # type: ignore[attr-defined]
    if is_row_major(sf):
        return sf, "packed" if packed else "row"
    strides = strides_of(sf)
    if not packed and strides[0] == 1 and strides[1] >= rows:
        return as_strided_view(sf, (k_groups, strides[1]), (strides[1], 1)), "mn"
    _fail(api, f"{name} must be row-major{'' if packed else ' or MN-major'} but has strides "
               f"{strides}")
    raise AssertionError


def fp8_fp4_gemm_nt(a: tuple[object, object], b: tuple[object, object], d: object,
                    c: object | None = None, recipe: tuple[int, int, int] | None = None,
                    recipe_a: tuple[int, int] | None = None,
                    recipe_b: tuple[int, int] | None = None, compiled_dims: str = "nk",
                    disable_ue8m0_cast: bool = False) -> None:
    """D = C + dequant(A) @ dequant(B).T: `a` = (A float8_e4m3fn (M, K), SFA (M,
    ceil(K/128))), `b` = (B (N, K), SFB (ceil(N/128), ceil(K/128)) or (N, ...)), both
    K-major; scales float32 (SM90's recipe, row- or MN-major) or UE8M0 exponents packed
    four to an int32 (SM100's); D bfloat16 or float32."""
    api = "fp8_fp4_gemm_nt"
    with targets.library_call():
        (a_data, sfa), (b_data, sfb) = a, b
        fp4_b = dtype_name(b_data) == "int8"  # e2m1 codes, two to a byte (SM100's recipe)
        for name, t, allowed in (("A", a_data, ("float8_e4m3fn",)),
                                 ("B", b_data, ("float8_e4m3fn", "int8"))):
            if dtype_name(t) not in allowed:
                _fail(api, f"{name} must be {' or '.join(allowed)} (FP4 codes packed in int8; "
                           f"FP4 A is not implemented) but is {dtype_name(t)}")
            if not is_row_major(t):
                _fail(api, f"{name} must be K-major (row-major contiguous)")
        (m, k), (n, k2) = tuple(a_data.shape), tuple(b_data.shape)  # type: ignore[attr-defined]
        _dims(api, m, k, n, 2 * k2 if fp4_b else k2, d)
        epilogue = _epilogue(api, c, d)
        if m == 0 or n == 0:
            return
        k_groups = -(-k // GROUP)
        if fp4_b:
            _fp4_gemm(api, a_data, sfa, b_data, sfb, c, d, epilogue, recipe_b, k)
            return
        rows = _scale_rows(api, recipe, recipe_b, sfb, n)
        sfa_view, sfa_layout = _scale_layout(api, "SFA", sfa, m, k_groups)
        sfb_view, sfb_layout = _scale_layout(api, "SFB", sfb, n if rows == 1 else -(-n // GROUP),
                                             k_groups)
        out = dtype_name(d)
        target = targets.target_for(a_data, b_data, d)
        block_M, block_N = (128, 128) if target.startswith("ascend") else (64, 128)  # NPU: bigger
        variant = (rows, out, epilogue, sfa_layout, sfb_layout, block_M, block_N)
        targets.launch(
            "deep_gemm.fp8_gemm_nt", variant, lambda: gemm_kernels.fp8_gemm(*variant),
            target, kernel_view(a_data, "A"), kernel_view(sfa_view, "SFA"),
            kernel_view(b_data, "B"), kernel_view(sfb_view, "SFB"),
            kernel_view(d if c is None else c, "C"), kernel_view(d, "D"),
        )


def _fp4_gemm(api: str, a_data: object, sfa: object, b_data: object, sfb: object,
              c: object | None, d: object, epilogue: Epilogue, recipe_b: object, k: int) -> None:
    """FP8 A x FP4 B (SM100's `QuantConfig((128, 32, False, True))`): B's scales per 1 x
    gran_k_b, from recipe_b, or 32 when not given (upstream's FP4 granularity)."""
    m, n = tuple(d.shape)  # type: ignore[attr-defined]
    gran_b = int(recipe_b[1]) if recipe_b is not None else 32  # type: ignore[index]
    if gran_b not in (32, 64, 128):
        _fail(api, f"FP4 B's scale granularity along K must be 32, 64 or 128 but is {gran_b}")
    sfa_view, sfa_layout = _scale_layout(api, "SFA", sfa, m, -(-k // GROUP))
    sfb_view, sfb_layout = _scale_layout(api, "SFB", sfb, n, -(-k // gran_b))
    if sfb_layout == "mn":
        _fail(api, "FP4 B's scales must be row-major")
    target = targets.target_for(a_data, b_data, d)
    variant = (gran_b, dtype_name(d), epilogue, sfa_layout, sfb_layout)
    targets.launch(
        "deep_gemm.fp8_fp4_gemm_nt", variant, lambda: gemm_kernels.fp8_fp4_gemm(*variant),
        target, kernel_view(a_data, "A"), kernel_view(sfa_view, "SFA"),
        kernel_view(b_data, "B"), kernel_view(sfb_view, "SFB"),
        kernel_view(d if c is None else c, "C"), kernel_view(d, "D"),
    )


def fp8_fp4_gemm_nn(a: tuple[object, object], b: tuple[object, object], d: object,
                    c: object | None = None, recipe: tuple[int, int, int] | None = None,
                    recipe_a: tuple[int, int] | None = None,
                    recipe_b: tuple[int, int] | None = None, compiled_dims: str = "nk",
                    disable_ue8m0_cast: bool = False) -> None:
    """NN: B and its scales transposed (upstream's definition); SM90 then needs K-major
    storage, so this form is refused there as upstream's check does."""
    fp8_fp4_gemm_nt(a, (b[0].T, b[1].T), d, c, recipe, recipe_a, recipe_b,  # type: ignore[attr-defined]
                    compiled_dims, disable_ue8m0_cast)


def fp8_fp4_gemm_tn(a: tuple[object, object], b: tuple[object, object], d: object,
                    c: object | None = None, recipe: tuple[int, int, int] | None = None,
                    recipe_a: tuple[int, int] | None = None,
                    recipe_b: tuple[int, int] | None = None, compiled_dims: str = "mn",
                    disable_ue8m0_cast: bool = False) -> None:
    """TN: A, B and their scales transposed."""
    fp8_fp4_gemm_nt((a[0].T, a[1].T), (b[0].T, b[1].T), d, c, recipe, recipe_a,  # type: ignore[attr-defined]
                    recipe_b, compiled_dims, disable_ue8m0_cast)


def fp8_fp4_gemm_tt(a: tuple[object, object], b: tuple[object, object], d: object,
                    c: object | None = None, recipe: tuple[int, int, int] | None = None,
                    recipe_a: tuple[int, int] | None = None,
                    recipe_b: tuple[int, int] | None = None, compiled_dims: str = "mn",
                    disable_ue8m0_cast: bool = False) -> None:
    """TT: A and its scales transposed."""
    fp8_fp4_gemm_nt((a[0].T, a[1].T), b, d, c, recipe, recipe_a, recipe_b,  # type: ignore[attr-defined]
                    compiled_dims, disable_ue8m0_cast)


# DeepGEMM's aliases (`m.attr("fp8_gemm_nt") = fp8_fp4_gemm_nt`, ...).
fp8_gemm_nt, fp8_gemm_nn = fp8_fp4_gemm_nt, fp8_fp4_gemm_nn
fp8_gemm_tn, fp8_gemm_tt = fp8_fp4_gemm_tn, fp8_fp4_gemm_tt
