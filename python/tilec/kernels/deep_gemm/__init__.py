"""DeepGEMM's API (2.x, `D = C + A @ B.T`) on tilec kernels: the same names, argument
names, defaults and layouts, so code written for `deep_gemm` runs on whatever target
`tilec.kernels` chooses for its tensors (see `tilec.kernels.targets`).

Implemented: the dense BF16 GEMMs (`bf16_gemm_nt/nn/tn/tt`); the FP8 GEMMs
(`fp8_fp4_gemm_nt` and its `fp8_gemm_*` aliases) with SM90's float32 1x128 /
128x128 (or per-row) scales or SM100's UE8M0 exponents packed four to an int32,
and FP8 x FP4 (e2m1, SM100's mixed recipe); the M-grouped GEMMs of MoE layers
(contiguous, psum and masked layouts, BF16 and FP8) and the K-grouped BF16 GEMM of
their weight gradients, and the K-grouped FP8 GEMMs (TN and NT); the scale layouts
(`transform_sf_into_required_layout`, MN-major TMA-aligned float32 or packed UE8M0);
the FP8 and FP4 casts of `deep_gemm.utils`, `calc_diff`,
the cuBLASLt baselines, and the configuration getters.
"""

from . import testing, utils
from .baseline import cublaslt_gemm_nn, cublaslt_gemm_nt, cublaslt_gemm_tn, cublaslt_gemm_tt
from .config import get_num_sms, set_num_sms
from .gemm import (
    bf16_gemm_nn,
    bf16_gemm_nt,
    bf16_gemm_tn,
    bf16_gemm_tt,
    fp8_fp4_gemm_nn,
    fp8_fp4_gemm_nt,
    fp8_fp4_gemm_tn,
    fp8_fp4_gemm_tt,
    fp8_gemm_nn,
    fp8_gemm_nt,
    fp8_gemm_tn,
    fp8_gemm_tt,
)
from .grouped import (
    bf16_m_grouped_gemm_nt_masked,
    fp8_m_grouped_gemm_nt_masked,
    k_grouped_bf16_gemm_tn_contiguous,
    m_grouped_bf16_gemm_nn_contiguous,
    m_grouped_bf16_gemm_nt_contiguous,
    m_grouped_bf16_gemm_nt_masked,
    m_grouped_fp8_fp4_gemm_nn_contiguous,
    m_grouped_fp8_fp4_gemm_nt_contiguous,
    m_grouped_fp8_fp4_gemm_nt_masked,
    m_grouped_fp8_gemm_nn_contiguous,
    m_grouped_fp8_gemm_nt_contiguous,
    m_grouped_fp8_gemm_nt_masked,
)
from .k_grouped import k_grouped_fp8_gemm_nt_contiguous, k_grouped_fp8_gemm_tn_contiguous
from .utils import *  # noqa: F403 - upstream re-exports its utils at the top level
from .utils import __all__ as _utils_all

__all__ = [
    "bf16_m_grouped_gemm_nt_masked",
    "fp8_m_grouped_gemm_nt_masked",
    "k_grouped_bf16_gemm_tn_contiguous",
    "k_grouped_fp8_gemm_nt_contiguous",
    "k_grouped_fp8_gemm_tn_contiguous",
    "m_grouped_bf16_gemm_nn_contiguous",
    "m_grouped_bf16_gemm_nt_contiguous",
    "m_grouped_bf16_gemm_nt_masked",
    "m_grouped_fp8_fp4_gemm_nn_contiguous",
    "m_grouped_fp8_fp4_gemm_nt_contiguous",
    "m_grouped_fp8_fp4_gemm_nt_masked",
    "m_grouped_fp8_gemm_nn_contiguous",
    "m_grouped_fp8_gemm_nt_contiguous",
    "m_grouped_fp8_gemm_nt_masked",
    "bf16_gemm_nn",
    "cublaslt_gemm_nn",
    "cublaslt_gemm_nt",
    "cublaslt_gemm_tn",
    "cublaslt_gemm_tt",
    "bf16_gemm_nt",
    "bf16_gemm_tn",
    "bf16_gemm_tt",
    "fp8_fp4_gemm_nn",
    "fp8_fp4_gemm_nt",
    "fp8_fp4_gemm_tn",
    "fp8_fp4_gemm_tt",
    "fp8_gemm_nn",
    "fp8_gemm_nt",
    "fp8_gemm_tn",
    "fp8_gemm_tt",
    "get_num_sms",
    "set_num_sms",
    "testing",
    "utils",
    *_utils_all,
]
