"""TMA loads and the mbarrier ring on sm_90a, without a GPU.

The tensor-map arguments the driver passes to `cuTensorMapEncodeTiled` are
checked as numbers; the kernels run in the SIMT emulator (simt_hopper.py),
whose TMA lands boxes by the PTX ISA's rules from those same arguments and
only when a thread waits on the box's mbarrier, so a wrong parity, a
missing wait or an early refill gives wrong numbers or a reported deadlock.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from mlir.dialects import arith

import tilec
import tilec.language as T
from tilec import ir
from tilec.backends.cuda.launch_plan import LaunchPlan
from tilec.backends.cuda.tensor_maps import TmaDescriptor, tensor_map_arguments

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from example_kernels import example
from simt import EmulationError
from simt_hopper import run_launches
from test_cuda_hopper import WGMMA, _warpgroup_gemm, emulate

pytestmark = pytest.mark.e2e


def test_tensor_map_arguments():
    bf16 = TmaDescriptor(0, "bf16", (64, 128), 128)
    arguments = tensor_map_arguments(bf16, (300, 200), 4096)
    # Dims and byte strides innermost first; BFLOAT16 = 9, SWIZZLE_128B = 3, zero OOB fill.
    assert (arguments.data_type, arguments.dims, arguments.strides) == (9, (200, 300), (400,))
    assert (arguments.box, arguments.element_strides) == ((64, 128), (1, 1))
    assert (arguments.swizzle, arguments.interleave, arguments.oob_fill) == (3, 0, 0)
    # fp8 goes as UINT8; rank 4 (attention's [batch, heads, seq, dim]).
    fp8 = TmaDescriptor(1, "f8E4M3FN", (128, 64, 1, 1), 128)
    arguments = tensor_map_arguments(fp8, (2, 3, 70, 128), 0)
    assert arguments.data_type == 0 and arguments.dims == (128, 70, 3, 2)
    assert arguments.strides == (128, 128 * 70, 128 * 70 * 3)
    assert tensor_map_arguments(TmaDescriptor(0, "f16", (16, 64), 32), (64, 16), 0).swizzle == 1
    # What TMA cannot read: no map (the kernel copies by threads).
    f16 = TmaDescriptor(0, "f16", (32, 64), 64)
    assert tensor_map_arguments(f16, (64, 36), 0) is None  # 72-byte rows
    assert tensor_map_arguments(f16, (64, 64), 8) is None  # base not 16-byte aligned
    assert tensor_map_arguments(f16, (0, 64), 0) is None
    with pytest.raises(tilec.diagnostics.CompileError, match="too large for a TMA tensor map"):
        tensor_map_arguments(f16, (1 << 31, 64), 0)


def test_launch_plan_records_tensor_maps():
    # A symbolic M: the ring, which copies by threads where a map cannot be encoded.
    kernel = tilec.compile(_warpgroup_gemm(T.symbolic("M"), 40, 72, block_k=64, stages=3,
                                           dtype="bfloat16"), target="cuda:sm_90a")
    plan = kernel.binary.plan
    # A (128 x 64) and B (64 x 64) tiles: one 128-byte box each, from parameters 0 and 1.
    assert plan.descriptors == (TmaDescriptor(0, "bf16", (64, 128), 128),
                                TmaDescriptor(1, "bf16", (64, 64), 128))
    launch = plan.launches[0]
    assert [a for a in launch.args if a[0] == "tma"] == [["tma", 0], ["tma", 1]]
    assert launch.arg_types.count("!llvm.ptr") == 2
    assert LaunchPlan.from_json(plan.to_json()) == plan
    ptx = kernel.source()
    tma = ptx.count("cp.async.bulk.tensor.2d")
    # The thread copies standing in where a base is not 16-byte aligned are cp.async ones.
    assert tma > 0 and tma % 2 == 0 and "cp.async.cg" in ptx
    assert "mbarrier.try_wait.parity" in ptx and "mbarrier.arrive.expect_tx" in ptx


def _gemm_error(m, n, k, stages, dtype, block_k=32, a_offset=0, symbolic_m=False):
    in_dtype = example("gemm").numpy_dtype(dtype)
    rng = np.random.default_rng(m + n + k + stages)
    # a_offset elements in: a base that is not 16-byte aligned (no tensor map).
    a_buffer = rng.standard_normal(m * k + a_offset).astype(in_dtype)
    a = a_buffer[a_offset:].reshape(m, k)
    b = rng.standard_normal((n, k)).astype(in_dtype)
    c = np.zeros((m, n), np.float32)
    rows = T.symbolic("M") if symbolic_m else m
    kernel = emulate(_warpgroup_gemm(rows, n, k, block_k=block_k, stages=stages, dtype=dtype),
                     a, b, c)
    assert re.search(WGMMA, kernel.source())
    expected = 2 * (a.astype(np.float32) @ b.astype(np.float32).T) + 1
    return float(np.max(np.abs(c - expected)) / max(np.max(np.abs(expected)), 1.0)), kernel


@pytest.mark.parametrize("stages", [1, 2, 3])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
# Trip counts 1, 2 and 5 (K = 24: one partial tile; 40: two; 136: five, the last partial).
@pytest.mark.parametrize("k", [24, 40, 136])
def test_tma_gemm_matches_numpy(k, dtype, stages):
    # One stage: each copy a TMA load on its own mbarrier; more: warp-specialized.
    error, kernel = _gemm_error(150, 40, k, stages, dtype)
    tolerance = 2e-3 if dtype == "float16" else 1e-2
    assert error <= tolerance
    assert kernel.binary.plan.descriptors


def _gemm_of_steps(m, n, k, stages, block_m=128, block_n=64, block_k=32, registers=None):
    """C = A[:, :32 steps] B[:, :32 steps]^T + 1: the trip count is a scalar argument.
    `registers`: (consumer, producer) counts for T.set_max_nreg, or "none" for
    T.no_set_max_nreg."""

    @T.prim_func
    def gemm(A: T.Tensor((m, k), "float16"), B: T.Tensor((n, k), "float16"),
             C: T.Tensor((m, n), "float32"), steps: T.int32):
        with T.Kernel(T.ceildiv(n, block_n), T.ceildiv(m, block_m), threads=256) as (bx, by):
            a = T.alloc_shared((block_m, block_k), "float16")
            b = T.alloc_shared((block_n, block_k), "float16")
            acc = T.alloc_fragment((block_m, block_n), "float32")
            if registers == "none":
                T.no_set_max_nreg()
            elif registers is not None:
                T.set_max_nreg(registers[0], 1)
                T.set_max_nreg(registers[1], 0)
            T.clear(acc)
            for kk in T.Pipelined(steps, num_stages=stages):
                T.copy(A[by * block_m, kk * block_k], a)
                T.copy(B[bx * block_n, kk * block_k], b)
                T.gemm(a, b, acc, transpose_B=True)
            for i, j in T.Parallel(block_m, block_n):
                acc[i, j] = acc[i, j] + 1.0
            T.copy(acc, C[by * block_m, bx * block_n])

    return gemm


@pytest.mark.parametrize("steps", [0, 1, 2, 5])
def test_warp_specialized_trip_counts_match_numpy(steps):
    """0, 1, 2 and 5 iterations of a 3-stage warp-specialized loop (fewer than
    the stages, not a multiple of them; the fifth box is partly past K)."""
    m, n, k = 150, 40, 136
    rng = np.random.default_rng(steps)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    kernel = emulate(_gemm_of_steps(m, n, k, 3), a, b, c, steps)
    assert kernel.binary.plan.block == (384, 1, 1)
    used = min(k, 32 * steps)
    expected = a[:, :used].astype(np.float32) @ b[:, :used].astype(np.float32).T + 1
    assert np.max(np.abs(c - expected)) <= 2e-3 * max(np.max(np.abs(expected)), 1.0)


def test_emulator_catches_a_wrong_parity(monkeypatch):
    """Waiting for the wrong phase (consumers and producer alike) must not
    pass: the slot is read before its boxes land, or the ring deadlocks."""
    from tilec.passes.conversion.tile_to_cuda.ops import warp_specialize

    right = warp_specialize._slot_and_parity

    def wrong(*args):
        slot, parity = right(*args)
        return slot, arith.xori(parity, arith.constant(parity.type, 1))

    monkeypatch.setattr(warp_specialize, "_slot_and_parity", wrong)
    try:
        error, _ = _gemm_error(70, 40, 136, 2, "float16")
    except EmulationError:
        return
    assert not error <= 2e-3


def test_tma_ring_with_no_iteration_leaves_the_accumulator_cleared():
    # K = 0: the loop runs no iteration, no box is issued, C = 2 * 0 + 1.
    m, n = 70, 40
    a = np.zeros((m, 0), np.float16)
    b = np.zeros((n, 0), np.float16)
    c = np.zeros((m, n), np.float32)
    emulate(_warpgroup_gemm(m, n, 0, stages=3), a, b, c)
    assert np.array_equal(c, np.ones((m, n), np.float32))


@pytest.mark.parametrize("stages", [2, 3])
@pytest.mark.parametrize("k", [24, 136])
def test_mbarrier_ring_of_dynamic_shapes_matches_numpy(k, stages):
    # A symbolic M keeps the ring (thread copies may stand in for TMA): 256 threads, no producer.
    error, kernel = _gemm_error(150, 40, k, stages, "float16", symbolic_m=True)
    assert error <= 2e-3
    assert kernel.binary.plan.block == (256, 1, 1) and "setmaxnreg" not in kernel.source()


def test_unaligned_base_falls_back_to_thread_copies():
    # A's base 2 bytes off 16: the ring copies A by threads, B by TMA, same numbers.
    error, _ = _gemm_error(70, 40, 72, 2, "float16", a_offset=1, symbolic_m=True)
    assert error <= 2e-3


def test_register_hints_reach_the_warp_specialized_kernel():
    """T.set_max_nreg's counts replace the default 232/40; T.no_set_max_nreg leaves
    the registers alone (and the kernel needs no register budget at entry)."""
    m, n, k = 150, 40, 136
    hinted = tilec.compile(_gemm_of_steps(m, n, k, 3, registers=(240, 24)),
                           target="cuda:sm_90a").source()
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+240;", hinted)
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+24;", hinted)
    plain = tilec.compile(_gemm_of_steps(m, n, k, 3, registers="none"),
                          target="cuda:sm_90a").source()
    assert "setmaxnreg" not in plain and ".maxnreg" not in plain
    rng = np.random.default_rng(7)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    emulate(_gemm_of_steps(m, n, k, 3, registers=(240, 24)), a, b, c, 2)
    expected = a[:, :64].astype(np.float32) @ b[:, :64].astype(np.float32).T + 1
    assert np.max(np.abs(c - expected)) <= 2e-3 * max(np.max(np.abs(expected)), 1.0)


def test_warp_specialized_gemm_requires_aligned_tensors():
    with pytest.raises(tilec.diagnostics.CompileError,
                       match="must start at a 16-byte aligned address"):
        _gemm_error(70, 40, 72, 2, "float16", a_offset=1)


def test_warp_specialized_gemm_structure():
    """Two consumer warpgroups and a producer one: 384 threads, 168
    registers at entry, setmaxnreg between them, the consumers' barriers
    named (bar.sync 1, 256), the tensor maps required."""
    kernel = tilec.compile(_warpgroup_gemm(1024, 1024, 1024, block_k=64, stages=3,
                                           dtype="bfloat16"), target="cuda:sm_90a")
    ptx = kernel.source()
    assert kernel.binary.plan.block == (384, 1, 1)
    assert ".maxnreg 168" in ptx
    assert re.search(r"setmaxnreg\.inc\.sync\.aligned\.u32\s+232;", ptx)
    assert re.search(r"setmaxnreg\.dec\.sync\.aligned\.u32\s+40;", ptx)
    assert re.search(r"bar\.sync\s+1, 256;", ptx) and "mbarrier.arrive.shared" in ptx
    assert all(d.required for d in kernel.binary.plan.descriptors)
    resources = kernel.resources()
    assert resources.registers == 168 and resources.spill_stores == 0


@pytest.mark.parametrize("causal", [False, True])
def test_tma_flash_attention_matches_numpy(causal):
    attention = example("flash_attention")
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal((1, 2, 70, 64)).astype(np.float16) for _ in range(3))
    out = np.zeros_like(q)
    kernel = emulate(attention.flash_attention(1, 2, 70, 64, causal=causal, dtype="float16",
                                               block_M=64, block_N=32), q, k, v, out)
    assert "cp.async.bulk.tensor.4d" in kernel.source()
    error = float(np.max(np.abs(out.astype(np.float32) - attention.reference(q, k, v, causal))))
    assert error <= 3e-3


_DEADLOCK = """
func.func @entry() {
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %c64 = arith.constant 64 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c128, %sy = %c1, %sz = %c1)
             dynamic_shared_memory_size %c64 {
    %smem = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
    %c0 = arith.constant 0 : index
    %view = memref.view %smem[%c0][] : memref<?xi8, #gpu.address_space<workgroup>>
        to memref<1xi64, #gpu.address_space<workgroup>>
    %base = memref.extract_aligned_pointer_as_index %view
        : memref<1xi64, #gpu.address_space<workgroup>> -> index
    %address = arith.index_cast %base : index to i64
    %barrier = llvm.inttoptr %address : i64 to !llvm.ptr<3>
    %one = arith.constant 1 : i32
    %parity = arith.constant PARITY : i32
    %first = arith.cmpi eq, %tx, %c0 : index
    scf.if %first {
      nvvm.mbarrier.init %barrier, %one : !llvm.ptr<3>, i32
    }
    gpu.barrier
    nvvm.mbarrier.try_wait.parity %barrier, %parity, %one : !llvm.ptr<3>, i32, i32
    gpu.terminator
  }
  return
}
"""


def test_emulator_reports_a_wait_that_cannot_complete():
    with ir.make_context() as context:
        # Parity 1 of a fresh barrier: the phase before the first has completed.
        run_launches(ir.parse_module(_DEADLOCK.replace("PARITY", "1"), "<t>", context),
                     "entry", [])
        # Parity 0: phase 0 needs an arrival nobody makes.
        module = ir.parse_module(_DEADLOCK.replace("PARITY", "0"), "<t>", context)
        with pytest.raises(EmulationError, match="deadlock: 128 threads wait"):
            run_launches(module, "entry", [])
