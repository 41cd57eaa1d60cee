"""tilelang-ascend's launch, `T.Kernel(n, is_npu=True)` (its tilelang/language/kernel.py), on
every target: `as (cid, vid)` runs the body once per block and vector core (AIV) when the
body reads vid (examples/activation/*.py, examples/reduce/*.py write per-AIV programs so),
once per block when it does not (examples/developer_mode/gemm_developer.py's `as (cid, _)`);
`threads=1|2` gives `cid` alone (developer mode). Then its located errors, among them a
per-AIV body that hands data from one AIV to the other through global memory
(examples/developer_mode/sparse_flash_attn_developer.py's workspaces), which no sequential
reading has."""

import re
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.language import DSLError
from tilec.sim import SimError

TARGETS = ("cpu", "ascend:910b", "ascend:950")
SOURCE = Path(__file__).read_text().splitlines()


def line_of(marker: str) -> int:
    (line,) = [i + 1 for i, text in enumerate(SOURCE) if text.endswith(f"# {marker}")]
    return line


def who_runs(n):
    """Each program writes 100 + 10 * cid + vid into Out[cid, vid]."""

    @T.prim_func
    def main(Out: T.Tensor((n, 2), "int32")):
        with T.Kernel(n, is_npu=True) as (cid, vid):
            t = T.alloc_shared((1,), "int32")
            T.tile.fill(t, 100 + 10 * cid + vid)
            T.copy(t, Out[cid, vid])

    return main


@pytest.mark.parametrize("target", TARGETS)
def test_a_body_that_reads_vid_runs_once_per_aiv(target):
    out = tilec.compile(who_runs(3), target=target, out_idx=[0])()
    np.testing.assert_array_equal(out, 100 + 10 * np.arange(3)[:, None] + np.arange(2))


def _grid(kernel) -> list[int]:
    """The static grid sizes of the kernel's tile.kernel."""
    text = kernel.ir()
    sizes = re.search(r"tile\.kernel blocks\([^)]*\) in \(([^)]*)\)", text)[1].split(", ")
    constants = dict(re.findall(r"(%\w+) = arith\.constant (\d+) : index", text))
    return [int(constants[s]) for s in sizes]


def test_grids():
    @T.prim_func
    def unused(A: T.Tensor((8,), "float32")):
        with T.Kernel(4, is_npu=True) as (cid, _):
            t = T.alloc_shared((2,), "float32")
            T.copy(A[cid * 2], t)

    @T.prim_func
    def developer(A: T.Tensor((8,), "float32")):
        with T.Kernel(4, threads=2, is_npu=True) as cid:
            t = T.alloc_shared((2,), "float32")
            T.copy(A[cid * 2], t)

    assert _grid(who_runs(4)) == [2, 4]
    assert _grid(unused) == [1, 4]
    assert _grid(developer) == [4]


def _error(kernel) -> DSLError:
    with pytest.raises(DSLError) as info:
        kernel.ir()
    assert info.value.loc.file == __file__
    return info.value


def test_npu_launch_errors():
    @T.prim_func
    def threads(A: T.Tensor((8,), "float32")):
        with T.Kernel(4, threads=4, is_npu=True):  # threads
            pass

    error = _error(threads)
    assert error.loc.line == line_of("threads")
    assert "threads is the vector cores per AI core, 1 or 2" in error.message

    @T.prim_func
    def grid(A: T.Tensor((8,), "float32")):
        with T.Kernel(2, 2, is_npu=True):  # grid
            pass

    error = _error(grid)
    assert error.loc.line == line_of("grid") and "takes one grid size" in error.message


def test_aivs_handing_data_through_global_memory():
    """The AIVs write halves of a workspace row that each then reads whole."""

    @T.prim_func
    def main(A: T.Tensor((4, 64), "float32"), W: T.Tensor((4, 64), "float32"),
             C: T.Tensor((4, 64), "float32")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            half = T.alloc_shared((32,), "float32")
            whole = T.alloc_shared((64,), "float32")
            T.copy(A[cid, vid * 32], half)
            T.copy(half, W[cid, vid * 32])  # written
            T.copy(W[cid, 0:64], whole)  # read whole
            T.copy(whole, C[cid, 0])

    error = _error(main)
    assert error.loc.line == line_of("read whole")
    assert "reads whole what each AIV writes its part of" in error.message
    assert "T.Scope" in error.message
    (note,) = error.diagnostics[0].notes
    assert note.line == line_of("written") and note.message == "written here"


def test_aivs_each_updating_their_own_rows_in_place():
    """Reading and writing one tensor at vid's rows is no exchange: it runs."""

    @T.prim_func
    def main(A: T.Tensor((4, 64), "float32")):
        with T.Kernel(4, is_npu=True) as (cid, vid):
            half = T.alloc_shared((32,), "float32")
            T.copy(A[cid, vid * 32], half)
            T.tile.mul(half, half, 2.0)
            T.copy(half, A[cid, vid * 32])

    a = np.arange(256, dtype=np.float32).reshape(4, 64)
    kernel = tilec.compile(main, target="cpu")
    b = a.copy()
    kernel(b)
    np.testing.assert_array_equal(b, 2 * a)


def _scoped(launch):
    """C = 2 A in one T.Scope("V") program per block, the author's barriers between its
    steps; `launch` makes the T.Kernel and the
    two indices it binds (the block's first half of its rows for index 0)."""

    @T.prim_func
    def main(A: T.Tensor((8, 16), "float32"), C: T.Tensor((8, 16), "float32")):
        with launch() as (first, second):
            t = T.alloc_ub((2, 16), "float32")
            with T.Scope("V"):
                row = second * 4 + first * 2
                T.copy(A[row, 0], t)
                T.barrier_all()
                T.tile.mul(t, t, 2.0)
                T.barrier_all()
                T.copy(t, C[row, 0])

    return main


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_the_launch_says_which_index_is_vid(profile):
    """`as (cid, vid)` marks vid, which the scopes of an expert kernel run as the AIV's
    sub-block index. A 2 x 2 grid of tilec's own is two grid dims, though sized as
    (vid, cid) would be: both AIVs of an AI core run a "V" scope, each block's rows twice,
    and the simulator finds the AIVs' stores of the same rows unordered."""
    a = np.arange(128, dtype=np.float32).reshape(8, 16)
    npu = _scoped(lambda: T.Kernel(2, is_npu=True))
    grid = _scoped(lambda: T.Kernel(2, 2))
    assert "ascend.vid_dim = 0" in npu.ir() and "vid_dim" not in grid.ir()
    kernel = tilec.compile(npu, target="ascend", profile=profile)
    c = np.zeros_like(a)
    kernel(a, c)
    np.testing.assert_array_equal(c, 2 * a)
    assert kernel.report().core_kind == "mix"
    with pytest.raises(SimError, match=r"race \(write-after-write\): ascend.copy ub -> gm on "
                                       r"MTE3 of block \d aiv1 writes argument %C"):
        tilec.compile(grid, target="ascend", profile=profile)(a, c)


def test_vid_is_marked_only_for_expert_programs():
    assert "vid_dim" not in who_runs(2).ir()  # a program per AIV: a grid dim of 2
