"""tilelang-ascend's `T.Kernel(n, is_npu=True, threads=2) as cid` on a vector-only kernel:
the two AIVs of an AI core share each block's vector work by rows (tile-ascend-split-aivs),
so a block's tiles need half of each AIV's UB. examples/developer_mode/gelu_mul_developer.py
at the example's 1024 config (four 128 x 128 f32 tiles, 256 KiB a block) runs on the 910b's
192 KiB UB only so. With `threads=1`, or when halving would change the meaning (a global
write other than from the rows of a split tile), a block stays on one AIV."""

import re

import numpy as np
import pytest
from test_tla_dev_gelu_mul import gelu_mul_developer, reference

import tilec
import tilec.language as T

SPLIT = "tile-ascend-split-aivs"


def _ub_tiles(kernel) -> list[str]:
    """The shapes of the UB tiles after the split."""
    return re.findall(r"tile\.alloc : memref<([0-9x]+)x\w+, #tile\.scope<ub>>", kernel.ir(SPLIT))


def _grid(kernel) -> str:
    text = kernel.ir(SPLIT)
    size = re.search(r"tile\.kernel blocks\(%\w+\) in \((%\w+)\)", text)[1]
    return re.search(rf"{size} = arith\.constant (\d+) : index", text)[1]


@pytest.mark.parametrize("target", ["ascend:910b", "ascend:950"])
@pytest.mark.parametrize("shape", [(1024, 1024), (1000, 1000)], ids=["example", "ragged"])
def test_gelu_mul_developer_at_the_1024_config(target, shape):
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    kernel = tilec.compile(gelu_mul_developer(*shape, 128, 128), target=target, out_idx=[1])
    np.testing.assert_allclose(kernel(a), reference(a), rtol=1e-2, atol=1e-2)
    assert _ub_tiles(kernel) == ["64x128"] * 4
    blocks = -(-shape[0] // 128) * -(-shape[1] // 2 // 128)
    assert _grid(kernel) == str(2 * blocks)  # each block's halves, one per AIV


def _scaled(M, block_M, threads, N=128):
    """B = 2 A, a block of block_M rows at a time."""

    @T.prim_func
    def main(A: T.Tensor((M, N), "float32"), B: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=threads, is_npu=True) as cid:
            t = T.alloc_shared((block_M, N), "float32")
            T.copy(A[cid * block_M, 0], t)
            T.tile.mul(t, t, 2.0)
            T.copy(t, B[cid * block_M, 0])

    return main


@pytest.mark.parametrize("threads,tiles", [(1, ["64x128"]), (2, ["32x128"])])
def test_threads_says_how_many_aivs_share_a_block(threads, tiles):
    a = np.random.default_rng(2).standard_normal((100, 128)).astype(np.float32)
    kernel = tilec.compile(_scaled(100, 64, threads), target="ascend:910b", out_idx=[1])
    np.testing.assert_array_equal(kernel(a), 2 * a)
    assert _ub_tiles(kernel) == tiles


def test_a_global_write_of_a_whole_block_keeps_it_on_one_aiv():
    """B's rows could be halved, but the column sums of the block that it adds atomically
    into S cannot: both AIVs would add all of them, and S would be twice the sums. The
    block stays whole and the numbers right."""

    @T.prim_func
    def main(A: T.Tensor((128, 32), "float32"), B: T.Tensor((128, 32), "float32"),
             S: T.Tensor((32,), "float32")):
        with T.Kernel(2, threads=2, is_npu=True) as cid:
            a = T.alloc_shared((64, 32), "float32")
            c = T.alloc_shared((64, 32), "float32")
            s = T.alloc_shared((32,), "float32")
            T.copy(A[cid * 64, 0], a)
            T.tile.mul(a, a, 2.0)
            T.copy(a, B[cid * 64, 0])
            T.copy(A[cid * 64, 0], c)
            T.reduce_sum(c, s, dim=0)
            T.tile.atomic_add(S[0], s)

    a = np.random.default_rng(3).standard_normal((128, 32)).astype(np.float32)
    b, s = np.zeros_like(a), np.zeros(32, np.float32)
    kernel = tilec.compile(main, target="ascend:910b")
    kernel(a, b, s)
    np.testing.assert_array_equal(b, 2 * a)
    np.testing.assert_allclose(s, a.sum(axis=0), rtol=1e-5, atol=1e-5)
    assert _ub_tiles(kernel) == ["64x32", "64x32", "32"] and _grid(kernel) == "2"


def test_odd_rows_stay_whole():
    a = np.random.default_rng(4).standard_normal((66, 128)).astype(np.float32)
    kernel = tilec.compile(_scaled(66, 33, 2), target="ascend:910b", out_idx=[1])
    np.testing.assert_array_equal(kernel(a), 2 * a)
    assert _ub_tiles(kernel) == ["33x128"]
