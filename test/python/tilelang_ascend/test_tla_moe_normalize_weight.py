"""TileKernels' MoE `normalize_weight` written in tilelang-ascend's language
(tla_expert_ports/moe_normalize_weight.py: each AIV on half of a block of tokens,
T.reduce_sum of each token's top-k weights, T.tile.add of the 1e-20, T.tile.broadcast
along the row and T.tile.div) on cpu and both NPU profiles against TileKernels' oracle
(1e-20 plus the row sum, and the weights over it): with top-k 8 over 64 tokens and top-k 6
(24-byte rows, not 32-byte blocks) over 37 tokens (not a multiple of the 16-token block)."""

from __future__ import annotations

import numpy as np
import pytest
from tla_expert_ports import compiled, load


@pytest.mark.parametrize("profile", ["cpu", "910b", "950"])
@pytest.mark.parametrize(("num_tokens", "num_topk"), [(64, 8), (37, 6)])
def test_normalize_weight_matches_tilekernels_oracle(profile, num_tokens, num_topk,
                                                     monkeypatch, tmp_path):
    port, _ = load("moe_normalize_weight", profile, monkeypatch, tmp_path)
    weights = np.random.default_rng(0).random((num_tokens, num_topk)).astype(np.float32)
    func = port.normalize_weight(num_tokens, num_topk)
    denominator, normalized = func(weights)
    expected = np.float32(1e-20) + weights.sum(axis=1)
    np.testing.assert_allclose(denominator, expected, rtol=1e-6)
    np.testing.assert_allclose(normalized, weights / expected[:, None], rtol=1e-6)
    if profile == "cpu":
        return
    kernel = compiled(func)
    assert kernel.report().core_kind == "aiv"
    source = kernel.source()
    assert ("__global__ __aicore__ void main_(GM_ADDR topk_weights, GM_ADDR denominator, "
            "GM_ADDR normalized_weights)") in source
    assert "ReduceSum(" in source and "Brcb(" in source and "Div(" in source
