"""`deep_gemm.testing`: DeepGEMM's accuracy metric."""

from __future__ import annotations

import numpy as np


def _float64(x: object) -> np.ndarray:
    if type(x).__module__.startswith("torch"):
        return x.detach().double().cpu().numpy()  # type: ignore[attr-defined]
    return np.asarray(x, dtype=np.float64)


def calc_diff(x: object, y: object) -> float:
    """1 - 2 sum(xy) / sum(x^2 + y^2): 0 for equal tensors, insensitive to small
    element-wise noise (DeepGEMM's bounds: 1e-3 for FP8, 1e-5 for BF16)."""
    a, b = _float64(x), _float64(y)
    denominator = float((a * a + b * b).sum())
    if denominator == 0:
        return 0.0
    return 1.0 - 2.0 * float((a * b).sum()) / denominator
