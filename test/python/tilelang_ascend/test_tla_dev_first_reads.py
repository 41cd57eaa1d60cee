"""A tile a tilelang-ascend kernel reads before anything writes it is a located error
(examples/developer_mode/sparse_flash_attn_developer_vid_reduce.py's mistake, reduced:
each iteration's gemm reads the keys the iteration gathers after it). The same kernel
with the gather first runs, on cpu and the NPU, against numpy."""

from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.language import DSLError

SOURCE = Path(__file__).read_text().splitlines()


def line_of(marker: str) -> int:
    (line,) = [i + 1 for i, text in enumerate(SOURCE) if text.endswith(f"# {marker}")]
    return line


def _scores(gather_first: bool, rows=16, dim=32, steps=3):
    """S[s] = Q K_s^T for each step s, K_s the rows of KV that Idx[s] names."""

    @T.prim_func
    def main(Q: T.Tensor((rows, dim), "float16"), KV: T.Tensor((64, dim), "float16"),
             Idx: T.Tensor((steps, rows), "int32"), S: T.Tensor((steps, rows, rows), "float32")):
        with T.Kernel(1, threads=2, is_npu=True) as _:
            q = T.alloc_shared((rows, dim), "float16")
            k = T.alloc_shared((rows, dim), "float16")  # k
            acc = T.alloc_fragment((rows, rows), "float32")
            T.copy(Q[0, 0], q)
            for s in T.serial(steps):  # loop
                if not gather_first:
                    T.gemm_v0(q, k, acc, transpose_B=True, init=True)  # read
                for r in range(rows):
                    T.copy(KV[Idx[s, r], 0:dim], k[r, :])  # gathered
                if gather_first:
                    T.gemm_v0(q, k, acc, transpose_B=True, init=True)
                T.copy(acc, S[s, 0, 0])

    return main


def test_a_tile_read_before_it_is_written_is_an_error_at_the_read():
    with pytest.raises(DSLError) as caught:
        _scores(gather_first=False).ir()
    error = caught.value.diagnostics[0]
    assert (error.file, error.line) == (__file__, line_of("read"))
    assert error.message.startswith(
        f"the tile allocated at line {line_of('k')} is read here before anything "
        f"writes it (in the first iteration of the loop at line {line_of('loop')})")
    (note,) = error.notes
    assert note.line == line_of("gathered") and note.message == "it is first written here"


@pytest.mark.parametrize("target", ["cpu", "ascend:910b", "ascend:950"])
def test_the_gather_first_runs(target):
    rng = np.random.default_rng(0)
    q = rng.standard_normal((16, 32)).astype(np.float16)
    kv = rng.standard_normal((64, 32)).astype(np.float16)
    idx = np.stack([rng.permutation(64)[:16] for _ in range(3)]).astype(np.int32)
    s = tilec.compile(_scores(gather_first=True), target=target, out_idx=[3])(q, kv, idx)
    expected = np.einsum("rd,sqd->srq", q.astype(np.float32), kv.astype(np.float32)[idx])
    np.testing.assert_allclose(s, expected, rtol=1e-2, atol=1e-2)


def test_a_read_under_a_condition_or_after_a_fill_is_no_error():
    """A first read under `if` may run after a write of an earlier iteration; a tile
    cleared or filled first holds what was written."""

    @T.prim_func
    def main(A: T.Tensor((4, 16), "float32"), B: T.Tensor((16,), "float32")):
        with T.Kernel(1, threads=1, is_npu=True) as _:
            prev = T.alloc_shared((16,), "float32")
            total = T.alloc_shared((16,), "float32")
            T.tile.fill(total, 0.0)
            for i in T.serial(4):
                if i > 0:
                    for j in T.Parallel(16):
                        total[j] = total[j] + prev[j]
                T.copy(A[i, 0], prev)
            for j in T.Parallel(16):
                total[j] = total[j] + prev[j]
            T.copy(total, B[0])

    a = np.arange(64, dtype=np.float32).reshape(4, 16)
    np.testing.assert_array_equal(tilec.compile(main, target="cpu", out_idx=[1])(a), a.sum(0))
