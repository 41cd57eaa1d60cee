"""The attention examples for grouped-query attention (examples/flash_attention.py with
heads_kv < heads) and DeepSeek MLA decode (examples/mla_decode.py), compiled for cpu and
checked against numpy on sequence lengths and head counts that are not multiples of the
tiles. The float32 tolerances are tight enough that dropping the online-softmax rescale,
the rotary score gemm, the mask or the split merge fails them."""

import pytest
from example_kernels import example


@pytest.mark.parametrize(
    ("shape", "heads_kv", "causal", "dtype", "dynamic_seq", "tolerance"),
    [
        ((1, 4, 100, 32), 2, False, "float32", False, 1e-5),
        ((1, 4, 100, 32), 2, True, "float32", False, 1e-5),
        ((2, 6, 70, 16), 1, True, "float32", False, 1e-5),
        ((1, 6, 50, 16), 3, False, "float32", True, 1e-5),
        ((1, 8, 90, 32), 2, False, "float16", False, 2e-3),
    ],
)
def test_gqa_flash_attention(shape, heads_kv, causal, dtype, dynamic_seq, tolerance):
    error = example("flash_attention").check(
        *shape, causal=causal, dtype=dtype, dynamic_seq=dynamic_seq, heads_kv=heads_kv,
        block_M=32, block_N=32,
    )
    assert error <= tolerance


@pytest.mark.parametrize(
    ("shape", "window", "dynamic_seq"),
    [((1, 2, 100, 32), 20, False), ((2, 1, 130, 16), 7, True), ((1, 1, 64, 16), 1, False)],
)
def test_sliding_window_attention(shape, window, dynamic_seq):
    """With 32-row blocks and windows shorter than a block, the first key tile of
    a block is all masked for its later rows: their running max is -inf there,
    and the online softmax must not turn it into NaN (2 ** (-inf + inf))."""
    error = example("flash_attention").check(
        *shape, causal=True, window=window, dynamic_seq=dynamic_seq, block_M=32, block_N=32,
    )
    assert error <= 1e-5


def test_gqa_heads_kv_must_divide_heads():
    with pytest.raises(ValueError, match="heads_kv=3 must divide heads=4"):
        example("flash_attention").flash_attention(1, 4, 64, 32, causal=False, heads_kv=3)


# (batch, heads, seqlen_kv), dim 64 and pe_dim 16, 8-head blocks and 32-key tiles: heads
# 12 leave a partial head block, 130 keys a partial key tile; 4 splits of 130 keys leave
# the last split empty (5 tiles, 2 a split).
@pytest.mark.parametrize(
    ("shape", "num_split", "dtype", "dynamic_seq", "tolerance"),
    [
        ((2, 8, 50), 1, "float32", False, 1e-5),
        ((1, 12, 130), 1, "float32", True, 1e-5),
        ((2, 8, 100), 2, "float32", False, 1e-5),
        ((1, 12, 130), 4, "float32", True, 1e-5),
        ((1, 8, 77), 3, "float16", False, 2e-3),
        ((1, 8, 64), 2, "bfloat16", False, 2e-2),
    ],
)
def test_mla_decode(shape, num_split, dtype, dynamic_seq, tolerance):
    error = example("mla_decode").check(
        *shape, 64, 16, dtype=dtype, num_split=num_split, dynamic_seq=dynamic_seq,
        block_H=8, block_N=32,
    )
    assert error <= tolerance


def test_mla_decode_softmax_scale():
    """A scale other than 1 / sqrt(dim + pe_dim) reaches the scores (sharper softmax)."""
    error = example("mla_decode").check(
        1, 8, 90, 64, 16, dtype="float32", num_split=2, block_H=8, block_N=32,
        softmax_scale=0.3,
    )
    assert error <= 1e-5
