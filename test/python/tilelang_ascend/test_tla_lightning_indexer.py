"""tilelang-ascend's lightning indexer (examples/lightning_indexer/example_lightning_indexer.py:
per query row, ReLU(q_g . k) on the cube (the fixpipe's ReLU) into a GM workspace, then on
the AIVs the weighted sum over the G heads, T.tile.topk of the scores and
T.tile.gather_mask of their indices, cast to int) on both NPU profiles against numpy: at
sizes like the example's and with a top-k of 20 (not a whole number of 32-byte blocks of
pairs) out of 192 keys (not a multiple of Sort32's merge of 128). On the cpu, too: its one
cross-core flag goes from the cube to the AIVs, so the cube's scope runs, then each AIV's."""

from __future__ import annotations

import numpy as np
import pytest
from tla_expert_ports import compiled, line_of, load

from tilec.sim.diagnostics import SimError

PROFILES = ("910b", "950")
CONFIGS = {  # B, N2, G, S1, S2, D, TOP_K
    "example": (1, 1, 16, 32, 128, 64, 32),
    "top20-of-192": (1, 1, 16, 32, 192, 64, 20),
}
TILES = (64, 16, 32, 64, 64)  # VECTOR_BASEN, VECTOR_BASEG, BLOCK_M, BLOCK_N, BLOCK_K


def _scores(q, k, weights):
    """Each key's score for each query row: sum_g w_g * relu(q_g . k)."""
    score = np.maximum(np.einsum("bsngd,btnd->bnsgt", *(x.astype(np.float32) for x in (q, k))), 0)
    return np.einsum("bnsgt,bsng->bnst", score, weights)


def _run(port, config):
    B, N2, G, S1, S2, D, _ = config
    rng = np.random.default_rng(0)
    q = rng.standard_normal((B, S1, N2, G, D)).astype(np.float16)
    k = rng.standard_normal((B, S2, N2, D)).astype(np.float16)
    weights = rng.standard_normal((B, S1, N2, G)).astype(np.float32)
    func = port.indexer(*config, *TILES)
    return func, func(q.reshape(B, S1, N2, G * D), k, weights), _scores(q, k, weights)


@pytest.mark.parametrize("config", CONFIGS)
@pytest.mark.parametrize("profile", PROFILES)
def test_lightning_indexer_matches_numpy(profile, config, monkeypatch, tmp_path):
    port, _ = load("lightning_indexer", profile, monkeypatch, tmp_path)
    func, out, scores = _run(port, CONFIGS[config])
    top_k = CONFIGS[config][-1]
    out = np.asarray(out)
    assert out.shape == (*scores.shape[:-1], top_k) and out.dtype == np.int32
    # The scores of the keys chosen are the top_k largest, largest first ...
    best = -np.sort(-scores, axis=-1)
    np.testing.assert_allclose(np.take_along_axis(scores, out, axis=-1), best[..., :top_k],
                               rtol=1e-4, atol=1e-4)
    # ... and the keys are numpy's, as a set, in every row without a near tie at the cut.
    ref = np.argsort(-scores, axis=-1, kind="stable")[..., :top_k]
    clear = best[..., top_k - 1] - best[..., top_k] > 1e-3
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(np.sort(out, axis=-1)[clear], np.sort(ref, axis=-1)[clear])
    source = compiled(func).source()
    assert "__global__ __aicore__ void main_(GM_ADDR Query, GM_ADDR KEY" in source


def test_on_the_cpu_the_cube_runs_then_each_aiv(monkeypatch, tmp_path):
    """The only cross-core flag goes from the cube to the AIVs: on cpu each block runs the
    cube's scope, then the vector scope once per AIV, and picks numpy's keys."""
    port, _ = load("lightning_indexer", "cpu", monkeypatch, tmp_path)
    _, out, scores = _run(port, CONFIGS["top20-of-192"])
    top_k = CONFIGS["top20-of-192"][-1]
    best = -np.sort(-scores, axis=-1)
    np.testing.assert_allclose(np.take_along_axis(scores, np.asarray(out), axis=-1),
                               best[..., :top_k], rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("profile", PROFILES)
def test_dynamic_shape_indexer_serves_two_shapes(profile, monkeypatch, tmp_path):
    """examples/lightning_indexer/example_lightning_indexer_dynamic_shape.py: B, S1 and S2
    symbolic, the scores gathered into a tile of MAX_S2 and T.tile.topk over the first S2
    (192 of 256: a count the kernel takes at run time). Its `target="ascendc"` is the
    default profile; the 950 is named by editing it."""
    edits = () if profile == "910b" else (
        (r'target="ascendc"', 0, '@tilelang.jit(out_idx=[-1], workspace_idx=[-3], '
                                 f'pass_configs=pass_configs, target="ascend:{profile}")'),)
    port, _ = load("lightning_indexer_dynamic", profile, monkeypatch, tmp_path, edits)
    N2, G, D, top_k = 1, 16, 64, 20
    func = port.indexer(N2, G, D, top_k, *TILES, MAX_S2=256)
    for B, S1, S2 in ((1, 32, 128), (2, 32, 192)):
        rng = np.random.default_rng(S2)
        q = rng.standard_normal((B, S1, N2, G, D)).astype(np.float16)
        k = rng.standard_normal((B, S2, N2, D)).astype(np.float16)
        weights = rng.standard_normal((B, S1, N2, G)).astype(np.float32)
        out = np.asarray(func(q.reshape(B, S1, N2, G * D), k, weights))
        scores = _scores(q, k, weights)
        best = -np.sort(-scores, axis=-1)[..., :top_k]
        np.testing.assert_allclose(np.take_along_axis(scores, out, axis=-1), best, rtol=1e-4,
                                   atol=1e-4)
        if B == 1:
            kernel = compiled(func)
            assert kernel.target == f"ascend:{profile}"
            assert "__global__ __aicore__ void main_(GM_ADDR Query, GM_ADDR KEY" in kernel.source()


@pytest.mark.parametrize("profile", PROFILES)
def test_a_deleted_cross_core_wait_is_a_race_at_the_authors_lines(profile, monkeypatch,
                                                                 tmp_path):
    """Without `T.wait_cross_flag(0)` the AIVs read the scores while the AIC's fixpipe may
    still write them: a race at the author's lines, naming the flag to add."""
    port, path = load("lightning_indexer", profile, monkeypatch, tmp_path,
                      ((r"T\.wait_cross_flag\(0\)", 0, ""),))
    with pytest.raises(SimError) as caught:
        _run(port, CONFIGS["example"])
    # the fixpipe's copy of C_L0 into QK_RES, then the AIVs' copy out of it
    store, read = (line_of(path, r"T\.copy\($", n) for n in (0, 1))
    race = next(d for d in caught.value.diagnostics if d.message.startswith("race"))
    assert race.line == store and f" at {path}:{read}:" in race.message
    assert race.message.endswith(f'missing T.set_cross_flag("FIX", id) after line {store} '
                                 f"and T.wait_cross_flag(id) before line {read}")
