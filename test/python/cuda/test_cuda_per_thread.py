"""Per-thread (SIMT) code on cuda: each thread runs its own iteration of the DSL's loops
over the threads (tile-cuda-distribute-thread-loops), and its `T.alloc_local` tiles are
its own, counted and kept per thread, not per block."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec import ir
from tilec.backends.cuda.binary import find_ptxas
from tilec.diagnostics import CompileError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from simt import run_launches

ARCHS = ("sm_80", "sm_90a")
RNG = np.random.default_rng(28)


def _run(kernel_fn, arch: str, *args) -> tilec.CompiledKernel:
    kernel = tilec.compile(kernel_fn, target=f"cuda:{arch}")
    with ir.make_context() as context:
        run_launches(ir.parse_module(kernel.ir("cse"), "<cuda>", context), kernel.name,
                     list(args))
    return kernel


def _rows_across_a_barrier(n: int, threads: int, width: int):
    """Each thread keeps `width` values in a local tile across T.sync_threads and adds
    the value its mirror thread staged in shared memory; rows past `n` are not written."""

    @T.prim_func
    def rows(A: T.Tensor((n, width), "float32"), B: T.Tensor((n, width), "float32")):
        with T.Kernel(T.ceildiv(n, threads), threads=threads) as bx:
            tx = T.get_thread_binding()
            staged = T.alloc_shared((threads,), "float32")
            mine = T.alloc_local((width,), "float32")
            T.clear(mine)
            row = bx * threads + tx
            for i in T.serial(width):
                if row < n:
                    mine[i] = A[row, i] * 2.0
            staged[tx] = mine[0]
            T.sync_threads()
            for i in T.serial(width):
                if row < n:
                    B[row, i] = mine[i] + staged[threads - 1 - tx]

    return rows


def _rows_reference(a: np.ndarray, threads: int) -> np.ndarray:
    n, width = a.shape
    padded = np.zeros((-(-n // threads) * threads, width), np.float32)
    padded[:n] = a * 2.0
    staged = padded[:, 0].reshape(-1, threads)[:, ::-1].reshape(-1)
    return (padded + staged[:, None])[:n]


@pytest.mark.parametrize("arch", ARCHS)
def test_local_tile_across_a_barrier_is_per_thread(arch):
    """64 threads of 8 f32 each: 2048 bytes for the block, 32 per thread; the tile is a
    private array of the thread (registers: no stack frame), not a shared one."""
    n, threads, width = 100, 64, 8
    a = RNG.standard_normal((n, width)).astype(np.float32)
    b = np.zeros_like(a)
    kernel = _run(_rows_across_a_barrier(n, threads, width), arch, a, b)
    np.testing.assert_allclose(b, _rows_reference(a, threads), rtol=1e-6)
    lowered = kernel.ir("cse")
    assert "memref.alloca() : memref<8xf32>" in lowered
    assert "64x8xf32" not in lowered
    assert "tile.cuda_per_thread" in lowered
    # The shared memory is the staged row alone.
    assert "dynamic_shared_memory_size %c256_i32" in lowered
    if find_ptxas() is not None:
        resources = kernel.resources()
        assert resources.stack_bytes == 0 and resources.spill_stores == 0, resources


def test_a_thread_holds_at_most_255_registers():
    """The per-thread limit still applies, to one thread's tile."""
    with pytest.raises(CompileError, match="local tile of 1024 bytes does not fit on cuda:sm_80"):
        tilec.compile(_rows_across_a_barrier(64, 32, 256), target="cuda:sm_80")


def test_per_thread_accumulator_and_atomic_add():
    """naive gemv's shape of code: a cleared one-element accumulator per thread, a loop
    whose stores to shared memory every thread makes, and each thread's own atomic add."""
    n, k, threads = 70, 40, 32

    @T.prim_func
    def gemv(A: T.Tensor((n, k), "float32"), x: T.Tensor((k,), "float32"),
             y: T.Tensor((n,), "float32"), total: T.Tensor((1,), "float32")):
        with T.Kernel(T.ceildiv(n, threads), threads=threads) as bx:
            tx = T.get_thread_binding()
            xs = T.alloc_shared((k,), "float32")
            acc = T.alloc_local((1,), "float32")
            T.clear(acc)
            for i in T.serial(k):
                xs[i] = x[i]
            row = bx * threads + tx
            for i in T.serial(k):
                if row < n:
                    acc[0] += A[row, i] * xs[i]
            if row < n:
                y[row] = acc[0]
                T.atomic_add(total[0], acc[0])

    a = RNG.standard_normal((n, k)).astype(np.float32)
    x = RNG.standard_normal(k).astype(np.float32)
    y = np.zeros(n, np.float32)
    total = np.zeros(1, np.float32)
    _run(gemv, "sm_80", a, x, y, total)
    np.testing.assert_allclose(y, a @ x, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(total, [(a @ x).sum()], rtol=1e-4, atol=1e-4)


def test_per_thread_code_with_a_tile_op_of_its_own_keeps_the_block_loop():
    """A per-thread `T.copy` into a local tile is a tile op the lowering spreads over the
    block: that loop keeps every thread running every iteration, and the per-thread rows
    it reads are counted in shared memory, where it keeps them (2 KiB: above the 1020
    bytes of one thread's registers)."""
    n, threads, width = 64, 64, 8

    @T.prim_func
    def copied(A: T.Tensor((n, width), "float32"), B: T.Tensor((n, width), "float32")):
        with T.Kernel(1, threads=threads):
            tx = T.get_thread_binding()
            mine = T.alloc_local((width,), "float32")
            T.copy(A[tx, 0], mine)
            T.sync_threads()
            for i in T.serial(width):
                B[tx, i] = mine[i] + 1.0

    a = RNG.standard_normal((n, width)).astype(np.float32)
    b = np.zeros_like(a)
    kernel = _run(copied, "sm_80", a, b)
    np.testing.assert_allclose(b, a + 1.0, rtol=1e-6)
    assert "memref<64x8xf32, #gpu.address_space<workgroup>>" in kernel.ir("cse")
