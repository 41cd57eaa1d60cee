"""The cuda target on Hopper (sm_90a) without a GPU: wgmma gemms.

Every example kernel compiles for sm_90a and the CUDA assembler accepts it;
the f16/bf16 gemms run on `wgmma.mma_async`, and their lowered IR runs
against numpy in the SIMT emulator (simt_hopper.py), whose wgmma reads the
operands through the descriptors by the PTX ISA's rules: the descriptors,
the operand swizzle the copies (TMA boxes, test_cuda_tma.py) write and the
accumulator layout are checked on numbers, on shapes that are not tile
multiples. Blocks that are not whole warpgroups keep mma.sync.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec import ir
from tilec.backends.cuda.binary import find_ptxas
from tilec.passes.conversion.tile_to_cuda.analysis.gemm_shape import GemmShape
from tilec.passes.conversion.tile_to_cuda.analysis.wgmma_plan import wgmma_grid

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from example_kernels import example
from simt_hopper import run_launches
from test_cuda_compile import KERNELS

pytestmark = pytest.mark.e2e

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="no CUDA assembler (ptxas) here")
WGMMA = r"wgmma\.mma_async\.sync\.aligned\.m64n(\d+)k(\d+)\.f32\.(\w+)\.(\w+)"


def emulate(kernel_fn, *args) -> tilec.CompiledKernel:
    """Compiles for cuda:sm_90a and runs the IR after convert-tile-to-cuda on `args`."""
    kernel = tilec.compile(kernel_fn, target="cuda:sm_90a")
    with ir.make_context() as context:
        module = ir.parse_module(kernel.ir("cse"), "<cuda>", context)
        run_launches(module, kernel.name, list(args))
    return kernel


GEMMS = {
    # block_K = 32: A's 64-byte rows are 64-byte swizzled panels, B's 128-byte ones.
    "f16": ({"in_dtype": "float16"}, 2e-3),
    "bf16 A transposed": ({"in_dtype": "bfloat16", "trans_A": True}, 1e-5),
    "f16 B transposed": ({"in_dtype": "float16", "trans_B": True}, 2e-3),
    "f16 both transposed, f16 out, relu": ({"in_dtype": "float16", "trans_A": True,
                                            "trans_B": True, "out_dtype": "float16",
                                            "relu": True}, 3e-3),
    # 32-byte panels (block_K = 16 f16 for A).
    "f16 block_K 16": ({"in_dtype": "float16", "block_K": 16}, 2e-3),
    # 128-byte rows in two panels along K, a 3-stage cp.async pipeline.
    "f16 block_K 64, 3 stages": ({"in_dtype": "float16", "block_K": 64, "num_stages": 3}, 2e-3),
}


@pytest.mark.parametrize("name", sorted(GEMMS))
def test_wgmma_gemm_matches_numpy(name):
    variant, tolerance = GEMMS[name]
    variant = dict(variant)
    gemm = example("gemm")
    m, n, k = 70, 50, 136 if variant.get("block_K") == 64 else 40
    in_dtype = gemm.numpy_dtype(variant["in_dtype"])
    out_dtype = gemm.numpy_dtype(variant.get("out_dtype", "float32"))
    trans_a, trans_b = variant.get("trans_A", False), variant.get("trans_B", False)
    rng = np.random.default_rng(3)
    a = rng.standard_normal((k, m) if trans_a else (m, k)).astype(in_dtype)
    b = rng.standard_normal((n, k) if trans_b else (k, n)).astype(in_dtype)
    c = np.zeros((m, n), out_dtype)
    variant = {"block_M": 64, "block_N": 64, "block_K": 32, **variant}
    kernel = emulate(gemm.matmul(m, n, k, **variant), a, b, c)
    assert re.search(WGMMA, kernel.source()) and "mma.sync" not in kernel.source()
    expected = gemm.reference(a, b, trans_A=trans_a, trans_B=trans_b,
                              relu=variant.get("relu", False))
    error = float(np.max(np.abs(c.astype(np.float32) - expected)) / np.max(np.abs(expected)))
    assert error <= tolerance


def _warpgroup_gemm(m, n, k, block_m=128, block_n=64, block_k=32, threads=256, stages=2,
                    dtype="float16"):
    """C = 2 A B^T + 1 with B stored N x K (both operands K-major), the
    epilogue element-wise on the wgmma fragment (T.Parallel) before the store."""

    @T.prim_func
    def gemm(A: T.Tensor((m, k), dtype), B: T.Tensor((n, k), dtype),
             C: T.Tensor((m, n), "float32")):
        with T.Kernel(T.ceildiv(n, block_n), T.ceildiv(m, block_m), threads=threads) as (bx, by):
            a = T.alloc_shared((block_m, block_k), dtype)
            b = T.alloc_shared((block_n, block_k), dtype)
            acc = T.alloc_fragment((block_m, block_n), "float32")
            T.clear(acc)
            for kk in T.Pipelined(T.ceildiv(k, block_k), num_stages=stages):
                T.copy(A[by * block_m, kk * block_k], a)
                T.copy(B[bx * block_n, kk * block_k], b)
                T.gemm(a, b, acc, transpose_B=True)
            for i, j in T.Parallel(block_m, block_n):
                acc[i, j] = acc[i, j] * 2.0 + 1.0
            T.copy(acc, C[by * block_m, bx * block_n])

    return gemm


def test_two_warpgroups_and_fragment_epilogue_match_numpy():
    m, n, k = 150, 40, 72
    rng = np.random.default_rng(4)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((n, k)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    # Two warpgroups split the 128 x 64 C along M.
    kernel = emulate(_warpgroup_gemm(m, n, k), a, b, c)
    assert "wgmma:2x1" in kernel.ir("cse")
    expected = 2 * (a.astype(np.float32) @ b.astype(np.float32).T) + 1
    assert np.max(np.abs(c - expected)) <= 2e-3 * np.max(np.abs(expected))


def _small_block_gemm(threads):
    @T.prim_func
    def gemm(A: T.Tensor((64, 32), "float16"), B: T.Tensor((32, 64), "float16"),
             C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=threads):
            a = T.alloc_shared((64, 32), "float16")
            b = T.alloc_shared((32, 64), "float16")
            acc = T.alloc_fragment((64, 64), "float32")
            T.copy(A[0, 0], a)
            T.copy(B[0, 0], b)
            T.gemm(a, b, acc, clear_accum=True)
            T.copy(acc, C[0, 0])

    return gemm


@pytest.mark.parametrize("causal", [False, True])
def test_wgmma_flash_attention_matches_numpy(causal):
    """Both gemms on wgmma: Q K^T (K stored N x K: K-major, m64n32) and P V
    (V stored K x N: N-major, m64n64); the row reductions and rescales run on
    the fragments, 70 rows leave a partial block."""
    attention = example("flash_attention")
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((1, 1, 70, 64)).astype(np.float16) for _ in range(3))
    out = np.zeros_like(q)
    kernel = emulate(attention.flash_attention(1, 1, 70, 64, causal=causal, dtype="float16",
                                               block_M=64, block_N=32), q, k, v, out)
    shapes = {match[:2] for match in re.findall(WGMMA, kernel.source())}
    assert shapes == {("32", "16"), ("64", "16")}
    error = float(np.max(np.abs(out.astype(np.float32) - attention.reference(q, k, v, causal))))
    assert error <= 3e-3


def test_bshd_tiles_seen_through_unit_dim_views_run_on_wgmma():
    """`T.copy(Q[b, rows, h, :], Q_shared)` copies into the tile seen as 1 x 64 x 1 x 64; the
    copy is moved onto the tile (tile-cuda-drop-unit-dim-views), so Q K^T runs on wgmma
    (the view used to keep it on mma.sync); 100 keys leave a partial block."""
    seq, heads, dim = 100, 2, 64

    @T.prim_func
    def scores(Q: T.Tensor((1, seq, heads, dim), "float16"),
               K: T.Tensor((1, seq, heads, dim), "float16"),
               S: T.Tensor((1, heads, seq, seq), "float32")):
        with T.Kernel(T.ceildiv(seq, 64), T.ceildiv(seq, 64), heads, threads=128) as (bx, by, h):
            q = T.alloc_shared((64, dim), "float16")
            k = T.alloc_shared((64, dim), "float16")
            s = T.alloc_fragment((64, 64), "float32")
            T.copy(Q[0, by * 64 : (by + 1) * 64, h, :], q)
            T.copy(K[0, bx * 64 : (bx + 1) * 64, h, :], k)
            T.gemm(q, k, s, transpose_B=True, clear_accum=True)
            T.copy(s, S[0, h, by * 64, bx * 64])

    rng = np.random.default_rng(6)
    q, k = (rng.standard_normal((1, seq, heads, dim)).astype(np.float16) for _ in range(2))
    out = np.zeros((1, heads, seq, seq), np.float32)
    kernel = emulate(scores, q, k, out)
    assert re.search(WGMMA, kernel.source()) and "mma.sync" not in kernel.source()
    expected = np.einsum("shd,thd->hst", q[0].astype(np.float32), k[0].astype(np.float32))
    np.testing.assert_allclose(out[0], expected, rtol=1e-3, atol=1e-3)


def test_blocks_of_partial_warpgroups_keep_mma_sync():
    # 64 threads cannot form a warpgroup: mma.sync, as on sm_80; 128 can.
    assert "mma.sync.aligned.m16n8k16" in tilec.compile(
        _small_block_gemm(64), target="cuda:sm_90a").source()
    assert re.search(WGMMA, tilec.compile(_small_block_gemm(128), target="cuda:sm_90a").source())
    shape = GemmShape(48, 64, 32, "f16", "f32", False, False)
    assert wgmma_grid(shape, 96, (48, 32), (32, 64), 16) is None
    assert wgmma_grid(shape, 128, (48, 32), (32, 64), 16) is None  # M not 64 per warpgroup


def test_wgmma_grid_rules():
    f16 = GemmShape(128, 256, 64, "f16", "f32", False, False)
    # Warpgroups over M first; N up to 256 per instruction.
    grid = wgmma_grid(f16, 256, (128, 64), (64, 256), 16)
    assert (grid.wg_m, grid.wg_n, grid.n_step, grid.k_step) == (2, 1, 256, 16)
    # M = 64 cannot be split by two warpgroups: they split N.
    grid = wgmma_grid(GemmShape(64, 256, 64, "f16", "f32", False, False), 256, (64, 64),
                      (64, 256), 16)
    assert (grid.wg_m, grid.wg_n, grid.n_step) == (1, 2, 128)
    # 8-bit floats: K-major operands only (A M x K, B N x K), k32 instructions.
    e4m3 = GemmShape(128, 128, 128, "f8E4M3FN", "f32", False, True)
    assert wgmma_grid(e4m3, 128, (128, 128), (128, 128), 8).k_step == 32
    e4m3_mn = GemmShape(128, 128, 128, "f8E4M3FN", "f32", False, False)
    assert wgmma_grid(e4m3_mn, 128, (128, 128), (128, 128), 8) is None
    # f32 operands and an f16 accumulator have no wgmma here.
    assert wgmma_grid(GemmShape(64, 64, 32, "f32", "f32", False, False), 128, (64, 32),
                      (32, 64), 32) is None
    assert wgmma_grid(GemmShape(64, 64, 32, "f16", "f16", False, False), 128, (64, 32),
                      (32, 64), 16) is None
    # Rows of 24 bytes cannot be swizzled panels.
    assert wgmma_grid(GemmShape(64, 64, 12, "f16", "f32", False, False), 128, (64, 12),
                      (12, 64), 16) is None


# The examples that the sm_80 compile tests do not list.
HOPPER_KERNELS = {
    **KERNELS,
    "fp8 gemm symbolic M": lambda: example("fp8_gemm").fp8_gemm(T.symbolic("M"), 200, 300),
    "mla decode f16 split": lambda: example("mla_decode").mla_decode(
        1, 16, 300, 512, 64, dtype="float16", num_split=3, block_H=16, block_N=32
    ),
    "mla decode bf16 block_H 64": lambda: example("mla_decode").mla_decode(
        2, 64, T.symbolic("S"), 128, 32, dtype="bfloat16"
    ),
}


@pytest.fixture(scope="module")
def compiled():
    cache: dict[str, tilec.CompiledKernel] = {}

    def get(name: str):
        if name not in cache:
            cache[name] = tilec.compile(HOPPER_KERNELS[name](), target="cuda", arch="sm_90a")
        return cache[name]

    return get


@needs_ptxas
@pytest.mark.parametrize("name", sorted(HOPPER_KERNELS))
def test_ptxas_accepts_example_for_sm_90a(compiled, name):
    kernel = compiled(name)
    assert ".target sm_90a" in kernel.source()
    assert kernel.binary()[:4] == b"\x7fELF"
    resources = kernel.resources()
    assert 0 < resources.registers <= 255
    # The 16-bit gemms and attention run on wgmma (the f32 ones are FMA loops).
    if ("f16" in name and name.startswith(("gemm", "flash attention"))) or "fp8" in name:
        assert re.search(WGMMA, kernel.source()) and "mma.sync" not in kernel.source()


def _instruction_mix(ptx: str) -> dict[str, int]:
    return {
        "wgmma": len(re.findall(r"wgmma\.mma_async", ptx)),
        "cp.async": len(re.findall(r"cp\.async\.cg", ptx)),
        "mma.sync": len(re.findall(r"mma\.sync", ptx)),
        "fence.proxy.async": ptx.count("fence.proxy.async"),
        # The operand loads: TMA boxes completing on an mbarrier ring.
        "cp.async.bulk.tensor": ptx.count("cp.async.bulk.tensor"),
        "mbarrier": ptx.count("mbarrier."),
    }


@needs_ptxas
@pytest.mark.parametrize("block_n, threads", [(128, 128), (256, 256)])
def test_gemm_128xNx64_on_wgmma_without_spills(block_n, threads):
    """bf16 128 x N x 64 tiles, 3 stages: one warpgroup for N = 128, two
    (one m64 tile each) for N = 256, whose 128 x 256 accumulator needs them."""
    kernel = tilec.compile(
        _warpgroup_gemm(1024, 1024, 1024, block_n=block_n, block_k=64, threads=threads,
                        stages=3, dtype="bfloat16"),
        target="cuda:sm_90a",
    )
    ptx = kernel.source()
    mix = _instruction_mix(ptx)
    # 128 / 64 / warpgroups m64 tiles per warpgroup, four k16 steps.
    assert mix["wgmma"] == 128 // 64 // (threads // 128) * 4 and mix["mma.sync"] == 0
    assert mix["cp.async.bulk.tensor"] > 0 and mix["cp.async"] == 0 and mix["mbarrier"] > 0
    assert re.findall(WGMMA, ptx)[0] == (str(block_n), "16", "bf16", "bf16")
    resources = kernel.resources()
    print(f"gemm 128x{block_n}x64 bf16 sm_90a ({threads} threads): {mix}, {resources}")
    assert resources.spill_stores == resources.spill_loads == 0


@needs_ptxas
def test_fp8_block_scaled_gemm_uses_e4m3_wgmma():
    """examples/fp8_gemm.py (DeepGEMM's scheme) on sm_90a: m64n128k32 e4m3
    wgmma from K-major 128-byte panels, the scales applied on the fragment."""
    kernel = tilec.compile(example("fp8_gemm").fp8_gemm(256, 256, 256), target="cuda:sm_90a")
    ptx = kernel.source()
    assert set(re.findall(WGMMA, ptx)) == {("128", "32", "e4m3", "e4m3")}
    # One warpgroup, one m64 tile, K = 128 in four k32 steps.
    assert len(re.findall(WGMMA, ptx)) == 4
    resources = kernel.resources()
    print(f"fp8 gemm 64x128x128 sm_90a: {_instruction_mix(ptx)}, {resources}")
    assert resources.spill_stores == resources.spill_loads == 0


@needs_ptxas
def test_e5m2_gemm_uses_e5m2_wgmma():
    kernel = tilec.compile(_warpgroup_gemm(200, 100, 96, block_k=64, dtype="float8_e5m2"),
                           target="cuda:sm_90a")
    assert set(re.findall(WGMMA, kernel.source())) == {("64", "32", "e5m2", "e5m2")}
    assert kernel.binary()[:4] == b"\x7fELF"


def _fp8_read_elementwise():
    @T.prim_func
    def kernel(A: T.Tensor((64, 64), "float8_e4m3"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=128):
            a = T.alloc_shared((64, 64), "float8_e4m3")
            c = T.alloc_fragment((64, 64), "float32")
            T.copy(A[0, 0], a)
            for i, j in T.Parallel(64, 64):
                c[i, j] = a[i, j]
            T.copy(c, C[0, 0])

    return kernel


def test_fp8_outside_wgmma_operands_runs():
    """An e4m3 tile read element by element, not a wgmma operand, is converted in
    software (tile-cuda-expand-fp8-conversions), exactly as numpy converts it."""
    a = np.random.default_rng(5).standard_normal((64, 64)).astype(ml_dtypes.float8_e4m3fn)
    c = np.zeros((64, 64), np.float32)
    emulate(_fp8_read_elementwise(), a, c)
    np.testing.assert_array_equal(c, a.astype(np.float32))
    # fp8 wgmma operands on a chip without wgmma: f16 operands of mma.sync
    gemm = example("fp8_gemm").fp8_gemm(128, 128, 128)
    source = tilec.compile(gemm, target="cuda:sm_89").source()
    assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in source
    assert "wgmma" not in source
