"""T.copy from GM to GM on ascend: through UB on the vector core, chunk by chunk.

The MTEs have no GM -> GM path, so `vector_copy.py` stages the region in UB: whole
chunks of its rows (a 1-D region's elements) that fit 32 KiB, then the rows left
over, converted in UB when the element types differ. Checked against numpy on ragged
regions (past the source's and the destination's edges) on both profiles: nothing
outside the region, or the destination tensor, is written."""

from __future__ import annotations

import re

import numpy as np
import pytest

import tilec
import tilec.language as T

PROFILES = ["910b", "950"]


def gm_copy(n: int, m: int, rows: int, src_dtype: str, dst_dtype: str):
    """Block b copies rows [b * rows, (b + 1) * rows) of X, all its columns, into Y."""

    @T.prim_func
    def copy_rows(X: T.Tensor((n, m), src_dtype), Y: T.Tensor((n, m), dst_dtype)):
        with T.Kernel(T.ceildiv(n, rows)) as bx:
            T.copy(X[bx * rows:(bx + 1) * rows, :], Y[bx * rows:(bx + 1) * rows, :])

    return copy_rows


def gm_copy_1d(n: int, block: int):
    """A 1-D region of `block` elements per block, in the middle of a longer Y."""

    @T.prim_func
    def copy_flat(X: T.Tensor((n,), "float32"), Y: T.Tensor((n + 8,), "float32")):
        with T.Kernel(T.ceildiv(n, block)) as bx:
            T.copy(X[bx * block:(bx + 1) * block], Y[4 + bx * block:4 + (bx + 1) * block])

    return copy_flat


def _copies(kernel: tilec.CompiledKernel) -> list[str]:
    return re.findall(r"ascend.copy .* sizes \[([\d, ]+)\]", kernel.ir("ascend"))


@pytest.mark.parametrize("profile", PROFILES)
def test_a_converting_copy_from_gm_to_gm_goes_through_ub(profile):
    n, m, rows = 70, 40, 32  # the last block's rows reach past both tensors' ends
    kernel = tilec.compile(gm_copy(n, m, rows, "float32", "float16"), target="ascend",
                           profile=profile)
    assert "ascend.vcast" in kernel.ir("ascend")
    x = np.random.default_rng(1).standard_normal((n, m)).astype(np.float32)
    y = np.full((n, m), 7, np.float16)
    kernel(x, y)
    np.testing.assert_array_equal(y, x.astype(np.float16))


@pytest.mark.parametrize("profile", PROFILES)
def test_a_region_larger_than_a_chunk_is_whole_chunks_then_the_rest(profile):
    n, m, rows = 300, 100, 100  # rows of 104 f32 in UB (416 bytes): 78 a chunk, then 22
    kernel = tilec.compile(gm_copy(n, m, rows, "float32", "float32"), target="ascend",
                           profile=profile)
    assert sorted(set(_copies(kernel))) == ["22, 100", "78, 100"]
    x = np.random.default_rng(2).standard_normal((n, m)).astype(np.float32)
    y = np.zeros((n, m), np.float32)
    kernel(x, y)
    np.testing.assert_array_equal(y, x)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_1d_copy_writes_its_region_only(profile):
    n, block = 100, 48
    kernel = tilec.compile(gm_copy_1d(n, block), target="ascend", profile=profile)
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    y = np.full(n + 8, -1, np.float32)
    kernel(x, y)
    expected = np.full(n + 8, -1, np.float32)
    expected[4:4 + n] = x  # the last block's region reads zeros past X's end, drops past Y's
    expected[4 + n:] = 0
    np.testing.assert_array_equal(y, expected)
