"""Intrinsics of the AscendC CPU model (tilec.backends.ascend.cpu_model) that no kernel tilec
emits reaches: each through a small AscendC kernel written here, whose class-API calls the
vendor's headers (`ASCEND_DEVKIT`) turn into the intrinsic, run by `run_source` and checked
against numpy with the ISA's masks, repeats and strides.

- ReduceDataBlock (BlockReduceSum / Max / Min: vcgadd / vcgmax / vcgmin) and ReducePairElem
  (PairReduceSum: vcpadd), under a bit mask that leaves a whole block out (the 910b keeps
  that block's destination element, the 950 writes 0, -inf or inf: ReduceDataBlock.md)
  and parts of others; on the 950 the register-level forms of the same intrinsics;
- Compares with a scalar (vcmpvs_* on the 910b, vcmps_* on the 950): a bit per lane,
  repeats back to back;
- the 950's copies between a block's AIC and AIVs: UB -> L1 (copy_ubuf_to_cbuf, MTE3 of an
  AIV, into its AIC's L1) and L1 -> UB (copy_cbuf_to_ubuf, MTE1 of the AIC, into the UB of
  the AIV its subBlockId names), bursts of 32-byte blocks with source gaps, handed over
  with the 950's cross-core mode 4 (an AIC and one AIV: the AIC's flag 16 + id is AIV 1's).
"""

from __future__ import annotations

import numpy as np
import pytest
from vendor_headers import needs_devkit

from tilec.backends.ascend.cpu_model import run_source

pytestmark = pytest.mark.e2e

LANES = 64
"""f32 lanes of one 256-byte repeat."""
REPEATS = 4
MASK = (1 << 64) - 1 & ~(0xFF << 24) & ~(0b1011 << 42)
"""Lanes 24-31 (block 3) off entirely, and lanes 42, 43, 45 of block 5."""
SENTINEL = 7.0
"""What the destination holds before the reductions (block 3 keeps it)."""

GROUP_REDUCTIONS = f"""
using namespace AscendC;

extern "C" __global__ __aicore__ void group_reductions(GM_ADDR x, GM_ADDR sums, GM_ADDR maxes,
                                                       GM_ADDR mins, GM_ADDR pairs, GM_ADDR bits)
{{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
    GlobalTensor<float> x_gm;
    x_gm.SetGlobalBuffer((__gm__ float*)x);
    GlobalTensor<float> outs[4];
    outs[0].SetGlobalBuffer((__gm__ float*)sums);
    outs[1].SetGlobalBuffer((__gm__ float*)maxes);
    outs[2].SetGlobalBuffer((__gm__ float*)mins);
    outs[3].SetGlobalBuffer((__gm__ float*)pairs);
    GlobalTensor<uint8_t> bits_gm;
    bits_gm.SetGlobalBuffer((__gm__ uint8_t*)bits);
    TPipe pipe;
    TBuf<TPosition::VECCALC> ub_buf;
    pipe.InitBuffer(ub_buf, 8192);
    LocalTensor<uint8_t> ub = ub_buf.Get<uint8_t>();
    LocalTensor<float> xs = ub[0].ReinterpretCast<float>();
    LocalTensor<float> reduced[4] = {{ub[1024].ReinterpretCast<float>(),
                                      ub[1152].ReinterpretCast<float>(),
                                      ub[1280].ReinterpretCast<float>(),
                                      ub[1408].ReinterpretCast<float>()}};
    LocalTensor<uint8_t> compared = ub[2048];  // reduced[3] holds 2 x 128 B
    DataCopy(xs, x_gm, {REPEATS * LANES});
    SetFlag<HardEvent::MTE2_V>(0);
    WaitFlag<HardEvent::MTE2_V>(0);
    Duplicate(reduced[0], {SENTINEL}f, 96);
    PipeBarrier<PIPE_V>();
    uint64_t mask[2] = {{{MASK}ull, 0}};
    ReduceDataBlock<ReduceType::SUM>(reduced[0], xs, mask, {REPEATS}, 1, 1, 8);
    ReduceDataBlock<ReduceType::MAX>(reduced[1], xs, mask, {REPEATS}, 1, 1, 8);
    ReduceDataBlock<ReduceType::MIN>(reduced[2], xs, mask, {REPEATS}, 1, 1, 8);
    // two repeats of pairs, the second repeat's source 16 blocks on (repeats 2 and 3 of x)
    ReducePairElem<ReduceType::SUM>(reduced[3], xs, {LANES}, 2, 1, 1, 16);
    UnaryRepeatParams params;
    Compares(compared, xs, 0.5f, CMPMODE::GT, static_cast<uint64_t>({LANES}), {REPEATS}, params);
    SetFlag<HardEvent::V_MTE3>(0);
    WaitFlag<HardEvent::V_MTE3>(0);
    for (int i = 0; i < 3; ++i) DataCopy(outs[i], reduced[i], 32);
    DataCopy(outs[3], reduced[3], {LANES});
    DataCopy(bits_gm, compared, 32);
}}
"""


def _blocks(x: np.ndarray, op, empty: float) -> np.ndarray:
    """`op` over each 8-lane block's enabled lanes, per repeat; `empty` where none is."""
    enabled = np.array([(MASK >> i) & 1 for i in range(LANES)], bool)
    out = np.full((REPEATS, 8), empty, np.float32)
    for r in range(REPEATS):
        for b in range(8):
            lanes = x[r * LANES + 8 * b: r * LANES + 8 * b + 8][enabled[8 * b: 8 * b + 8]]
            if lanes.size:
                out[r, b] = op(lanes)
    return out.reshape(-1)


EMPTY_BLOCK = {2201: (SENTINEL, SENTINEL, SENTINEL), 3510: (0.0, -np.inf, np.inf)}
"""What a block with no enabled lane gives (sum, max, min) per arch (ReduceDataBlock.md)."""


@needs_devkit
@pytest.mark.parametrize("arch", [2201, pytest.param(3510, marks=pytest.mark.slow)])
def test_block_and_pair_reductions_and_scalar_compares(arch):
    rng = np.random.default_rng(6)
    x = (rng.integers(-16, 17, REPEATS * LANES) / 4).astype(np.float32)  # sums exact
    outs = [np.zeros(32, np.float32) for _ in range(3)] + [np.zeros(LANES, np.float32)]
    bits = np.zeros(32, np.uint8)
    run_source(GROUP_REDUCTIONS, arch, 1, [x, *outs, bits])
    sums, maxes, mins, pairs = outs
    empty = EMPTY_BLOCK[arch]
    assert np.array_equal(sums, _blocks(x, np.sum, empty[0]))
    assert np.array_equal(maxes, _blocks(x, np.max, empty[1]))
    assert np.array_equal(mins, _blocks(x, np.min, empty[2]))
    # repeat 0 pairs lanes 0-63, repeat 1 (16 blocks on) lanes 128-191
    chosen = np.concatenate([x[:LANES], x[2 * LANES: 3 * LANES]])
    assert np.array_equal(pairs, chosen[0::2] + chosen[1::2])
    assert np.array_equal(bits, np.packbits(x > 0.5, bitorder="little"))



L1_UB_COPIES = """
using namespace AscendC;

extern "C" __global__ __aicore__ void l1_ub_copies(GM_ADDR x, GM_ADDR y)
{
    KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
    GlobalTensor<float> x_gm;
    x_gm.SetGlobalBuffer((__gm__ float*)x);
    GlobalTensor<float> y_gm;
    y_gm.SetGlobalBuffer((__gm__ float*)y);
    TPipe pipe;
    TBuf<TPosition::A1> l1_buf;
    pipe.InitBuffer(l1_buf, 2048);
    TBuf<TPosition::VECCALC> ub_buf;
    pipe.InitBuffer(ub_buf, 2048);
    LocalTensor<float> l1 = l1_buf.Get<float>();
    LocalTensor<float> ub = ub_buf.Get<float>();
    DataCopyParams whole;
    whole.blockCount = 1;
    whole.blockLen = 16;
    whole.srcStride = 0;
    whole.dstStride = 0;
    if ASCEND_IS_AIV {
        int64_t sub = GetSubBlockIdx();
        DataCopy(ub, x_gm[sub * 128], 128);
        SetFlag<HardEvent::MTE2_MTE3>(0);
        WaitFlag<HardEvent::MTE2_MTE3>(0);
        DataCopy(l1[sub * 128], ub, whole);  // this AIV's 128 elements into rows of the AIC's L1
        CrossCoreSetFlag<4, PIPE_MTE3>(0);  // mode 4: to the AIC, as flag 16 * sub
        CrossCoreWaitFlag<4, PIPE_MTE3>(1);
        DataCopy(y_gm[sub * 64], ub[256], 64);  // what the AIC copied into this UB
    }
    if ASCEND_IS_AIC {
        CrossCoreWaitFlag<4, PIPE_MTE1>(0);  // AIV 0's
        CrossCoreWaitFlag<4, PIPE_MTE1>(16);  // AIV 1's
        DataCopyParams wide;  // 4 bursts of 2 blocks, 2 blocks skipped after each
        wide.blockCount = 4;
        wide.blockLen = 2;
        wide.srcStride = 2;
        wide.dstStride = 0;
        DataCopyParams narrow;  // 8 bursts of 1 block, 1 skipped
        narrow.blockCount = 8;
        narrow.blockLen = 1;
        narrow.srcStride = 1;
        narrow.dstStride = 0;
        DataCopyL1ToUB<float, 0>(ub[256], l1[128], wide);  // AIV 0 gets AIV 1's elements
        DataCopyL1ToUB<float, 1>(ub[256], l1, narrow);
        CrossCoreSetFlag<4, PIPE_MTE1>(1);  // to AIV 0
        CrossCoreSetFlag<4, PIPE_MTE1>(17);  // to AIV 1
    }
}
"""


@pytest.mark.slow
@needs_devkit
def test_copies_between_l1_and_the_aivs_ubs_on_the_950():
    x = np.arange(256, dtype=np.float32) - 100
    y = np.zeros(128, np.float32)
    run_source(L1_UB_COPIES, 3510, 1, [x, y])
    second = x[128:].reshape(4, 32)[:, :16].reshape(-1)  # 16 of every 32 elements
    first = x[:128].reshape(8, 16)[:, :8].reshape(-1)  # 8 of every 16
    assert np.array_equal(y, np.concatenate([second, first]))
