"""tilelang-ascend's reductions: examples/reduce/example_reduce_min.py (a T.Scope("V") program
per AIV with the author's T.barrier_all, `as (cid, vid)`, T.alloc_ub halves),
examples/reduce/example_row_reduce_max_slice_buffer.py (`if vid == 0:`, `real_shape=[4, 4]`
of a 4 x 8 tile into a [1, 8] "slice buffer"). Only the imports changed (`import tilec as tilelang`,
numpy arrays for torch's); the `@tilelang.jit` decoration is applied per target in the test
and pass_configs are left out (the author's barriers order the scoped programs). Also the
reduce signature's other forms on tiles written in developer mode: `[M, 1]` outputs,
`clear=False` and `dim=0`, on every target against numpy."""


import numpy as np
import pytest

import tilec as tilelang
from tilec import language as T

TARGETS = ("cpu", "ascend:910b", "ascend:950")


def reduce_min(M, N, block_M, dtype="float"):
    m_num = M // block_M
    VEC_NUM = 2
    sub_block_M = block_M // VEC_NUM

    @T.prim_func
    def main(
        A: T.Tensor([M, N], dtype),
        B: T.Tensor([M], dtype),
    ):
        with T.Kernel(m_num, is_npu=True) as (cid, vid):
            a_ub = T.alloc_ub((sub_block_M, N), dtype)
            b_ub = T.alloc_ub((sub_block_M), dtype)

            row_base = cid * block_M + vid * sub_block_M
            with T.Scope("V"):
                T.copy(A[row_base : row_base + sub_block_M, :], a_ub)

                T.barrier_all()
                T.reduce_min(a_ub, b_ub, dim=-1)
                T.barrier_all()

                T.copy(b_ub, B[row_base : row_base + sub_block_M])

    return main


def reduce_max_slice_buffer():
    dtype = "float"

    @T.prim_func
    def main(Input: T.Tensor([4, 8], dtype),
             Output: T.Tensor([1, 8], dtype),
    ):
        with T.Kernel(1, is_npu=True) as (cid, vid):  # noqa: RUF059 (upstream's names)
            in_shared = T.alloc_ub((4, 8), dtype)
            out_shared = T.alloc_ub((1, 8), dtype=dtype)

            if vid == 0:
                T.copy(Input, in_shared)
                T.reduce_max(in_shared, out_shared, dim=-1, real_shape=[4, 4])
                T.copy(out_shared, Output)

    return main


RNG = np.random.default_rng(0)


@pytest.mark.parametrize("target", TARGETS)
def test_reduce_min(target):
    a = RNG.standard_normal((256, 256)).astype(np.float32)
    c = tilelang.jit(out_idx=[1], target=target)(reduce_min)(256, 256, 128)(a)
    np.testing.assert_allclose(c, a.min(-1), rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("target", TARGETS)
def test_reduce_max_slice_buffer(target):
    """The valid 4 x 4 part's row maxima fill the first four elements of the [1, 8] output
    (the others keep the tile's contents). On the NPU each row of the part is a ReduceMax of
    its 4 elements, the rows 32 bytes apart in the tile, so every call starts on a block."""
    data = RNG.standard_normal((4, 8)).astype(np.float32)
    out = tilelang.jit(out_idx=[1], target=target)(reduce_max_slice_buffer)()(data)
    np.testing.assert_allclose(out[0, :4], data[:, :4].max(-1))


def row_stats(M, N, block_M, dtype="float32"):
    """A developer-mode kernel with the reduce forms tilelang-ascend accepts: an [M, 1]
    row max, a row sum accumulated over two column halves with clear=False into [M], and a
    column sum (dim=0) into [N]."""

    @T.prim_func
    def main(A: T.Tensor((M, N), dtype), Mx: T.Tensor((M, 1), dtype), S: T.Tensor((M,), dtype),
             Cs: T.Tensor((T.ceildiv(M, block_M), N), dtype)):
        with T.Kernel(T.ceildiv(M, block_M), threads=2, is_npu=True) as cid:
            a = T.alloc_shared((block_M, N), dtype)
            half = T.alloc_shared((block_M, N // 2), dtype)
            mx = T.alloc_shared((block_M, 1), dtype)
            s = T.alloc_shared((block_M,), dtype)
            cs = T.alloc_shared((N,), dtype)
            T.copy(A[cid * block_M, 0], a)
            T.reduce_max(a, mx, dim=-1, real_shape=[0, N])
            T.tile.fill(s, 0.0)
            for h in T.serial(2):
                T.copy(A[cid * block_M, h * (N // 2)], half)
                T.reduce_sum(half, s, dim=1, clear=False)
            T.reduce_sum(a, cs, dim=0)
            T.copy(mx, Mx[cid * block_M, 0])
            T.copy(s, S[cid * block_M])
            T.copy(cs, Cs[cid, 0])

    return main


@pytest.mark.parametrize("target", TARGETS)
def test_reduce_forms(target):
    M, N, block_M = 48, 64, 32
    a = RNG.standard_normal((M, N)).astype(np.float32)
    mx, s, cs = tilelang.jit(out_idx=[1, 2, 3], target=target)(row_stats)(M, N, block_M)(a)
    np.testing.assert_allclose(mx[:, 0], a.max(-1), rtol=1e-5)
    np.testing.assert_allclose(s, a.sum(-1), rtol=1e-4, atol=1e-4)
    padded = np.zeros((64, N), np.float32)
    padded[:M] = a
    np.testing.assert_allclose(cs, padded.reshape(2, block_M, N).sum(1), rtol=1e-4, atol=1e-4)
