"""tilelang-ascend's DeepSeek V4 sparse attention (examples/deepseek_v4/sparse_attention.py:
per query, the top-k KV rows gathered on the AIVs (a -1 index gives a zero row and a -inf
score) into a GM workspace, S = Q K^T and P V on the cube, the online softmax with an
attention sink on the AIVs; `T.alloc_L1/L0C/ub` tiles in one body split by
TL_ASCEND_AUTO_CV_COMBINE; b, m, n and topk symbolic).

As written, both AIVs gather the whole block of rows and both copy it to the same bytes of
`workspace_1` (the gather does not use `vid`; the other sparse attention examples give
each AIV half of the rows): two unordered writes of one GM region, which the simulator
reports at the example's line. The values happen to be equal, so the hardware hides the
race; the fix the other examples use, each AIV gathering and storing its half (two lines
edited, as a user would), runs on both NPU profiles against numpy, with a top-k that is
not a multiple of the 64-row block (the example masks the tail with -1) and -1 indices."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from tla_expert_ports import compiled, line_of, load

from tilec.sim.diagnostics import SimError

PROFILES = ("910b", "950")
H, D = 16, 64
HALF = "vid * (block // 2) : (vid + 1) * (block // 2)"
EACH_AIV_ITS_HALF = (
    (r"for b_i in T.serial\(block\):", 0,
     "for b_i in T.serial(vid * (block // 2), (vid + 1) * (block // 2)):"),
    (r"T.copy\(kv_ub, workspace_1", 0, f"T.copy(kv_ub[{HALF}, :], workspace_1[cid, {HALF}, :])"),
)


def _inputs(b, m, n, topk, seed=0, masked=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((b, m, H, D)).astype(ml_dtypes.bfloat16)
    kv = rng.standard_normal((b, n, D)).astype(ml_dtypes.bfloat16)
    sink = rng.standard_normal(H).astype(np.float32)
    idxs = np.stack([[rng.permutation(n)[:topk] for _ in range(m)] for _ in range(b)])
    idxs[..., topk - masked:] = -1
    return q, kv, sink, idxs.astype(np.int32)


def _reference(q, kv, sink, idxs, scale):
    """The example's golden (sparse_attn): masked rows are zeros with a -inf score, the
    softmax's denominator has exp(sink - max) added."""
    b, m, h, d = q.shape
    out = np.empty((b, m, h, d), np.float32)
    for bi in range(b):
        for mi in range(m):
            ids = idxs[bi, mi]
            rows = np.where((ids >= 0)[:, None], kv[bi, np.maximum(ids, 0)].astype(np.float32), 0)
            s = q[bi, mi].astype(np.float32) @ rows.T * scale
            s = s + np.where(ids >= 0, 0.0, -np.inf)[None]
            top = s.max(axis=1, keepdims=True)
            e = np.exp(s - top)
            out[bi, mi] = e / (e.sum(axis=1, keepdims=True) + np.exp(sink[:, None] - top)) @ rows
    return out


@pytest.mark.parametrize("profile", PROFILES)
def test_as_written_both_aivs_write_the_same_workspace_rows(profile, monkeypatch, tmp_path):
    port, path = load("deepseek_sparse_attention", profile, monkeypatch, tmp_path)
    func = port.sparse_attn_kernel(h=H, d=D, scale=D ** -0.5)
    with pytest.raises(SimError, match=r"race \(write-after-write\): ascend.copy ub -> gm on "
                                       r"MTE3 of block \d aiv1 writes argument %workspace_1, "
                                       r".* written by ascend.copy ub -> gm on MTE3 of block "
                                       r"\d aiv0") as caught:
        func(*_inputs(1, 2, 100, 64))
    assert caught.value.diagnostics[0].line == line_of(path, r"T.copy\(kv_ub, workspace_1")


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("b", "m", "n", "topk", "masked"), [(1, 2, 100, 64, 0),
                                                               (2, 1, 90, 80, 5)])
def test_each_aiv_gathering_its_half_matches_numpy(profile, b, m, n, topk, masked, monkeypatch,
                                                   tmp_path):
    port, _ = load("deepseek_sparse_attention", profile, monkeypatch, tmp_path, EACH_AIV_ITS_HALF)
    inputs = _inputs(b, m, n, topk, masked=masked)
    func = port.sparse_attn_kernel(h=H, d=D, scale=D ** -0.5)
    out = func(*inputs)
    np.testing.assert_allclose(out, _reference(*inputs, D ** -0.5), rtol=1e-2, atol=1e-2)
    kernel = compiled(func)
    report = kernel.report()
    assert report.core_kind == "mix" and not report.races and not report.deadlocks
    source = kernel.source()
    assert ("__global__ __aicore__ void sparse_attn_kernel_(GM_ADDR q, GM_ADDR kv, "
            "GM_ADDR output, GM_ADDR attn_sink, GM_ADDR topk_idxs") in source
    # the AIVs hand the gathered rows over once both have stored their halves
    assert "CrossCoreSetFlag<2, PIPE_MTE3>(0);" in source
    assert "CrossCoreWaitFlag<2, PIPE_MTE2>(0);" in source
