"""TileLang's examples/fusedmoe/example_fusedmoe_tilelang.py (factory form, plain
`@tilelang.jit` with the outputs passed in): a DeepSeek-style mixture-of-experts layer,
out = shared_expert(x) + sum over the top-k routed experts e of score_e * expert_e(x),
where an expert is down(silu(gate(x)) * up(x)). Each of the two kernels is one prim_func
holding two `T.Kernel`s run in order, the first writing the float16 SiLU-gated `up_logits`
tensor the second reads: two gemms into two accumulators (`transpose_B`), SiLU through
`T.exp2`, `T.use_swizzle(10)`, an input tile copied into a fragment. The routed kernel is
a grouped GEMM over the tokens sorted by expert: each block reads its expert from
`group_idx_for_bx`, its rows from the group offsets (slices starting at those offsets,
whose extent is block_token), clamps its row count with `T.max`/`T.min` and stores only
those rows (an `if` inside T.Parallel), scaled by the routing weight.

The upstream host code (torch modules, routing, sorting, scatter-reduce, CUDA streams) is
written in numpy here, kernels unchanged; the pass configs are left out. The expert
counts use `bincount(minlength=n_routed_experts)` (upstream's torch `bincount` has no
minlength, so an expert no token chose would break the group tensors' shape). The
reference is the upstream torch reference (example_fusedmoe_torch.py) in float32 numpy,
sharing the gating function. Ragged: d_hidden and d_expert are not multiples of the 128
tiles and the token count is not a multiple of block_token; the expert groups are ragged
in any case."""

import math

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit
def moe_forward_tilelang_shared(
    d_hidden,
    d_expert,
    n_shared_experts,
    dtype,
    num_tokens,
    block_token=128,
    block_dhidden=128,
    block_dexpert=128,
    threads=256,
    num_stages=1,
):
    scale = 1.44269504  # log2(e)

    # Parameters
    dhidden = d_hidden
    dexpert = d_expert * n_shared_experts

    # Tensors: Note that input shape is reshape to (num_tokens, dhidden)
    input_shape = (num_tokens, dhidden)
    shared_W_gate_shape = (dexpert, dhidden)
    shared_W_up_shape = (dexpert, dhidden)
    shared_W_down_shape = (dhidden, dexpert)

    accum_type = T.float32

    @T.prim_func
    def kernel_shared(
        input: T.Tensor(input_shape, dtype),  # type: ignore
        shared_W_gate: T.Tensor(shared_W_gate_shape, dtype),  # type: ignore
        shared_W_up: T.Tensor(shared_W_up_shape, dtype),  # type: ignore
        shared_W_down: T.Tensor(shared_W_down_shape, dtype),  # type: ignore
        up_logits: T.Tensor((num_tokens, dexpert), dtype),  # type: ignore
        output: T.Tensor(input_shape, dtype),  # type: ignore
    ):
        # Step 1: Compute gate and up logits
        with T.Kernel(T.ceildiv(num_tokens, block_token), T.ceildiv(dexpert, block_dexpert),
                      threads=threads) as (bx, by):
            # Split the block to shared experts and routed experts
            input_shared = T.alloc_fragment((block_token, block_dhidden), dtype=dtype)
            W_gate_shared = T.alloc_shared((block_dexpert, block_dhidden), dtype=dtype)
            W_up_shared = T.alloc_shared((block_dexpert, block_dhidden), dtype=dtype)
            # Shared experts: no need to check expert_indices

            gate_logits_local = T.alloc_fragment((block_token, block_dexpert), dtype=accum_type)
            up_logits_local = T.alloc_fragment((block_token, block_dexpert), dtype=accum_type)

            T.use_swizzle(10)
            T.clear(gate_logits_local)
            T.clear(up_logits_local)

            # Parallel for gate and up matmul
            for k in T.Pipelined(T.ceildiv(dhidden, block_dhidden), num_stages=num_stages):
                T.copy(input[bx * block_token, k * block_dhidden], input_shared)
                T.copy(shared_W_gate[by * block_dexpert, k * block_dhidden], W_gate_shared)
                T.copy(shared_W_up[by * block_dexpert, k * block_dhidden], W_up_shared)
                T.gemm(input_shared, W_gate_shared, gate_logits_local, transpose_B=True)
                T.gemm(input_shared, W_up_shared, up_logits_local, transpose_B=True)

            # Fuse with SiLU and element-wise product
            for i, j in T.Parallel(block_token, block_dexpert):
                gate_logits_local[i, j] = gate_logits_local[i, j] * (
                    1.0 / (1.0 + T.exp2(-gate_logits_local[i, j] * scale)))
                up_logits_local[i, j] = up_logits_local[i, j] * gate_logits_local[i, j]

            T.copy(up_logits_local, up_logits[bx * block_token, by * block_dexpert])

        # Step 2: Compute down logits
        with T.Kernel(T.ceildiv(num_tokens, block_token), T.ceildiv(dhidden, block_dhidden),
                      threads=threads) as (bx, by):
            up_logits_shared = T.alloc_fragment((block_token, block_dexpert), dtype=dtype)
            W_down_shared = T.alloc_shared((block_dhidden, block_dexpert), dtype=dtype)
            output_local = T.alloc_fragment((block_token, block_dhidden), dtype=accum_type)

            T.use_swizzle(10)
            T.clear(output_local)

            for k in T.Pipelined(T.ceildiv(dexpert, block_dexpert), num_stages=num_stages):
                T.copy(up_logits[bx * block_token, k * block_dexpert], up_logits_shared)
                T.copy(shared_W_down[by * block_dhidden, k * block_dexpert], W_down_shared)
                T.gemm(up_logits_shared, W_down_shared, output_local, transpose_B=True)

            T.copy(output_local, output[bx * block_token, by * block_dhidden])

    return kernel_shared


@tilec.jit
def moe_forward_tilelang_routed(
    d_hidden,
    d_expert,
    n_routed_experts,
    dtype,
    group_sum,
    group_count,
    block_token=128,
    block_dhidden=128,
    block_dexpert=128,
    threads=256,
    num_stages=1,
):
    scale = 1.44269504  # log2(e)

    # Parameters
    dhidden = d_hidden
    dexpert = d_expert
    n_routed_experts = n_routed_experts

    # Group info
    # group_sum = sum(group_sizes_list)
    # group_count = len(group_sizes_list)
    # M = sum([(group_size + block_token - 1) // block_token for group_size in group_sizes_list])
    M = math.ceil(group_sum / block_token) + group_count
    accum_dtype = T.float32

    # Tensors: Note that input shape is reshape to (bs * seq_len * n_experts_per_token, dhidden)
    # for grouped gemm
    input_shape = (group_sum, dhidden)
    intermediate_shape = (group_sum, dexpert)
    routed_expert_gate_shape = (n_routed_experts, dexpert, dhidden)
    routed_expert_up_shape = (n_routed_experts, dexpert, dhidden)
    routed_expert_down_shape = (n_routed_experts, dhidden, dexpert)
    routed_expert_weights_shape = group_sum
    group_sizes_shape = n_routed_experts

    @T.prim_func
    def kernel(
        input: T.Tensor(input_shape, dtype),  # type: ignore
        routed_expert_gate: T.Tensor(routed_expert_gate_shape, dtype),  # type: ignore
        routed_expert_up: T.Tensor(routed_expert_up_shape, dtype),  # type: ignore
        routed_expert_down: T.Tensor(routed_expert_down_shape, dtype),  # type: ignore
        routed_expert_weights: T.Tensor(routed_expert_weights_shape, dtype),  # type: ignore
        group_sizes: T.Tensor(group_sizes_shape, T.int32),  # type: ignore
        group_offsets: T.Tensor(group_sizes_shape, T.int32),  # type: ignore
        group_padded_offsets: T.Tensor(group_sizes_shape, T.int32),  # type: ignore
        group_idx_for_bx: T.Tensor((M,), T.int32),  # type: ignore
        up_logits: T.Tensor(intermediate_shape, dtype),  # type: ignore
        output: T.Tensor(input_shape, dtype),  # type: ignore
    ):
        # Step 1: Compute gate and up logits
        with T.Kernel(M, T.ceildiv(dexpert, block_dexpert), threads=threads) as (bx, by):
            input_shared = T.alloc_fragment((block_token, block_dhidden), dtype=dtype)
            routed_expert_gate_shared = T.alloc_shared((block_dexpert, block_dhidden), dtype=dtype)
            routed_expert_up_shared = T.alloc_shared((block_dexpert, block_dhidden), dtype=dtype)

            gate_logits_local = T.alloc_fragment((block_token, block_dexpert), dtype=accum_dtype)
            up_logits_local = T.alloc_fragment((block_token, block_dexpert), dtype=accum_dtype)

            T.use_swizzle(10)

            m_start_padded = bx * block_token

            cur_group_idx = group_idx_for_bx[bx]

            cur_group_size = group_sizes[cur_group_idx]
            m_start = (m_start_padded - group_padded_offsets[cur_group_idx]
                       + group_offsets[cur_group_idx])
            actual_rows = T.max(0, T.min(block_token, cur_group_size - (
                m_start_padded - group_padded_offsets[cur_group_idx])))

            T.clear(gate_logits_local)
            T.clear(up_logits_local)

            for k in T.Pipelined(T.ceildiv(dhidden, block_dhidden), num_stages=num_stages):
                T.copy(
                    input[m_start : m_start + block_token,
                          k * block_dhidden : (k + 1) * block_dhidden],
                    input_shared,
                )
                T.copy(
                    routed_expert_gate[
                        cur_group_idx, by * block_dexpert : (by + 1) * block_dexpert,
                        k * block_dhidden : (k + 1) * block_dhidden,
                    ],
                    routed_expert_gate_shared,
                )
                T.gemm(input_shared, routed_expert_gate_shared, gate_logits_local, transpose_B=True)
                T.copy(
                    routed_expert_up[
                        cur_group_idx, by * block_dexpert : (by + 1) * block_dexpert,
                        k * block_dhidden : (k + 1) * block_dhidden,
                    ],
                    routed_expert_up_shared,
                )
                T.gemm(input_shared, routed_expert_up_shared, up_logits_local, transpose_B=True)

            for i, j in T.Parallel(block_token, block_dexpert):
                gate_logits_local[i, j] = gate_logits_local[i, j] * (
                    1.0 / (1.0 + T.exp2(-gate_logits_local[i, j] * scale)))
                up_logits_local[i, j] = up_logits_local[i, j] * gate_logits_local[i, j]

            for i, j in T.Parallel(block_token, block_dexpert):
                if i < actual_rows:
                    up_logits[m_start + i, by * block_dexpert + j] = up_logits_local[i, j]

        # Step 2: Compute down logits
        with T.Kernel(M, T.ceildiv(dhidden, block_dhidden), threads=threads) as (bx, by):
            up_logits_shared = T.alloc_fragment((block_token, block_dexpert), dtype=dtype)
            routed_expert_down_shared = T.alloc_shared((block_dhidden, block_dexpert), dtype=dtype)
            output_local = T.alloc_fragment((block_token, block_dhidden), dtype=accum_dtype)

            T.use_swizzle(10)

            m_start_padded = bx * block_token

            cur_group_idx = group_idx_for_bx[bx]

            cur_group_size = group_sizes[cur_group_idx]
            m_start = (m_start_padded - group_padded_offsets[cur_group_idx]
                       + group_offsets[cur_group_idx])
            actual_rows = T.max(0, T.min(block_token, cur_group_size - (
                m_start_padded - group_padded_offsets[cur_group_idx])))

            T.clear(output_local)

            for k in T.Pipelined(T.ceildiv(dexpert, block_dexpert), num_stages=num_stages):
                T.copy(
                    up_logits[m_start : m_start + block_token,
                              k * block_dexpert : (k + 1) * block_dexpert],
                    up_logits_shared,
                )
                T.copy(
                    routed_expert_down[
                        cur_group_idx, by * block_dhidden : (by + 1) * block_dhidden,
                        k * block_dexpert : (k + 1) * block_dexpert,
                    ],
                    routed_expert_down_shared,
                )
                T.gemm(up_logits_shared, routed_expert_down_shared, output_local, transpose_B=True)

            for i, j in T.Parallel(block_token, block_dhidden):
                if i < actual_rows:
                    output[m_start + i, by * block_dhidden + j] = (
                        output_local[i, j] * routed_expert_weights[m_start + i])

    return kernel


def silu(x):
    return x / (1.0 + np.exp(-x))


def gating(x, config, weights):
    """MoEGate: softmax over the router logits, the top-k experts and their scores."""
    logits = x.astype(np.float32) @ weights["router.weight"].astype(np.float32).T
    scores = np.exp(logits - logits.max(-1, keepdims=True))
    scores /= scores.sum(-1, keepdims=True)
    topk_indices = np.argsort(-scores, axis=-1)[..., : config["n_experts_per_token"]]
    return topk_indices, np.take_along_axis(scores, topk_indices, -1).astype(np.float16)


def moe_forward(x, weights, config, shared_kernel, routed_kernel, padding_M=128):
    """The example's MoE module (its __init__ and forward), in numpy."""
    n_experts = config["n_routed_experts"]
    num_tokens = config["batch_size"] * config["seq_len"]
    group_sum = num_tokens * config["n_experts_per_token"]
    def stacked(j):  # Expert's W_*_weight: the transposed weight, made contiguous
        return np.stack([weights[f"experts.{i}.{j}.weight"].T.copy() for i in range(n_experts)])

    stacked_expert_w_gate, stacked_expert_w_up, stacked_expert_w_down = (stacked(j)
                                                                        for j in range(3))
    stacked_expert_tokens = np.empty((group_sum, config["d_hidden"]), np.float16)
    stacked_expert_weights = np.empty(group_sum, np.float16)
    stacked_expert_tokens_idxs = np.empty(group_sum, np.int64)
    up_logits_shared = np.empty((num_tokens, config["d_expert"] * config["n_shared_experts"]),
                                np.float16)
    expert_output_shared = np.empty((num_tokens, config["d_hidden"]), np.float16)
    up_logits_routed = np.empty((group_sum, config["d_expert"]), np.float16)
    expert_output_routed = np.empty((group_sum, config["d_hidden"]), np.float16)

    orig_shape = x.shape
    hidden_dim = x.shape[-1]
    expert_indices, expert_scores = gating(x, config, weights)
    flat_expert_indices = expert_indices.reshape(-1)
    flat_expert_weights = expert_scores.reshape(-1)
    x_flat = x.reshape(-1, hidden_dim)

    # Prepare for grouped GEMM
    idxs = flat_expert_indices.argsort(kind="stable")
    counts = np.bincount(flat_expert_indices, minlength=n_experts)
    tokens_per_expert = counts.cumsum()
    token_idxs = idxs // config["n_experts_per_token"]
    for expert_id, end_idx in enumerate(tokens_per_expert):
        start_idx = 0 if expert_id == 0 else tokens_per_expert[expert_id - 1]
        if start_idx == end_idx:
            continue
        exp_token_idxs = token_idxs[start_idx:end_idx]
        stacked_expert_tokens[start_idx:end_idx] = x_flat[exp_token_idxs]
        stacked_expert_tokens_idxs[start_idx:end_idx] = exp_token_idxs
        stacked_expert_weights[start_idx:end_idx] = flat_expert_weights[idxs[start_idx:end_idx]]

    group_sizes = counts.astype(np.int32)
    group_offset = (tokens_per_expert - counts).astype(np.int32)
    group_padded_offsets = [0 for _ in range(len(group_sizes))]
    for i in range(1, len(group_sizes)):
        group_padded_offsets[i] = (group_padded_offsets[i - 1]
                                   + math.ceil((counts[i - 1] + 1) / padding_M) * padding_M)
    block_token = 128
    M = math.ceil(group_sum / block_token) + n_experts
    group_idx_for_bx = [0 for _ in range(M)]
    for bx in range(M):
        m_start_padded = bx * block_token
        for i in range(n_experts):
            if m_start_padded >= group_padded_offsets[i]:
                group_idx_for_bx[bx] = i
    group_padded_offsets = np.array(group_padded_offsets, np.int32)
    group_idx_for_bx = np.array(group_idx_for_bx, np.int32)

    routed_kernel(stacked_expert_tokens, stacked_expert_w_gate, stacked_expert_w_up,
                  stacked_expert_w_down, stacked_expert_weights, group_sizes, group_offset,
                  group_padded_offsets, group_idx_for_bx, up_logits_routed,
                  expert_output_routed)
    # Scatter reduce
    expert_cache = np.zeros((num_tokens, hidden_dim), np.float32)
    np.add.at(expert_cache, stacked_expert_tokens_idxs, expert_output_routed.astype(np.float32))
    routed_output = expert_cache.reshape(orig_shape)

    shared_kernel(x_flat, weights["shared_experts.0.weight"].T.copy(),
                  weights["shared_experts.1.weight"].T.copy(),
                  weights["shared_experts.2.weight"].T.copy(), up_logits_shared,
                  expert_output_shared)
    shared_output = expert_output_shared.reshape(orig_shape)
    return shared_output.astype(np.float32) + routed_output


def reference(x, weights, config):
    """example_fusedmoe_torch.py's MoETorch in float32."""
    def expert(t, prefix):
        gate, up, down = (weights[f"{prefix}.{i}.weight"].astype(np.float32) for i in range(3))
        return (silu(t @ gate) * (t @ up)) @ down

    x_flat = x.reshape(-1, x.shape[-1]).astype(np.float32)
    out = expert(x_flat, "shared_experts")
    expert_indices, expert_scores = gating(x, config, weights)
    expert_indices = expert_indices.reshape(len(x_flat), -1)
    expert_scores = expert_scores.reshape(len(x_flat), -1).astype(np.float32)
    for e in range(config["n_routed_experts"]):
        tok, slot = np.nonzero(expert_indices == e)
        out[tok] += expert(x_flat[tok], f"experts.{e}") * expert_scores[tok, slot, None]
    return out.reshape(x.shape)


def generate_input(d_hidden, d_expert, n_routed_experts, n_shared_experts, n_experts_per_token,
                   batch_size, seq_len, seed):
    """generate_input of example_fusedmoe_torch.py, with numpy's generator."""
    config = {
        "d_hidden": d_hidden,
        "d_expert": d_expert,
        "n_routed_experts": n_routed_experts,
        "n_shared_experts": n_shared_experts,
        "n_experts_per_token": n_experts_per_token,
        "batch_size": batch_size,
        "seq_len": seq_len,
    }
    rng = np.random.default_rng(seed)

    def randn(shape, fan):
        return (rng.standard_normal(shape) / math.sqrt(fan)).astype(np.float16)

    x = rng.standard_normal((batch_size, seq_len, d_hidden)).astype(np.float16)
    weights = {"router.weight": randn((n_routed_experts, d_hidden), d_hidden)}
    for i in range(n_routed_experts):
        weights[f"experts.{i}.0.weight"] = randn((d_hidden, d_expert), d_expert)
        weights[f"experts.{i}.1.weight"] = randn((d_hidden, d_expert), d_expert)
        weights[f"experts.{i}.2.weight"] = randn((d_expert, d_hidden), d_hidden)
    shared_dim = d_expert * n_shared_experts
    weights["shared_experts.0.weight"] = randn((d_hidden, shared_dim), shared_dim)
    weights["shared_experts.1.weight"] = randn((d_hidden, shared_dim), shared_dim)
    weights["shared_experts.2.weight"] = randn((shared_dim, d_hidden), d_hidden)
    return x, weights, config


@pytest.mark.parametrize(("d_hidden", "d_expert", "n_shared_experts", "seq_len"), [
    (200, 96, 1, 100),  # ragged
    (256, 128, 2, 256),  # aligned (groups of more than block_token rows)
])
def test_fusedmoe(d_hidden, d_expert, n_shared_experts, seq_len):
    x, weights, config = generate_input(d_hidden, d_expert, n_routed_experts=8,
                                        n_shared_experts=n_shared_experts,
                                        n_experts_per_token=4, batch_size=1, seq_len=seq_len,
                                        seed=81394)
    dtype_str = T.float16
    shared_kernel = moe_forward_tilelang_shared(
        config["d_hidden"],
        config["d_expert"],
        config["n_shared_experts"],
        dtype=dtype_str,
        num_tokens=config["batch_size"] * config["seq_len"],
    )
    routed_kernel = moe_forward_tilelang_routed(
        config["d_hidden"],
        config["d_expert"],
        config["n_routed_experts"],
        dtype=dtype_str,
        group_sum=config["batch_size"] * config["seq_len"] * config["n_experts_per_token"],
        group_count=config["n_routed_experts"],
        block_token=128,
        block_dhidden=128,
        block_dexpert=128,
        threads=256,
        num_stages=1,
    )
    out = moe_forward(x, weights, config, shared_kernel, routed_kernel, padding_M=128)
    np.testing.assert_allclose(out, reference(x, weights, config), rtol=1e-2, atol=1e-2)
