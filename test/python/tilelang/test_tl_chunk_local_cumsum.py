"""TileLang's examples/gdn/example_cumsum.py (`tilelang_chunk_local_cumsum_scalar`): the
chunk-local prefix sum of gated DeltaNet, G_new = cumsum of G within each chunk of
chunk_size positions along the sequence, forward or reverse, for (B, S, H) or head-first
(B, H, S) layouts, float16 in and float32 out. A chunk of one (batch, head) is copied as a
1-D slice of G into a (1, block_S) tile allocated with `scope="shared"`, summed with
T.cumsum along dim 1 (in shared memory, or in a fragment with `use_fragment`), and copied
back. The fla reference is replaced by numpy."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[-1])
def tilelang_chunk_local_cumsum_scalar(
    # task config
    B,
    S,
    H,
    chunk_size=64,
    is_varlen=False,
    head_first=False,
    reverse=False,
    input_dtype=T.float16,
    output_dtype=T.float32,
    # kernel config
    block_S=64,
    threads=256,
    use_fragment=False,
):
    G_shape = (B, H, S) if head_first else (B, S, H)
    assert chunk_size == 2 ** (chunk_size.bit_length() - 1), "chunk_size must be a power of 2"
    assert chunk_size == block_S, "chunk_size must be equal to block_S"

    @T.prim_func
    def kernel(
        G: T.Tensor(G_shape, dtype=input_dtype),
        G_new: T.Tensor(G_shape, dtype=output_dtype),
    ):
        with T.Kernel(T.ceildiv(S, block_S), B * H, threads=threads) as (bs, bbh):
            bb, bh = bbh // H, bbh % H
            G_shared = T.alloc_shared((1, block_S), dtype=output_dtype, scope="shared")
            if head_first:
                T.copy(G[bb, bh, bs * block_S : (bs + 1) * block_S], G_shared)
            else:
                T.copy(G[bb, bs * block_S : (bs + 1) * block_S, bh], G_shared)
            if use_fragment:
                G_fragment = T.alloc_fragment((1, block_S), dtype=output_dtype, scope="shared")
                T.copy(G_shared, G_fragment)
                T.cumsum(G_fragment, dim=1, reverse=reverse)
                if head_first:
                    T.copy(G_fragment, G_new[bb, bh, bs * block_S : (bs + 1) * block_S])
                else:
                    T.copy(G_fragment, G_new[bb, bs * block_S : (bs + 1) * block_S, bh])
            else:
                T.cumsum(G_shared, dim=1, reverse=reverse)
                if head_first:
                    T.copy(G_shared, G_new[bb, bh, bs * block_S : (bs + 1) * block_S])
                else:
                    T.copy(G_shared, G_new[bb, bs * block_S : (bs + 1) * block_S, bh])

    return kernel


def ref_chunk_local_cumsum(g, chunk_size, reverse, head_first):
    g = g.astype(np.float32)
    if not head_first:
        g = g.transpose(0, 2, 1)  # (B, H, S)
    out = np.empty_like(g)
    for start in range(0, g.shape[2], chunk_size):
        chunk = g[:, :, start : start + chunk_size]
        if reverse:
            out[:, :, start : start + chunk_size] = np.cumsum(chunk[..., ::-1], -1)[..., ::-1]
        else:
            out[:, :, start : start + chunk_size] = np.cumsum(chunk, -1)
    return out if head_first else out.transpose(0, 2, 1)


@pytest.mark.parametrize(
    ("reverse", "head_first", "use_fragment"),
    [
        (True, False, False),
        (False, True, True),
    ],
)
@pytest.mark.parametrize(("B", "S", "H"), [(2, 150, 3), (1, 256, 2)])  # ragged S, aligned
def test_chunk_local_cumsum(B, S, H, reverse, head_first, use_fragment):
    shape = (B, H, S) if head_first else (B, S, H)
    g = np.random.default_rng(17).standard_normal(shape).astype(np.float16)

    kernel = tilelang_chunk_local_cumsum_scalar(
        B=B, S=S, H=H, chunk_size=64, reverse=reverse, head_first=head_first,
        input_dtype=T.float16, output_dtype=T.float32, block_S=64, threads=256,
        use_fragment=use_fragment,
    )
    out = kernel(g)

    ref = ref_chunk_local_cumsum(g, 64, reverse, head_first)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
