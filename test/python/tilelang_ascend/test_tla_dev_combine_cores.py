"""tilelang-ascend's TL_ASCEND_AUTO_CV_COMBINE on tilec (tile-ascend-combine-cores): a
`T.Kernel(n, is_npu=True) as (cid, vid)` body whose cube tiles and vector tiles hand data
through a global tensor is the cube's program and the AIVs', the k-th hand-over of the
tensor ordered by a cross-core flag whatever the order of the two in the body.

Here the hand-over goes one way only (the AIVs scale their halves of a block of A into W,
the cube multiplies W by B), so nothing but the "free" flag that tilec adds keeps the AIVs
from overwriting W while the cube still reads it: the kernel runs on both profiles against
numpy, and without that flag the simulator finds the write-after-read. Then the located
errors of such bodies."""

import re
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.diagnostics import CompileError
from tilec.language import DSLError
from tilec.sim.api import simulate

SOURCE = Path(__file__).read_text().splitlines()
N = 4


def line_of(marker: str) -> int:
    (line,) = [i + 1 for i, text in enumerate(SOURCE) if text.endswith(f"# {marker}")]
    return line


def one_way(n):
    """C[32 i : 32 i + 32] = (2 A[32 i : 32 i + 32]) B, the rows scaled on the AIVs."""

    @T.prim_func
    def main(A: T.Tensor((n * 32, 32), "float16"), B: T.Tensor((32, 32), "float16"),
             W: T.Tensor((32, 32), "float16"), C: T.Tensor((n * 32, 32), "float32")):
        with T.Kernel(1, is_npu=True) as (_, vid):  # launch
            a_l1 = T.alloc_L1((32, 32), "float16")
            b_l1 = T.alloc_L1((32, 32), "float16")
            c_l0c = T.alloc_L0C((32, 32), "float32")
            half = T.alloc_ub((16, 32), "float16")
            T.copy(B[0:32, 0:32], b_l1)
            for i in T.serial(n):
                T.copy(W[0:32, 0:32], a_l1)  # the rows both AIVs write below
                T.gemm_v0(a_l1, b_l1, c_l0c, init=True)
                T.copy(c_l0c, C[i * 32:i * 32 + 32, 0:32])
                T.copy(A[i * 32 + vid * 16:i * 32 + vid * 16 + 16, 0:32], half)
                T.tile.mul(half, half, 2.0)
                T.copy(half, W[vid * 16:vid * 16 + 16, 0:32])

    return main


def _inputs():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((N * 32, 32)).astype(np.float16)
    b = rng.standard_normal((32, 32)).astype(np.float16)
    return a, b, np.zeros((32, 32), np.float16), np.zeros((N * 32, 32), np.float32)


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_a_hand_over_one_way_runs(profile):
    kernel = tilec.compile(one_way(N), target="ascend", profile=profile)
    a, b, w, c = _inputs()
    kernel(a, b, w, c)
    np.testing.assert_allclose(c, (2 * a.astype(np.float32)) @ b.astype(np.float32),
                               rtol=1e-3, atol=1e-3)
    report = kernel.report()
    assert report.core_kind == "mix" and not report.races and not report.deadlocks


def test_without_the_free_flag_the_aivs_overwrite_what_the_cube_reads():
    kernel = tilec.compile(one_way(N), target="ascend", profile="910b")
    text = kernel.ir(kernel.stages()[-1])
    # flag 0 hands W to the cube; flag 1 goes back once the cube has read it
    free = re.compile(r"ascend\.cross_core_(set_flag mode 2, mte2, 1|wait_flag 1, mte3)$")
    kept = [line for line in text.splitlines() if not free.search(line)]
    assert len(kept) == len(text.splitlines()) - 3  # its set, its wait in the loop, the drain
    result = simulate("\n".join(kept), list(_inputs()), profile="910b")
    assert any(re.search(r"race \(write-after-read\): ascend.copy ub -> gm on MTE3 of block 0 "
                         r"aiv[01] writes argument %W, .* read by ascend.copy_nd2nz gm -> l1 on "
                         r"MTE2 of block 0 aic", race.message) for race in result.races)


def test_on_cpu_it_is_an_error():
    with pytest.raises(CompileError, match="runs on ascend only") as caught:
        tilec.compile(one_way(N), target="cpu")(*_inputs())
    assert caught.value.diagnostics[0].line == line_of("launch")


def test_the_aivs_may_not_read_whole_what_they_write_halves_of():
    """Beside the cube's read, each AIV reads the whole of W: that hands rows from one AIV
    to the other, which no flag between the cube and the AIVs orders."""

    @T.prim_func
    def main(A: T.Tensor((32, 32), "float16"), W: T.Tensor((32, 32), "float16")):
        with T.Kernel(1, is_npu=True) as (_, vid):
            a_l1 = T.alloc_L1((32, 32), "float16")
            half = T.alloc_ub((16, 32), "float16")
            whole = T.alloc_ub((32, 32), "float16")
            T.copy(W[0:32, 0:32], a_l1)
            T.copy(A[vid * 16:vid * 16 + 16, 0:32], half)
            T.copy(half, W[vid * 16:vid * 16 + 16, 0:32])  # halves
            T.copy(W[0:32, 0:32], whole)  # whole

    with pytest.raises(DSLError) as caught:
        main.ir()
    error = caught.value.diagnostics[0]
    assert error.line == line_of("whole")
    assert "reads whole what each AIV writes its part of" in error.message
    assert error.notes[0].line == line_of("halves")


def test_its_tiles_are_placed_by_the_author():
    """Which core runs an op follows from its tiles, before tilec places them."""

    @T.prim_func
    def main(A: T.Tensor((32, 32), "float16"), W: T.Tensor((32, 32), "float16")):
        with T.Kernel(1, is_npu=True) as (_, vid):
            a_l1 = T.alloc_L1((32, 32), "float16")
            half = T.alloc_shared((16, 32), "float16")  # shared
            T.copy(W[0:32, 0:32], a_l1)
            T.copy(A[vid * 16:vid * 16 + 16, 0:32], half)
            T.copy(half, W[vid * 16:vid * 16 + 16, 0:32])

    with pytest.raises(CompileError, match=r"allocate this one with T.alloc_L1/L0A/L0B/L0C "
                                           r"\(the cube's\) or T.alloc_ub") as caught:
        tilec.compile(main, target="ascend", profile="910b")
    assert caught.value.diagnostics[0].line == line_of("shared")
