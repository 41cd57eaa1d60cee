"""tilelang-ascend's examples/sparse_flash_attention/example_sparse_flash_attn.py: sparse
(top-k indexed) flash attention with the expert mode's tiles (`T.alloc_L1/L0C/ub`) in one
body that TL_ASCEND_AUTO_CV_COMBINE splits. Unlike the developer-mode example
(test_tla_dev_sparse_flash_attn.py) the cube's work is a loop of its own (`for _ in
T.serial(NI)`) ahead of the AIVs' (`for i_i in range(NI)`, which tilec unrolls): the cube's
trip k reads what the AIVs' step k gathered into `workspace_1` and writes the scores their
step k reads, so tile-ascend-combine-cores pairs the hand-overs trip by trip. A flag around
whole loops would deadlock: the cube would wait for every gathered block before computing
the first scores. Only the imports changed; the test edits the example's seq_len and
seq_len_kv (128, 32768) to simulator sizes, as a user would, and runs it on both NPU
profiles against numpy, with a head count that is not a multiple of the 16-row head tile."""

from __future__ import annotations

import re

import numpy as np
import pytest
from test_tla_dev_sparse_flash_attn import _reference
from tla_expert_ports import compiled, load

from tilec.diagnostics import CompileError

PROFILES = ("910b", "950")
DIM, TAIL_DIM, TOPK, BLOCK_I = 64, 16, 64, 32


def _load(profile, monkeypatch, tmp_path, seq_len=4, seq_len_kv=128):
    return load("sparse_flash_attn", profile, monkeypatch, tmp_path, (
        (r"seq_len = 128", 0, f'seq_len = {seq_len}  # T.symbolic("seq_len")'),
        (r"seq_len_kv = 32768", 0, f'seq_len_kv = {seq_len_kv}  # T.symbolic("seq_len_kv")')))


def _inputs(seq_len, seq_len_kv, heads, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((1, seq_len, heads, DIM + TAIL_DIM)).astype(np.float16)
    kv = rng.standard_normal((1, seq_len_kv, 1, DIM + TAIL_DIM)).astype(np.float16)
    indices = np.stack([rng.permutation(seq_len_kv)[:TOPK] for _ in range(seq_len)])
    return q, kv, indices.reshape(1, seq_len, 1, TOPK).astype(np.int32)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("seq_len", "seq_len_kv", "heads"), [(4, 128, 16), (3, 100, 12)])
def test_expert_sparse_flash_attn_matches_numpy(profile, seq_len, seq_len_kv, heads,
                                                monkeypatch, tmp_path):
    port, _ = _load(profile, monkeypatch, tmp_path, seq_len, seq_len_kv)
    inputs = _inputs(seq_len, seq_len_kv, heads)
    func = port.sparse_attention_fwd(heads, DIM, TAIL_DIM, TOPK, kv_stride=1, block_I=BLOCK_I)
    out = func(*inputs)
    ref = _reference(*inputs, DIM, (1.0 / (DIM + TAIL_DIM)) ** 0.5)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    kernel = compiled(func)
    report = kernel.report()
    assert report.core_kind == "mix" and not report.races and not report.deadlocks
    source = kernel.source()
    assert "__global__ __aicore__ void main_(GM_ADDR Q, GM_ADDR KV, GM_ADDR Indices" in source
    # one flag per workspace: the cube waits for the AIVs' gathered rows (0, 1) and their
    # P (3) in each trip of its loop, and sets S (2) and P.V (4) in each
    cube, vector = source.split("if ASCEND_IS_AIV")
    trip = cube[re.search(r"for \(int64_t i\d+ = 0; i\d+ < 2; i\d+ \+= 1\)", cube).end():]
    for flag in (0, 1, 3):
        assert trip.count(f"CrossCoreWaitFlag<2, PIPE_MTE2>({flag});") == 1
    for flag in (2, 4):
        assert trip.count(f"CrossCoreSetFlag<2, PIPE_FIX>({flag});") == 1
    # the AIVs' two unrolled steps set and wait for each flag once per step
    for flag in (0, 1, 3):
        assert vector.count(f"CrossCoreSetFlag<2, PIPE_MTE3>({flag});") == 2
    for flag in (2, 4):
        assert vector.count(f"CrossCoreWaitFlag<2, PIPE_MTE2>({flag});") == 2


def test_on_cpu_it_is_a_located_error(monkeypatch, tmp_path):
    """No sequential order of the body has its meaning: the cube's loop reads the rows
    the AIVs' loop after it gathers."""
    port, path = _load("cpu", monkeypatch, tmp_path)
    func = port.sparse_attention_fwd(16, DIM, TAIL_DIM, TOPK, kv_stride=1, block_I=BLOCK_I)
    with pytest.raises(CompileError, match="runs on ascend only") as caught:
        func(*_inputs(4, 128, 16))
    line = next(i + 1 for i, text in enumerate(path.read_text().splitlines())
                if "with T.Kernel(block_num, is_npu=True) as (cid, vid):" in text)
    assert caught.value.diagnostics[0].line == line
