"""tilelang-ascend's expert layer norm (examples/normalization/layer_norm.py: a
`T.Scope("V")` program per AIV on its half of the rows, compiled with
TL_ASCEND_AUTO_SYNC, so tilec orders its pipes) on cpu and both NPU profiles against numpy, with
the example's ragged shapes (34 x 34 in 32 x 32 tiles) and dtypes."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from tla_expert_ports import compiled, load

DTYPES = {"float": np.float32, "float16": np.float16, "bfloat16": ml_dtypes.bfloat16}
TOLERANCE = {"float": 1e-5, "float16": 1e-2, "bfloat16": 4e-2}


@pytest.mark.parametrize("profile", ["cpu", "910b", "950"])
@pytest.mark.parametrize(("M", "N", "block_M", "block_N", "dtype"), [
    (34, 34, 32, 32, "float"),
    (34, 34, 32, 32, "float16"),
    (34, 34, 32, 32, "bfloat16"),
    (270, 270, 64, 64, "float"),
])
def test_expert_layer_norm_matches_numpy(profile, M, N, block_M, block_N, dtype, monkeypatch,
                                         tmp_path):
    port, _ = load("layer_norm", profile, monkeypatch, tmp_path)
    a = np.random.default_rng(0).standard_normal((M, N)).astype(DTYPES[dtype])
    func = port.layer_norm(M, N, block_M, block_N, dtype=dtype)
    b = func(a)
    x = a.astype(np.float32)
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(b.astype(np.float32), ref, rtol=TOLERANCE[dtype],
                               atol=TOLERANCE[dtype])
    if profile == "cpu":
        return
    report = compiled(func).report()
    assert report.core_kind == "mix" and report.pipe_all_barriers == 0
    assert report.sync_counts["set_flag"] == report.sync_counts["wait_flag"] > 0
