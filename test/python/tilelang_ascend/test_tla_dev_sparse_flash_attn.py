"""tilelang-ascend's examples/developer_mode/sparse_flash_attn_developer.py: DeepSeek's sparse
(top-k indexed) flash attention forward in developer mode: the KV rows named by `Indices`
are gathered row by row on the AIVs into GM workspaces that the cube reads, and the online
softmax runs on the AIVs between the two gemms. Only the imports changed (`import tilec as
tilelang`, numpy arrays for torch's); seq_len and seq_len_kv are smaller than the example's
(128, 32768) to keep the simulation short, and the `@tilelang.jit(out_idx=[3],
workspace_idx=[4, 5, 6, 7, 8], pass_configs=pass_configs)` decoration is applied per target.

The body has the meaning tilelang-ascend's TL_ASCEND_AUTO_CV_COMBINE gives it: the cube's
program and the AIVs' (each with its `vid`), the k-th access of a workspace by the cube
paired with the k-th by the AIVs through a cross-core flag, so each iteration's cube copy of
`workspace_1` at its top reads the rows both AIVs gather later in that iteration
(tile-ascend-combine-cores). It runs in the simulator on the 910b and the 950 against numpy,
with or without the example's pass_configs (tilec synchronizes the two programs it wrote
either way), with a head count that is not a multiple of the 16-row head tile; without the
flag of `workspace_1` the simulator finds the cube reading rows the AIVs have not written,
and on cpu, where no sequential order has that meaning, it is a located error."""

# ruff: noqa: E501, I001 (the ported kernel keeps upstream's lines and import line)

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec as tilelang
from tilec import DataType, language as T  # noqa: F401  (the example's import line)
from tilec.diagnostics import CompileError
from tilec.sim.api import simulate

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ascend"))
from vendor_headers import needs_devkit

PROFILES = ("910b", "950")
SEQ_LEN, SEQ_LEN_KV = 4, 128
SOURCE = Path(__file__).read_text().splitlines()

pass_configs = {
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_COMBINE: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_CV_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_AUTO_SYNC: True,
    tilelang.PassConfigKey.TL_ASCEND_MEMORY_PLANNING: True,
}


def sparse_attention_fwd(
    heads,
    dim,
    tail_dim,
    topk,
    kv_stride,
    kv_group=1,
    sm_scale=None,
    is_causal=True,
    block_I=64,
):
    assert dim == tilelang.math.next_power_of_2(dim), f"haven't check padding correctness yet, dim={dim}"
    assert tail_dim == tilelang.math.next_power_of_2(tail_dim), f"haven't check padding correctness yet, dim={tail_dim}"
    assert is_causal, "non-casual is not supported"
    assert topk % block_I == 0, "otherwise will load some index=0 thus causing wrong kv to be loaded"

    # NOTE: ascend only support exp interface instead of exp2
    sm_scale = (1.0 / (dim + tail_dim)) ** 0.5 if sm_scale is None else sm_scale

    batch = 1  # T.symbolic("batch")
    seq_len = SEQ_LEN  # T.symbolic("seq_len")

    seq_len_kv = SEQ_LEN_KV  # T.symbolic("seq_len_kv")
    head_kv = heads // kv_group
    q_shape = [batch, seq_len, heads, dim + tail_dim]
    kv_shape = [batch, seq_len_kv, kv_group, dim + tail_dim]
    o_shape = [batch, seq_len, heads, dim]
    indices_shape = [batch, seq_len, kv_group, topk]
    # lse_shape = [batch, seq_len, heads]
    indices_dtype = "int32"
    dtype = "float16"
    accum_dtype = "float"

    H = head_kv

    padded_H = max(tilelang.math.next_power_of_2(head_kv), 16)
    if padded_H != H:
        assert kv_group == 1, (
            "here we solve the H padding automatically, other wise you should handle Q copy and Output copy with your mask (when kv_group == 1, use g_i * padded_H:(g_i+1) * padded_H would be handled automatically)"
        )

    BI = block_I
    NI = tilelang.cdiv(topk, block_I)
    D = dim
    D_tail = tail_dim

    if head_kv > 64:
        assert head_kv % 64 == 0, "head_kv should be a multiple of 64"
        REPLICATE_H = head_kv // 64
    else:
        REPLICATE_H = 1

    H_per_block = padded_H if REPLICATE_H == 1 else 64

    v_block = H_per_block // 2

    block_num = seq_len * REPLICATE_H * batch * kv_group

    @T.prim_func
    def main(
        Q: T.Tensor(q_shape, dtype),  # type: ignore
        KV: T.Tensor(kv_shape, dtype),  # type: ignore
        Indices: T.Tensor(indices_shape, indices_dtype),  # type: ignore
        Output: T.Tensor(o_shape, dtype),  # type: ignore
        # TODO: implement automatically
        workspace_1: T.Tensor([block_num, BI, D], dtype),
        workspace_2: T.Tensor([block_num, BI, D_tail], dtype),
        workspace_3: T.Tensor([block_num, H_per_block, BI], accum_dtype),
        workspace_4: T.Tensor([block_num, H_per_block, BI], dtype),
        workspace_5: T.Tensor([block_num, H_per_block, D], accum_dtype),
    ):
        with T.Kernel(block_num, is_npu=True) as (cid, vid):
            bx = cid % (seq_len * REPLICATE_H)
            by = cid // (seq_len * REPLICATE_H) % batch
            bz = cid // (seq_len * REPLICATE_H) // batch % kv_group

            q_l1 = T.alloc_L1([H_per_block, D], dtype)
            q_tail_l1 = T.alloc_L1([H_per_block, D_tail], dtype)
            kv_l1 = T.alloc_L1([BI, D], dtype)
            kv_tail_l1 = T.alloc_L1([BI, D_tail], dtype)
            acc_s_l1 = T.alloc_L1([H_per_block, BI], dtype)

            acc_s_l0c = T.alloc_L0C([H_per_block, BI], accum_dtype)
            acc_o_l0c = T.alloc_L0C([H_per_block, D], accum_dtype)

            ## 2. Vector
            acc_o = T.alloc_ub([v_block, D], accum_dtype)
            sumexp = T.alloc_ub([v_block], accum_dtype)
            m_i = T.alloc_ub([v_block], accum_dtype)
            indices_ub_ = T.alloc_ub([BI], indices_dtype)
            kv_ub = T.alloc_ub([D], dtype)
            kv_tail_ub = T.alloc_ub([D_tail], dtype)
            acc_s_ub = T.alloc_ub([v_block, BI], accum_dtype)
            m_i_prev = T.alloc_ub([v_block], accum_dtype)
            acc_s_ub_ = T.alloc_ub([v_block, BI], accum_dtype)
            sumexp_i_ub = T.alloc_ub([v_block], accum_dtype)
            acc_s_half = T.alloc_ub([v_block, BI], dtype)
            acc_o_ub = T.alloc_ub([v_block, D], accum_dtype)
            acc_o_half = T.alloc_ub([v_block, D], dtype)

            b_i = by
            g_i = bz

            s_i = bx // REPLICATE_H

            H0 = g_i * padded_H + (0 if REPLICATE_H == 1 else (bx % REPLICATE_H) * 64)
            H1 = H0 + H_per_block

            T.copy(Q[b_i, s_i, H0:H1, :D], q_l1)
            T.copy(Q[b_i, s_i, H0:H1, D:], q_tail_l1)
            T.tile.fill(acc_o, 0.0)
            T.tile.fill(sumexp, 0.0)
            T.tile.fill(m_i, -(2.0**30))
            for i_i in T.serial(NI):
                T.copy(workspace_1[cid, 0:BI, 0:D], kv_l1)
                T.copy(workspace_2[cid, 0:BI, 0:D_tail], kv_tail_l1)

                T.gemm_v0(q_l1, kv_l1, acc_s_l0c, transpose_B=True, init=True)
                T.gemm_v0(q_tail_l1, kv_tail_l1, acc_s_l0c, transpose_B=True)

                T.copy(acc_s_l0c, workspace_3[cid, 0:H_per_block, 0:BI])
                T.copy(workspace_4[cid, 0:H_per_block, 0:BI], acc_s_l1)

                T.gemm_v0(acc_s_l1, kv_l1, acc_o_l0c, init=True)

                T.copy(acc_o_l0c, workspace_5[cid, 0:H_per_block, 0:D])

                T.copy(Indices[b_i, s_i, g_i, i_i * BI : i_i * BI + BI], indices_ub_)

                for bi_i in range(BI // 2):
                    T.copy(KV[b_i, indices_ub_[bi_i + vid * BI // 2], g_i, :D], kv_ub)
                    T.copy(KV[b_i, indices_ub_[bi_i + vid * BI // 2], g_i, D:], kv_tail_ub)
                    T.copy(kv_ub, workspace_1[cid, bi_i + vid * BI // 2, :])
                    T.copy(kv_tail_ub, workspace_2[cid, bi_i + vid * BI // 2, :])

                T.tile.fill(acc_s_ub, 0.0)

                T.copy(m_i, m_i_prev)

                T.copy(workspace_3[cid, vid * v_block : vid * v_block + v_block, :], acc_s_ub_)

                for i, j in T.Parallel(v_block, BI):
                    acc_s_ub[i, j] = acc_s_ub[i, j] + acc_s_ub_[i, j]

                for i, j in T.Parallel(v_block, BI):
                    acc_s_ub[i, j] = acc_s_ub[i, j] * sm_scale

                T.reduce_max(acc_s_ub, m_i, dim=-1)

                for i in T.Parallel(v_block):
                    m_i[i] = T.max(m_i[i], m_i_prev[i])
                    m_i_prev[i] = m_i_prev[i] - m_i[i]
                    m_i_prev[i] = T.exp(m_i_prev[i])

                for h_i, j in T.Parallel(v_block, BI):
                    acc_s_ub[h_i, j] = acc_s_ub[h_i, j] - m_i[h_i]
                    acc_s_ub[h_i, j] = T.exp(acc_s_ub[h_i, j])

                T.reduce_sum(acc_s_ub, sumexp_i_ub, dim=-1)

                for i in T.Parallel(v_block):
                    sumexp[i] *= m_i_prev[i]
                    sumexp[i] += sumexp_i_ub[i]

                for h_i, j in T.Parallel(v_block, D):
                    acc_o[h_i, j] = acc_o[h_i, j] * m_i_prev[h_i]

                T.copy(acc_s_ub, acc_s_half)

                T.copy(acc_s_half, workspace_4[cid, vid * v_block : vid * v_block + v_block, :])

                T.copy(workspace_5[cid, vid * v_block : vid * v_block + v_block, :], acc_o_ub)

                for i, j in T.Parallel(v_block, D):
                    acc_o[i, j] += acc_o_ub[i, j]

            for h_i, j in T.Parallel(v_block, D):
                acc_o[h_i, j] = acc_o[h_i, j] / sumexp[h_i]

            T.copy(acc_o, acc_o_half)
            T.copy(acc_o_half, Output[b_i, s_i, H0 + vid * v_block : H0 + v_block + vid * v_block, :])

    return main


def _reference(q, kv, indices, dim, sm_scale):
    """Attention of each query row over only the KV rows its top-k indices name (one KV
    group), the value being the first `dim` columns of those rows."""
    b, s, h, _ = q.shape
    out = np.empty((b, s, h, dim), np.float32)
    for bi in range(b):
        for si in range(s):
            rows = kv[bi, indices[bi, si, 0], 0].astype(np.float32)  # (topk, dim + tail)
            score = q[bi, si].astype(np.float32) @ rows.T * sm_scale  # (h, topk)
            p = np.exp(score - score.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            out[bi, si] = p @ rows[:, :dim]
    return out


def _inputs(heads, dim, tail_dim, topk, seed=0):
    rng = np.random.default_rng(seed)
    q = rng.standard_normal((1, SEQ_LEN, heads, dim + tail_dim)).astype(np.float16)
    kv = rng.standard_normal((1, SEQ_LEN_KV, 1, dim + tail_dim)).astype(np.float16)
    indices = np.stack([rng.permutation(SEQ_LEN_KV)[:topk] for _ in range(SEQ_LEN)])
    return q, kv, indices.reshape(1, SEQ_LEN, 1, topk).astype(np.int32)


def _run(profile, heads, configs=None, seed=0):
    """The example's kernel for `heads` heads on `profile`: its output against numpy's,
    and the compiled kernel."""
    dim, tail_dim, topk, block_I = 64, 16, 64, 32
    q, kv, indices = _inputs(heads, dim, tail_dim, topk, seed)
    func = tilelang.jit(out_idx=[3], workspace_idx=[4, 5, 6, 7, 8], pass_configs=configs,
                        target=f"ascend:{profile}")(sparse_attention_fwd)(
        heads, dim, tail_dim, topk, kv_stride=1, block_I=block_I)
    out = func(q, kv, indices)
    ref = _reference(q, kv, indices, dim, (1.0 / (dim + tail_dim)) ** 0.5)
    np.testing.assert_allclose(out.astype(np.float32), ref, rtol=1e-2, atol=1e-2)
    return next(iter(func._compiled.values())), (q, kv, indices)


@pytest.mark.parametrize("configs", [pass_configs, None], ids=["pass_configs", "none"])
@pytest.mark.parametrize("profile", PROFILES)
def test_sparse_flash_attn_developer(profile, configs):
    kernel, _ = _run(profile, heads=16, configs=configs)
    report = kernel.report()
    assert report.core_kind == "mix" and not report.races and not report.deadlocks
    source = kernel.source()
    assert "__global__ __aicore__ void main_(GM_ADDR Q, GM_ADDR KV, GM_ADDR Indices" in source
    # mode 2 both ways: the AIVs' rows of workspace_1 (flag 0), the cube's S (flag 2), and
    # per direction a "free" flag from the reader once it has read (5: the cube, 6: the
    # AIVs), which the writer waits for from the second iteration on and after the loop
    assert "CrossCoreSetFlag<2, PIPE_MTE3>(0);" in source
    assert "CrossCoreSetFlag<2, PIPE_FIX>(2);" in source
    assert source.count("CrossCoreSetFlag<2, PIPE_MTE2>(5);") == 1
    assert source.count("CrossCoreSetFlag<2, PIPE_MTE2>(6);") == 1
    assert source.count("CrossCoreWaitFlag") == 5 + 2 * 2


@pytest.mark.parametrize("profile", PROFILES)
def test_heads_not_a_multiple_of_the_head_tile(profile, monkeypatch):
    """12 heads in the kernel's 16-row head tile (the example pads H itself: the copy of
    Q reads past the heads, the second AIV's store drops its rows past them), over 100
    KV rows gathered for 3 queries."""
    monkeypatch.setitem(globals(), "SEQ_LEN", 3)
    monkeypatch.setitem(globals(), "SEQ_LEN_KV", 100)
    _run(profile, heads=12, seed=1)


def test_without_the_flag_of_a_workspace_the_simulator_finds_the_race():
    """The same kernel with the pair of flag 0 (the AIVs' gathered rows of workspace_1,
    which the cube copies into L1) deleted from its ascend IR: the cube reads rows the
    AIVs write, unordered."""
    kernel, inputs = _run("910b", heads=16)
    text = kernel.ir(kernel.stages()[-1])
    flag = re.compile(r"ascend\.cross_core_(wait_flag 0, mte2|set_flag mode 2, mte3, 0)$")
    kept = [line for line in text.splitlines() if not flag.search(line)]
    assert len(kept) == len(text.splitlines()) - 2
    cut = "\n".join(kept)
    outputs = [np.zeros((1, SEQ_LEN, 16, 64), np.float16),
               *(np.zeros(shape, dtype) for shape, dtype in (
                   ((SEQ_LEN, 32, 64), np.float16), ((SEQ_LEN, 32, 16), np.float16),
                   ((SEQ_LEN, 16, 32), np.float32), ((SEQ_LEN, 16, 32), np.float16),
                   ((SEQ_LEN, 16, 64), np.float32)))]
    result = simulate(cut, [*inputs, *outputs], profile="910b", block_dim=SEQ_LEN)
    assert not result.ok
    assert any(re.search(r"race \(read-after-write\): ascend.copy_nd2nz gm -> l1 on MTE2 of "
                         r"block \d aic reads argument %workspace_1, .* written by ascend.copy "
                         r"ub -> gm on MTE3 of block \d aiv[01]", race.message)
               for race in result.races)


@pytest.mark.slow
@needs_devkit
def test_the_emitted_ascendc_runs_on_the_vendors_cpu_model():
    """The AscendC of the two programs, their cross-core flags included, run by the vendor's
    headers in their CPU-debug mode (`kernel.run_ascendc`, about 35 s): numpy's numbers,
    and the simulator's to f16 rounding."""
    dim, tail_dim, topk = 64, 16, 64
    inputs = _inputs(16, dim, tail_dim, topk)
    func = tilelang.jit(out_idx=[3], workspace_idx=[4, 5, 6, 7, 8], target="ascend:910b")(
        sparse_attention_fwd)(16, dim, tail_dim, topk, kv_stride=1, block_I=32)
    simulated = func(*inputs).astype(np.float32)
    out = np.asarray(func.run_ascendc(*inputs), np.float32)
    ref = _reference(*inputs, dim, (1.0 / (dim + tail_dim)) ** 0.5)
    np.testing.assert_allclose(out, ref, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(out, simulated, rtol=0, atol=2e-3)


def test_on_cpu_it_is_a_located_error():
    """No sequential order of the body has its meaning: the cube's read of workspace_1 at
    the top of an iteration comes before the AIVs' writes of it."""
    (line,) = [i + 1 for i, text in enumerate(SOURCE)
               if text.endswith("with T.Kernel(block_num, is_npu=True) as (cid, vid):")]
    func = tilelang.jit(out_idx=[3], workspace_idx=[4, 5, 6, 7, 8], target="cpu")(
        sparse_attention_fwd)(16, 64, 16, 64, kv_stride=1, block_I=32)
    with pytest.raises(CompileError, match="runs on ascend only") as caught:
        func(*_inputs(16, 64, 16, 64))
    assert caught.value.diagnostics[0].line == line
