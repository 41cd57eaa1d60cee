"""Shared-memory bank conflicts of the cuda gemm's operand tiles.

A 16-byte-per-thread shared access (one `ldmatrix` matrix, a quarter-warp
of `cp.async` stores) is served in one wavefront when its 8 addresses fall
in 8 distinct groups of 4 banks (bank group = address / 16 mod 8); k
distinct addresses in one group cost k - 1 extra wavefronts. The emulator
records the address of every ldmatrix lane and cp.async thread of the
generated kernels; the swizzled operand tiles must need no extra wavefront.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import tilec
from tilec import ir
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import BANK_GROUPS, Swizzle

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from example_kernels import example
from simt import SharedAccess, run_launches

PHASE = 8  # threads whose 16-byte accesses one wavefront can serve


def extra_wavefronts(trace: list[SharedAccess], kind: str) -> tuple[int, int]:
    """(phases, extra wavefronts) of the `kind` accesses in `trace`: the n-th
    execution of an op by the lanes of one 8-lane phase of a warp is one
    phase."""
    seen: dict[tuple, int] = defaultdict(int)
    phases: dict[tuple, set[int]] = defaultdict(set)
    for access in trace:
        if access.kind != kind:
            continue
        instance = seen[access.op, access.block, access.thread]
        seen[access.op, access.block, access.thread] += 1
        phases[access.op, access.block, instance, access.thread // PHASE].add(access.address)
    extra = 0
    for addresses in phases.values():
        groups: dict[int, int] = defaultdict(int)
        for address in addresses:
            groups[address // 16 % BANK_GROUPS] += 1
        extra += max(groups.values()) - 1
    return len(phases), extra


def _access(thread: int, address: int) -> SharedAccess:
    return SharedAccess("ldmatrix", "loc", (0, 0, 0), thread, address)


def test_the_count_sees_the_conflicts_of_a_row_major_tile():
    """8 rows of 64 bytes read at one column: 2 bank groups, 4 rows each."""
    trace = [_access(lane, lane * 64) for lane in range(8)]
    assert extra_wavefronts(trace, "ldmatrix") == (1, 3)
    trace = [_access(lane, lane * 16) for lane in range(8)]
    assert extra_wavefronts(trace, "ldmatrix") == (1, 0)


@pytest.mark.parametrize("row_bytes", [32, 64, 128, 256, 384])
def test_swizzle_spreads_eight_rows_over_the_bank_groups(row_bytes):
    """Analytically: for every 8-row group and logical chunk, the physical
    chunks hit 8 distinct bank groups; so do 8 consecutive chunks in
    row-major order (a quarter-warp of cp.async); without the swizzle rows
    of 32 bytes or more conflict."""
    with ir.Context():
        swizzle = Swizzle.of((64, row_bytes // 2), ir.F16Type.get())
    assert swizzle is not None
    chunks = row_bytes // 16

    def group(row: int, chunk: int, swizzled: bool = True) -> int:
        physical = swizzle.chunk_of(row, chunk) if swizzled else chunk
        return (row * chunks + physical) % BANK_GROUPS

    for row0 in range(0, 64, 8):
        for chunk in range(chunks):
            assert len({group(row0 + r, chunk) for r in range(8)}) == 8
        assert len({group(row0 + r, 0, swizzled=False) for r in range(8)}) < 8
    for first in range(0, 64 * chunks, 8):
        assert len({group(e // chunks, e % chunks) for e in range(first, first + 8)}) == 8


@pytest.mark.parametrize("variant", [
    {},
    {"trans_A": True, "trans_B": True, "num_stages": 2},
], ids=["plain", "transposed 2 stages"])
def test_gemm_ldmatrix_and_cp_async_have_no_bank_conflicts(variant):
    m = n = 64
    k = 64
    trans_a, trans_b = variant.get("trans_A", False), variant.get("trans_B", False)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((k, m) if trans_a else (m, k)).astype(np.float16)
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    gemm = example("gemm")
    kernel = tilec.compile(
        gemm.matmul(m, n, k, block_M=64, block_N=64, block_K=32, in_dtype="float16", **variant),
        target="cuda:sm_80",
    )
    trace: list[SharedAccess] = []
    with ir.make_context() as context:
        module = ir.parse_module(kernel.ir("cse"), "<cuda>", context)
        run_launches(module, kernel.name, [a, b, c], trace)
    expected = gemm.reference(a, b, trans_A=trans_a, trans_B=trans_b)
    np.testing.assert_allclose(c, expected, rtol=2e-2, atol=2e-2)
    ldmatrix_phases, ldmatrix_extra = extra_wavefronts(trace, "ldmatrix")
    store_phases, store_extra = extra_wavefronts(trace, "cp.async")
    # 4 warps x 2 k-steps x (A: 2 x4 loads + B: 2 x4 loads) x 4 matrices, per k-tile.
    assert ldmatrix_phases == 4 * 2 * 4 * 4 * (k // 32)
    assert store_phases > 0
    assert (ldmatrix_extra, store_extra) == (0, 0)


def word_conflicts(trace: list[SharedAccess], kind: str) -> tuple[int, int]:
    """(loads, extra wavefronts) of the `kind` accesses of at most 4 bytes:
    a warp's load is served in one wavefront when no two distinct 32-bit
    words it reads share a bank (bank = word mod 32)."""
    seen: dict[tuple, int] = defaultdict(int)
    loads: dict[tuple, set[int]] = defaultdict(set)
    for access in trace:
        if access.kind != kind:
            continue
        instance = seen[access.op, access.block, access.thread]
        seen[access.op, access.block, access.thread] += 1
        loads[access.op, access.block, instance, access.thread // 32].add(access.address // 4)
    extra = 0
    for words in loads.values():
        banks: dict[int, int] = defaultdict(int)
        for word in words:
            banks[word % 32] += 1
        extra += max(banks.values()) - 1
    return len(loads), extra


def _k_major_rows(t: int, step: int, rotated: bool) -> int:
    """The row (from k0) lane t reads at `step` of a K-major 8-bit register."""
    return 4 * t + ((step + t // 2) % 4 if rotated else step)


@pytest.mark.parametrize("row_bytes", [32, 64, 128, 256, 384])
def test_k_major_byte_loads_spread_over_the_bank_groups(row_bytes):
    """Analytically: at each step of a K-major i8 fragment load, the 4 rows
    that lanes t = 0..3 read (4t + (s + t // 2) % 4) hit 4 distinct bank
    groups under the swizzle; without the t // 2 shift (4t + s) they hit 2."""
    with ir.Context():
        swizzle = Swizzle.of((64, row_bytes), ir.IntegerType.get_signless(8))
    assert swizzle is not None
    chunks = row_bytes // 16

    def groups(k0: int, step: int, chunk: int, rotated: bool) -> set[int]:
        rows = [k0 + _k_major_rows(t, step, rotated) for t in range(4)]
        return {(r * chunks + swizzle.chunk_of(r, chunk)) % BANK_GROUPS for r in rows}

    for k0 in (0, 16, 32, 48):
        for step in range(4):
            for chunk in range(chunks):
                assert len(groups(k0, step, chunk, rotated=True)) == 4
    assert len(groups(0, 0, 0, rotated=False)) == 2


def _int8_k_major_gemm(block_m: int, block_n: int):
    """One block: C = A^T-stored (K x M) x B (K x N), i8 -> i32, K = 32."""
    import tilec.language as T

    @T.prim_func
    def gemm(A: T.Tensor((32, block_m), "int8"), B: T.Tensor((32, block_n), "int8"),
             C: T.Tensor((block_m, block_n), "int32")):
        with T.Kernel(1, threads=128) as _:
            a = T.alloc_shared((32, block_m), "int8")
            b = T.alloc_shared((32, block_n), "int8")
            c = T.alloc_fragment((block_m, block_n), "int32")
            T.clear(c)
            T.copy(A[0, 0], a)
            T.copy(B[0, 0], b)
            T.gemm(a, b, c, transpose_A=True)
            T.copy(c, C[0, 0])

    return gemm


@pytest.mark.parametrize("block_m, block_n, loads", [(128, 64, 4 * (2 * 16 + 8 * 8)),
                                                     (32, 32, 4 * (1 * 16 + 2 * 8))])
def test_int8_k_major_fragment_loads_have_no_bank_conflicts(block_m, block_n, loads):
    """The byte loads of the K-major i8 operands (A stored K x M, B K x N)
    in the generated kernel: one wavefront each, 128-, 64- and 32-byte rows."""
    rng = np.random.default_rng(0)
    a = rng.integers(-128, 128, (32, block_m)).astype(np.int8)
    b = rng.integers(-128, 128, (32, block_n)).astype(np.int8)
    c = np.zeros((block_m, block_n), np.int32)
    kernel = tilec.compile(_int8_k_major_gemm(block_m, block_n), target="cuda:sm_80")
    trace: list[SharedAccess] = []
    with ir.make_context() as context:
        module = ir.parse_module(kernel.ir("cse"), "<cuda>", context)
        run_launches(module, kernel.name, [a, b, c], trace)
    np.testing.assert_array_equal(c, a.T.astype(np.int32) @ b.astype(np.int32))
    # 4 warps x (A: m16 tiles x 16 + B: n8 tiles x 8 loads) per lane.
    assert word_conflicts(trace, "ld.shared") == (loads, 0)
