"""tilelang-ascend's `T.copy(src, dst, pad_value=x)` (its tilelang/language/copy.py: the
value the copy leaves in the part of the UB tile the source does not fill): a row max
over a ragged row padded with -inf (examples/softmax/example_online_softmax.py's use),
on cpu and both NPU profiles, against numpy; zero padding would give 0 for these
all-negative rows."""

import numpy as np
import pytest

import tilec
import tilec.language as T


def _row_max(M, N, minus_infinity, block_N=128):
    @T.prim_func
    def main(X: T.Tensor((M, N), "float32"), Y: T.Tensor((M,), "float32")):
        with T.Kernel(1, threads=1, is_npu=True) as _:
            x = T.alloc_shared((M, block_N), "float32")
            m = T.alloc_shared((M,), "float32")
            T.copy(X[0, 0], x, pad_value=-T.infinity("float32") if minus_infinity else 0)
            T.reduce_max(x, m, dim=-1)
            T.copy(m, Y[0])

    return main


TARGETS = ["cpu", "ascend:910b", "ascend:950"]


@pytest.mark.parametrize("target", TARGETS)
def test_a_ragged_row_padded_with_minus_infinity(target):
    x = -1 - np.abs(np.random.default_rng(0).standard_normal((8, 100))).astype(np.float32)
    kernel = tilec.compile(_row_max(8, 100, True), target=target,
                           out_idx=[1])
    np.testing.assert_array_equal(kernel(x), x.max(axis=1))
    zero = tilec.compile(_row_max(8, 100, False), target=target, out_idx=[1])
    np.testing.assert_array_equal(zero(x), np.zeros(8, np.float32))


def test_a_traced_pad_value():
    """The pad may be a value the kernel computes (here read from global memory)."""

    @T.prim_func
    def main(X: T.Tensor((4, 6), "float32"), P: T.Tensor((1,), "float32"),
             Y: T.Tensor((4, 8), "float32")):
        with T.Kernel(1, threads=1, is_npu=True) as _:
            x = T.alloc_shared((4, 8), "float32")
            T.copy(X[0, 0], x, pad_value=P[0])
            T.copy(x, Y[0, 0])

    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    y = tilec.compile(main, target="cpu", out_idx=[2])(x, np.array([7.5], np.float32))
    np.testing.assert_array_equal(y, np.concatenate([x, np.full((4, 2), 7.5, np.float32)], 1))


@pytest.mark.parametrize("target", TARGETS[1:])
def test_the_pad_is_a_vector_select_after_the_dma(target):
    """On the NPU the pad is no scalar loop: the DMA (zeros past the edge), then compares
    of the positions with the tensor's extents and a Select, on the vector core; rows and
    columns both ragged here, and the pad a value read from global memory."""

    @T.prim_func
    def main(X: T.Tensor((5, 100), "float32"), P: T.Tensor((1,), "float32"),
             Y: T.Tensor((8, 128), "float32")):
        with T.Kernel(1, threads=1, is_npu=True) as _:
            x = T.alloc_shared((8, 128), "float32")
            T.copy(X[0, 0], x, pad_value=P[0])
            T.copy(x, Y[0, 0])

    kernel = tilec.compile(main, target=target, out_idx=[2])
    lowered = kernel.ir(kernel.stages()[-1])
    assert "ascend.vsel" in lowered
    assert not [line for line in lowered.splitlines()  # no element of the tile on S
                if "memref.load" in line and "#ascend.mem<ub>" in line]
    x = np.random.default_rng(3).standard_normal((5, 100)).astype(np.float32)
    expected = np.full((8, 128), -2.5, np.float32)
    expected[:5, :100] = x
    np.testing.assert_array_equal(kernel(x, np.array([-2.5], np.float32)), expected)
