"""tilelang-ascend's lightning indexer (examples/lightning_indexer/example_lightning_indexer.py:
per query row, ReLU(q_g . k) on the cube (the fixpipe's ReLU) into a GM workspace, then on
the AIVs the weighted sum over the G heads, T.tile.topk of the scores and
T.tile.gather_mask of their indices, cast to int) on both NPU profiles against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from tla_expert_ports import compiled, load

from tilec.language.errors import DSLError

PROFILES = ("910b", "950")


B, N2, G, S1, S2, D, TOP_K = 2, 1, 16, 64, 128, 64, 32


def _scores(q, k, weights):
    """Each key's score for each query row: sum_g w_g * relu(q_g . k)."""
    score = np.maximum(np.einsum("bsngd,btnd->bnsgt", *(x.astype(np.float32) for x in (q, k))), 0)
    return np.einsum("bnsgt,bsng->bnst", score, weights)


def _run(port):
    rng = np.random.default_rng(0)
    q = rng.standard_normal((B, S1, N2, G, D)).astype(np.float16)
    k = rng.standard_normal((B, S2, N2, D)).astype(np.float16)
    weights = rng.standard_normal((B, S1, N2, G)).astype(np.float32)
    func = port.indexer(B, N2, G, S1, S2, D, TOP_K, 64, 16, 64, 64, 64)
    return func, func(q.reshape(B, S1, N2, G * D), k, weights), _scores(q, k, weights)


@pytest.mark.xfail(strict=True, raises=DSLError, reason=(
    "tilec stops at the port's line 116 (tla_expert_ports/lightning_indexer.py:116:21): "
    "'T.tile.topk (tilelang-ascend) is not supported by tilec: sort with T.Parallel and "
    "T.serial code, or use tilec's top-k kernel (tilec.kernels)'; everything before it "
    "traces. tilec lacks T.tile.topk and, on the next line, T.tile.gather_mask"))
@pytest.mark.parametrize("profile", PROFILES)
def test_lightning_indexer_matches_numpy(profile, monkeypatch, tmp_path):
    port, _ = load("lightning_indexer", profile, monkeypatch, tmp_path)
    func, out, scores = _run(port)
    ref = np.argsort(-scores, axis=-1, kind="stable")[..., :TOP_K]  # largest first
    np.testing.assert_array_equal(out, ref)
    source = compiled(func).source()
    assert "__global__ __aicore__ void main_(GM_ADDR Query, GM_ADDR KEY" in source

