"""DeepGEMM's `cublaslt_gemm_*`: its baseline, the vendor library's GEMM on the tensors'
device. Here that is the framework's own matmul (torch: oneDNN on a CPU, cuBLAS on a GPU;
numpy: its BLAS), not a tilec kernel: it is what the tilec GEMMs are measured against.
`D = C + A @ B.T` as DeepGEMM's other GEMMs, in the output's dtype (a bf16 D gets the
bf16 product; a float32 D the product of the operands in float32)."""

from __future__ import annotations

import numpy as np

from tilec.kernels import targets
from tilec.kernels.tensors import dtype_name, is_torch


def cublaslt_gemm_nt(a: object, b: object, d: object, c: object | None = None) -> None:
    """D = C + A @ B.T with the framework's matmul."""
    with targets.library_call():
        if tuple(d.shape) != (a.shape[0], b.shape[0]) or a.shape[1] != b.shape[1]:  # type: ignore[attr-defined]
            raise ValueError(f"deep_gemm.cublaslt_gemm_nt: shapes do not match: A "
                             f"{tuple(a.shape)}, B {tuple(b.shape)}, D {tuple(d.shape)}")  # type: ignore[attr-defined]
        if is_torch(d):
            operands = (a, b) if dtype_name(d) == dtype_name(a) else (a.float(), b.float())  # type: ignore[attr-defined]
            product = operands[0] @ operands[1].T  # type: ignore[attr-defined]
            d.copy_(product if c is None else product + c)  # type: ignore[attr-defined]
            return
        product = np.asarray(a, np.float32) @ np.asarray(b, np.float32).T
        d[...] = product if c is None else product + np.asarray(c, np.float32)  # type: ignore[index]


def cublaslt_gemm_nn(a: object, b: object, d: object, c: object | None = None) -> None:
    cublaslt_gemm_nt(a, b.T, d, c)  # type: ignore[attr-defined]


def cublaslt_gemm_tn(a: object, b: object, d: object, c: object | None = None) -> None:
    cublaslt_gemm_nt(a.T, b.T, d, c)  # type: ignore[attr-defined]


def cublaslt_gemm_tt(a: object, b: object, d: object, c: object | None = None) -> None:
    cublaslt_gemm_nt(a.T, b, d, c)  # type: ignore[attr-defined]
