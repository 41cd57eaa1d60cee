"""Two L0C slots across the blocks of the grid (tile-ascend-multi-buffer on a cube kernel).

Where two accumulators fit L0C (the 950's 256 KiB holds two 128 x 256 f32
tiles, the 910b's 128 KiB one), a core's consecutive blocks alternate
between them, so the fixpipe drains one block's tile while the cube works
on the next. The kernels run in the simulator (a race, a deadlock or an
unbalanced flag fails the run) on ragged shapes whose blocks do not divide
evenly among the cores, so the second copy of the unrolled grid loop both
runs and is skipped, and are compared with numpy.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from example_kernels import example
from vendor_headers import needs_devkit

import tilec
from tilec import ir, sim

TILES = dict(block_M=128, block_N=256, block_K=64)
"""TileLang's usual GEMM tiles: a 128 KiB f32 accumulator."""


def run(M: int, N: int, K: int, profile: str, block_dim: int) -> tilec.CompiledKernel:
    rng = np.random.default_rng(M + N + K)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = np.full((M, N), 7, np.float32)
    kernel = tilec.compile(example("gemm").matmul(M, N, K, in_dtype="float16", **TILES),
                           target="ascend", profile=profile, block_dim=block_dim)
    kernel(a, b, c)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5 * np.abs(expected).max())
    report = kernel.report()
    assert report.ok and not report.races and not report.deadlocks
    return kernel


def l0c_allocs(text: str) -> list[str]:
    return re.findall(r"memref\.alloc\(\) \{[^}]*\} : memref<16x8x16x16xf32, #ascend\.mem<l0c>>",
                      text)


@pytest.mark.parametrize("profile", ["910b", "950"])
@pytest.mark.parametrize(("shape", "block_dim"), [((200, 300, 130), 3), ((384, 512, 128), 2)])
def test_ragged_blocks_shared_unevenly(profile, shape, block_dim):
    """4 blocks on 3 cores (2, 1, 1) and 6 on 2 (3 each): odd counts skip the
    second copy on their last trip."""
    text = run(*shape, profile, block_dim).ir("ascend")
    two = profile == "950"
    assert len(l0c_allocs(text)) == (2 if two else 1)
    assert ("ascend.twin_copies" in text) == two


def test_each_slot_has_its_own_fixpipe_flag_and_the_copies_share_the_rest():
    """On the 950 the first mmads of a block wait only for the fixpipe of the
    block two back (the same slot): the two fixpipes set different FIX -> M
    events, while the flags of the L1 slabs and L0 buffers that both copies
    use are the same events in both (none more than one slot needs)."""
    text = run(256, 512, 512, "950", 1).ir("ascend")
    grid = text[text.index("scf.for"):]
    first, second, _ = grid.split("ascend.fixpipe")
    fix_sets = re.findall(r"ascend\.fixpipe [^\n]*\n\s*ascend\.set_flag fix -> m, (\d+)", grid)
    assert len(fix_sets) == 2 and fix_sets[0] != fix_sets[1]
    slab_events = set(re.findall(r"set_flag mte1 -> mte2, (\d+)", first))
    assert len(slab_events) == 4  # two slots of A's slab and two of B's
    assert set(re.findall(r"set_flag mte1 -> mte2, (\d+)", second)) == slab_events


def test_the_shared_flags_hold_when_the_hardware_names_flags_by_source_pipe_only():
    """A flag named by (source pipe, event) alone: the copies' shared flags and
    the slots' own still never have two of one source pipe and id pending."""
    M, N, K = 200, 300, 130
    text = run(M, N, K, "950", 1).ir("ascend")
    rng = np.random.default_rng(3)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    module = ir.parse_module(text, "<gemm>", ir.make_context())
    result = sim.simulate(module, [a, b, np.zeros((M, N), np.float32)], profile="950",
                          flag_identity="source")
    assert result.ok, [d.message for d in result.diagnostics]
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(list(result.outputs.values())[2], expected, rtol=1e-5,
                               atol=1e-5 * np.abs(expected).max())


@needs_devkit
def test_the_unrolled_grid_loop_runs_as_emitted():
    """The AscendC of the unrolled grid loop (both copies run on one core, the
    second on the second L0C slot) in the CPU model of the vendor headers, which
    checks every flag and buffer access: the exact product (small integers). K = 130
    makes three mmads per tile, which order themselves on C (Mmad.md: 128 fractals)."""
    M, N, K = 200, 300, 130
    kernel = tilec.compile(example("gemm").matmul(M, N, K, in_dtype="float16", **TILES),
                           target="ascend:950", block_dim=1)
    rng = np.random.default_rng(2)
    a = rng.integers(-4, 5, (M, K)).astype(np.float16)
    b = rng.integers(-4, 5, (K, N)).astype(np.float16)
    c = np.zeros((M, N), np.float32)
    kernel.run_ascendc(a, b, c)
    assert "ascend.twin_copies" in kernel.ir("ascend")
    assert np.array_equal(c, a.astype(np.float32) @ b.astype(np.float32))
