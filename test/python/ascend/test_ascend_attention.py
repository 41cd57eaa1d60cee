"""Kernels whose cube and vector work alternate inside a loop, on the mix
split of tile-ascend-split-cores: flash attention (examples/flash_attention.py)
and a small chain of gemms with a vector step between them. Every handoff is
a ring of GM workspace slots with "ready" and "free" cross-core flags; the
simulator fails a run on a race, a deadlock or a flag set no wait consumed,
so each case checks the protocol as well as the numbers. The shapes give
loops of fewer trips than the ring has slots, trip counts that are not a
multiple of it, causal loops whose trip count differs per block, loops that
start at a non-zero index, zero-trip loops, and grids that give an AI core
several blocks."""

import re

import numpy as np
import pytest
from example_kernels import example

import tilec
import tilec.language as T
from tilec.sim import simulate
from tilec.targets import AscendTarget

pytestmark = pytest.mark.e2e

PROFILES = list(AscendTarget.variants)


def _dtype(name: str) -> np.dtype:
    if name == "bfloat16":
        import ml_dtypes

        return np.dtype(ml_dtypes.bfloat16)
    return np.dtype(name)


def _attention(profile, batch, heads, seq_len, dim, *, causal, dtype="float32", heads_kv=None,
               block_dim=None, dynamic_seq=False, **tiles):
    """Runs the example on the ascend target: (max abs error, the kernel)."""
    fa = example("flash_attention")
    heads_kv = heads if heads_kv is None else heads_kv
    rng = np.random.default_rng(seq_len * dim + heads)
    q = rng.standard_normal((batch, heads, seq_len, dim)).astype(_dtype(dtype))
    k, v = (rng.standard_normal((batch, heads_kv, seq_len, dim)).astype(_dtype(dtype))
            for _ in range(2))
    out = np.zeros_like(q)
    length = T.symbolic("S") if dynamic_seq else seq_len
    options = {"block_dim": block_dim} if block_dim else {}
    kernel = tilec.compile(
        fa.flash_attention(batch, heads, length, dim, causal=causal, dtype=dtype,
                           heads_kv=heads_kv, **tiles),
        target="ascend", profile=profile, **options)
    kernel(q, k, v, out)
    reference = fa.reference(q, k, v, causal)
    return float(np.max(np.abs(out.astype(np.float32) - reference))), kernel


def _check_report(kernel) -> None:
    report = kernel.report()
    assert report.ok and not report.races and not report.deadlocks
    assert report.cube_utilization > 0 and report.vector_utilization > 0
    # Both AIVs of every AI core that got a block did vector work.
    cycles = report.core_cycles
    busy = [name.removesuffix(" aic") for name in cycles if name.endswith("aic") and cycles[name]]
    assert busy and all(cycles[f"{block} aiv{sub}"] > 0 for block in busy for sub in (0, 1))
    # A core waits for the other kind at most all of its cycles, however many
    # of its pipes wait at once.
    for kind in ("aic", "aiv"):
        own = [c for name, c in cycles.items() if name.split()[-1].startswith(kind)]
        assert 0 < report.cross_wait_cycles.get(kind, 0) <= sum(own)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("shape", "variant", "tolerance"),
    [
        # 2 key tiles: as many as the ring has slots.
        ((1, 2, 64, 32), {"causal": False, "block_M": 32, "block_N": 32}, 1e-5),
        # Ragged: 3 key tiles (not a multiple of the slots), the causal loop 1..3 trips.
        ((1, 1, 40, 32), {"causal": True, "dtype": "float16", "block_M": 16, "block_N": 16},
         2e-3),
        # One key tile: fewer trips than slots.
        ((1, 1, 20, 32), {"causal": True, "block_M": 32, "block_N": 32}, 1e-5),
        # GQA (2 query heads per key/value head), causal, f16, dim 64.
        ((1, 4, 70, 64), {"causal": True, "dtype": "float16", "heads_kv": 2, "block_M": 32,
                          "block_N": 32}, 2e-3),
        ((1, 2, 50, 32), {"causal": False, "dtype": "bfloat16", "block_M": 32, "block_N": 16},
         2e-2),
        # A symbolic sequence length and the example's own 64 x 64 tiles.
        ((2, 1, 100, 32), {"causal": True, "dynamic_seq": True}, 1e-5),
        # One AI core runs all 6 blocks (several rings in a row on one core).
        ((1, 3, 40, 32), {"causal": True, "block_dim": 1, "block_M": 32, "block_N": 16}, 1e-5),
        # Not pipelined (num_stages 1).
        ((1, 1, 48, 32), {"causal": False, "num_stages": 1, "block_M": 16, "block_N": 16}, 1e-5),
    ],
)
def test_flash_attention(profile, shape, variant, tolerance):
    error, kernel = _attention(profile, *shape, **variant)
    assert error <= tolerance
    _check_report(kernel)


def test_the_attention_kernel_hands_three_tiles_over_in_its_loop():
    _, kernel = _attention("910b", 1, 1, 64, 32, causal=False, block_M=32, block_N=32)
    text = kernel.ir(kernel.stages()[-1])
    assert "ascend.kernel = #ascend.core<mix>" in text
    # S (32 x 32 f32) and the P V product (32 x 32 f32) down, P (f32 here) up:
    # three workspaces of 2 slots x 32 rows per AI core.
    assert text.count("{ascend.workspace = 64 : i64}") == 3
    # Ring r: "ready" 2r, "free" 2r + 1; S and P V fixpipe into theirs, the AIVs
    # copy P out of UB (MTE3), the AIC reads P into L1 (MTE2).
    for ready, free, producer in ((0, 1, "fix"), (2, 3, "mte3"), (4, 5, "fix")):
        assert f"ascend.cross_core_set_flag mode 2, {producer}, {ready}" in text
        assert f"ascend.cross_core_wait_flag {ready}, mte2" in text
        assert f"ascend.cross_core_set_flag mode 2, mte2, {free}" in text
        assert f"ascend.cross_core_wait_flag {free}, {producer}" in text
    for reserved in range(11, 15):  # ascend.sync_all's
        assert f", {reserved}\n" not in text.replace("wait_flag", "")


def gemm_chain(M, N, K, steps, *, start=0, dtype="float16", block_M=32):
    """For k in [start, steps): acc = (acc + A B_k) / 2 on the vector cores,
    out += cast(acc) W_k on the cube, acc handed up as the A operand of the
    second gemm. Returns the kernel; acc and out are both outputs."""

    @T.prim_func
    def kernel(A: T.Tensor((M, K), dtype), B: T.Tensor((steps, K, N), dtype),
               W: T.Tensor((steps, N, N), dtype), Acc: T.Tensor((M, N), "float32"),
               Out: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            A_s = T.alloc_shared((block_M, K), dtype)
            B_s = T.alloc_shared((K, N), dtype)
            W_s = T.alloc_shared((N, N), dtype)
            P_s = T.alloc_shared((block_M, N), dtype)
            acc = T.alloc_fragment((block_M, N), "float32")
            out = T.alloc_fragment((block_M, N), "float32")
            T.copy(A[bx * block_M, 0], A_s)
            T.clear(acc)
            T.clear(out)
            for k in T.Pipelined(start, steps, num_stages=2):
                T.copy(B[k, 0, 0], B_s)
                T.gemm(A_s, B_s, acc)
                for i, j in T.Parallel(block_M, N):
                    acc[i, j] = acc[i, j] * 0.5
                T.copy(acc, P_s)
                T.copy(W[k, 0, 0], W_s)
                T.gemm(P_s, W_s, out)
            T.copy(acc, Acc[bx * block_M, 0])
            T.copy(out, Out[bx * block_M, 0])

    return kernel


def _chain_reference(A, B, W, start, rounding):
    acc = np.zeros((A.shape[0], B.shape[2]), np.float32)
    out = np.zeros_like(acc)
    for k in range(start, B.shape[0]):
        acc = (acc + A.astype(np.float32) @ B[k].astype(np.float32)) * 0.5
        out += acc.astype(rounding).astype(np.float32) @ W[k].astype(np.float32)
    return acc, out


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("M", "steps", "start", "block_dim"),
    [
        (64, 5, 0, None),  # 5 trips: not a multiple of the 2 slots
        (70, 4, 3, None),  # starts at 3: one trip, fewer than the slots; ragged M
        (96, 4, 1, 1),     # one AI core, 3 blocks of 3 trips each
        (32, 3, 3, None),  # zero trips: no flag set, none waited for
    ],
)
def test_handoffs_in_a_loop(profile, M, steps, start, block_dim):
    N, K = 32, 48
    options = {"block_dim": block_dim} if block_dim else {}
    kernel = tilec.compile(gemm_chain(M, N, K, steps, start=start), target="ascend",
                           profile=profile, **options)
    rng = np.random.default_rng(M + steps + start)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((steps, K, N)).astype(np.float16)
    W = rng.standard_normal((steps, N, N)).astype(np.float16)
    acc, out = np.zeros((M, N), np.float32), np.full((M, N), np.nan, np.float32)
    kernel(A, B, W, acc, out)
    want_acc, want_out = _chain_reference(A, B, W, start, np.float16)
    assert np.abs(acc - want_acc).max() <= 1e-4 * max(1.0, np.abs(want_acc).max())
    if start < steps:
        scale = max(1.0, float(np.abs(want_out).max()))
        assert np.abs(out - want_out).max() <= 1e-3 * scale
    report = kernel.report()
    assert report.ok and not report.races and not report.deadlocks
    if start < steps:
        assert report.cube_utilization > 0 and report.vector_utilization > 0



def _simulate_attention(text: str, causal: bool):
    """Runs the ascend IR of a 1 x 1 x 64 x 32 attention with 32 x 32 tiles on one AI core."""
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((1, 1, 64, 32)).astype(np.float32) for _ in range(3))
    workspaces = [np.zeros((64, 32), np.float32) for _ in range(3)]
    result = simulate(text, [q, k, v, np.zeros_like(q), *workspaces], profile="910b",
                      block_dim=1)
    out = list(result.outputs.values())[3]
    error = np.abs(out - example("flash_attention").reference(q, k, v, causal)).max()
    return result, float(error)


@pytest.mark.parametrize("causal", [False, True])
def test_the_drain_after_the_loop_consumes_every_free_flag(causal):
    """The producer of the S ring takes the "free" sets of its last uses after
    the loop; without that the sets are still pending when the kernel ends
    (and a later block could overwrite a slot the AIVs still read)."""
    kernel = tilec.compile(example("flash_attention").flash_attention(
        1, 1, 64, 32, causal=causal, block_M=32, block_N=32), target="ascend", profile="910b")
    text = kernel.ir(kernel.stages()[-1])
    result, error = _simulate_attention(text, causal)
    assert result.ok and error <= 1e-5
    drain = re.compile(r"scf\.for [^\n]*\{\n\s*ascend\.cross_core_wait_flag 1, fix[^\n]*\n\s*\}\n")
    broken = drain.sub("", text)
    assert broken != text
    result, _ = _simulate_attention(broken, causal)
    assert not result.ok
    assert any("cross-core flag 1" in str(d) for d in result.diagnostics)


def test_the_ready_flag_of_p_orders_the_second_gemm():
    """Without the AIC's wait for P, the second gemm reads a slot the AIVs have
    not written yet: a race (or wrong numbers), never a clean run."""
    kernel = tilec.compile(example("flash_attention").flash_attention(
        1, 1, 64, 32, causal=False, block_M=32, block_N=32), target="ascend", profile="910b")
    text = kernel.ir(kernel.stages()[-1])
    broken = re.sub(r"ascend\.cross_core_wait_flag 2, mte2[^\n]*\n", "", text)
    assert broken != text
    result, error = _simulate_attention(broken, False)
    assert not result.ok or error > 1e-3


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("shape", "dtype", "tolerance"),
    [((1, 16, 100, 64, 32), "float16", 2e-3), ((2, 32, 130, 64, 32), "bfloat16", 1e-2)],
)
def test_mla_decode(profile, shape, dtype, tolerance):
    """examples/mla_decode.py (one split): the latent KV tile is both gemms'
    operand on the AIC, the online softmax over the heads runs on the AIVs."""
    batch, heads, seqlen_kv, dim, pe_dim = shape
    error = example("mla_decode").check(batch, heads, seqlen_kv, dim, pe_dim, dtype=dtype,
                                        target=f"ascend:{profile}")
    assert error <= tolerance
