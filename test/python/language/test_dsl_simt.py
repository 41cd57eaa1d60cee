"""Per-thread (SIMT) code, `T.get_thread_binding` in a block of many threads, on cpu
against numpy: each thread's code runs once per thread; local tiles are per thread,
shared ones per block; `T.sync_threads` between per-thread phases is honoured (at the
top level and in loops all threads run alike), with per-thread values and local tiles
that live across it; tile ops that do not depend on the thread run once per block; warp
shuffles and warp reductions exchange values between lanes; a barrier or shuffle that
only some threads reach is an error at its line."""

from __future__ import annotations

import numpy as np
import pytest
from dsl_helpers import expect_error

import tilec
import tilec.language as T

RNG = np.random.default_rng(9)


def kernel_error(kernel: T.PrimFunc, tag: str, *fragments: str) -> None:
    expect_error(kernel.ir, __file__, tag, *fragments)


def test_each_thread_runs_its_code_and_sees_the_others_after_a_barrier():
    n = 200

    @T.prim_func
    def reverse(A: T.Tensor((n,), "float32"), B: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(n, 64), threads=64) as bx:
            tx = T.get_thread_binding()
            staged = T.alloc_shared((64,), "float32")
            mine = T.alloc_local((1,), "float32")
            g = bx * 64 + tx
            doubled = A[g] * 2.0
            mine[0] = doubled  # a local tile that lives across the barrier
            staged[tx] = doubled
            T.sync_threads()
            # A value (doubled, g) and a tile (mine) of this thread, the neighbour's element.
            B[g] = staged[63 - tx] + mine[0] * 10.0 + doubled * 100.0 + T.cast(g, "float32")

    a = RNG.standard_normal(n).astype(np.float32)
    b = np.zeros(n, np.float32)
    tilec.compile(reverse)(a, b)
    padded = np.zeros(256, np.float32)
    padded[:n] = 2.0 * a
    mirrored = padded.reshape(4, 64)[:, ::-1].reshape(-1)[:n]
    np.testing.assert_allclose(b, mirrored + 2.0 * a * 110.0 + np.arange(n), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize(("m", "n", "k"), [(37, 29, 45), (32, 32, 64)])  # ragged, aligned
def test_tiled_matmul_with_barriers_in_a_loop(m, n, k):
    """The CUDA textbook shared-memory matmul: one output element per thread, tiles of A
    and B staged by all threads between two barriers in each step of the k loop."""

    @T.prim_func
    def matmul(
        A: T.Tensor((m, k), "float32"),
        B: T.Tensor((k, n), "float32"),
        C: T.Tensor((m, n), "float32"),
    ):
        with T.Kernel(T.ceildiv(n, 8), T.ceildiv(m, 8), threads=64) as (bx, by):
            tx = T.get_thread_binding(0)
            row, col = tx // 8, tx % 8
            a_tile = T.alloc_shared((8, 8), "float32")
            b_tile = T.alloc_shared((8, 8), "float32")
            acc = T.alloc_var("float32", init=0.0)
            for k0 in T.serial(T.ceildiv(k, 8)):
                a_tile[row, col] = A[by * 8 + row, k0 * 8 + col]  # past the end: 0
                b_tile[row, col] = B[k0 * 8 + row, bx * 8 + col]
                T.sync_threads()
                for kk in T.serial(8):
                    acc += a_tile[row, kk] * b_tile[kk, col]
                T.sync_threads()
            C[by * 8 + row, bx * 8 + col] = acc  # past the end: dropped

    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    c = np.zeros((m, n), np.float32)
    tilec.compile(matmul)(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-4, atol=1e-4)


def test_tile_ops_that_do_not_depend_on_the_thread_run_once_per_block():
    @T.prim_func
    def mixed(
        A: T.Tensor((32, 32), "float32"),
        B: T.Tensor((32, 32), "float32"),
        C: T.Tensor((32, 32), "float32"),
        S: T.Tensor((32,), "float32"),
    ):
        with T.Kernel(1, threads=32):
            tx = T.get_thread_binding()
            a = T.alloc_shared((32, 32), "float32")
            b = T.alloc_shared((32, 32), "float32")
            acc = T.alloc_fragment((32, 32), "float32")
            T.copy(A, a)  # once, not 32 times
            T.copy(B, b)
            T.clear(acc)
            T.gemm(a, b, acc)  # accumulates once
            for j in T.serial(32):
                acc[tx, j] = acc[tx, j] + 1.0  # each thread its row
            T.copy(acc, C)  # after every thread's row, without a barrier (as TileLang)
            T.atomic_add(S[tx], 1.0)  # each thread once
            T.atomic_add(S[0], 1.0)  # a scalar atomic add is each thread's, as in TileLang

    a = RNG.standard_normal((32, 32)).astype(np.float32)
    b = RNG.standard_normal((32, 32)).astype(np.float32)
    c, s = np.zeros((32, 32), np.float32), np.zeros(32, np.float32)
    tilec.compile(mixed)(a, b, c, s)
    np.testing.assert_allclose(c, a @ b + 1.0, rtol=1e-4, atol=1e-4)
    np.testing.assert_array_equal(s, [33.0] + [1.0] * 31)


def test_thread_binding_loop_and_bindings():
    @T.prim_func
    def iota(Out: T.Tensor((3, 128), "int32")):
        with T.Kernel(3, threads=128) as bx:
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                x, y, z = T.get_thread_bindings()
                Out[bx, tx] = x * 10 + y + z + bx * 10000

    out = np.zeros((3, 128), np.int32)
    tilec.compile(iota)(out)
    expected = np.arange(128) * 10 + np.arange(3)[:, None] * 10000
    np.testing.assert_array_equal(out, expected)


def test_per_thread_code_is_loops_over_the_threads_in_tile_ir():
    @T.prim_func
    def k(A: T.Tensor((128,), "float32")):
        with T.Kernel(1, threads=128):
            A[T.get_thread_binding(0)] = 1.0

    text = str(k.ir())
    assert "scf.for" in text and "{tile.threads}" in text
    a = np.zeros(128, np.float32)
    tilec.compile(k)(a)
    np.testing.assert_array_equal(a, 1.0)


def test_barriers_only_some_threads_reach_are_errors():
    @T.prim_func
    def divergent(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            tx = T.get_thread_binding()
            if tx < 16:
                A[tx] = 0.0
                T.sync_threads()  # divergent

    kernel_error(
        divergent,
        "divergent",
        "T.sync_threads in per-thread code inside the `if` at line",
        "whose condition depends on the thread index",
    )

    @T.prim_func
    def ragged_loop(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            tx = T.get_thread_binding()
            for i in T.serial(tx):
                A[i] = 0.0
                T.sync_threads()  # ragged-loop

    kernel_error(
        ragged_loop,
        "ragged-loop",
        "inside the T.serial loop at line",
        "whose bounds depend on the thread index",
    )


def test_thread_binding_arguments_are_checked():
    @T.prim_func
    def extent(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            for tx in T.thread_binding(32, thread="threadIdx.x"):  # extent
                A[tx] = 0.0

    kernel_error(extent, "extent", "T.thread_binding: the extent must be the 64 threads")

    @T.prim_func
    def axis(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            for ty in T.thread_binding(64, thread="threadIdx.y"):  # axis
                A[ty] = 0.0

    kernel_error(axis, "axis", 'only thread="threadIdx.x" is supported')


def test_barriers_in_branches_and_pipelined_loops_all_threads_take_alike():
    """An `if` on the block index and a T.Pipelined loop hold per-thread phases split by
    barriers; each thread's running sum (a T.alloc_var) lives across all of them."""
    n = 100

    @T.prim_func
    def shifted_sums(A: T.Tensor((4, n), "float32"), B: T.Tensor((4, 32), "float32")):
        with T.Kernel(4, threads=32) as bx:
            tx = T.get_thread_binding()
            staged = T.alloc_shared((32,), "float32")
            total = T.alloc_var("float32", init=0.0)
            for step in T.Pipelined(T.ceildiv(n, 32), num_stages=2):
                staged[tx] = A[bx, step * 32 + tx]
                T.sync_threads()
                total += staged[(tx + 1) % 32]  # the neighbour's element
                T.sync_threads()
            if bx % 2 == 1:  # odd blocks: one more exchange, of the sums
                staged[tx] = total
                T.sync_threads()
                total += staged[31 - tx] * 1000.0
            B[bx, tx] = total

    a = RNG.standard_normal((4, n)).astype(np.float32)
    b = np.zeros((4, 32), np.float32)
    tilec.compile(shifted_sums)(a, b)
    padded = np.zeros((4, 128), np.float32)
    padded[:, :n] = a
    sums = np.roll(padded.reshape(4, 4, 32), -1, axis=2).sum(axis=1)
    expected = sums.copy()
    expected[1::2] += sums[1::2, ::-1] * 1000.0
    np.testing.assert_allclose(b, expected, rtol=1e-5, atol=1e-3)


def test_warp_shuffles_and_reductions_exchange_lane_values():
    @T.prim_func
    def lanes(
        A: T.Tensor((64,), "float32"),
        X: T.Tensor((64,), "float32"),
        D: T.Tensor((64,), "float32"),
        U: T.Tensor((64,), "float32"),
        S: T.Tensor((64,), "float32"),
        R: T.Tensor((64,), "float32"),
        M: T.Tensor((64,), "int32"),
    ):
        with T.Kernel(1, threads=64):
            tx = T.get_thread_binding()
            v = A[tx]
            X[tx] = T.shfl_xor(v, 3)
            D[tx] = T.shfl_down(v, 5, 16)  # in segments of 16 lanes
            U[tx] = T.shfl_up(v, 2)
            S[tx] = T.shfl_sync(v, 7)  # lane 7 of each warp, to all its lanes
            R[tx] = T.warp_reduce_sum(v)
            M[tx] = T.warp_reduce_max(T.cast(tx, "int32") * 3 % 7) + T.get_warp_idx() * 100

    a = RNG.standard_normal(64).astype(np.float32)
    x, d, u, s, r = (np.zeros(64, np.float32) for _ in range(5))
    m = np.zeros(64, np.int32)
    tilec.compile(lanes)(a, x, d, u, s, r, m)
    t = np.arange(64)
    np.testing.assert_array_equal(x, a[t ^ 3])
    np.testing.assert_array_equal(d, np.where(t % 16 + 5 < 16, a[np.minimum(t + 5, 63)], a))
    np.testing.assert_array_equal(u, np.where(t % 32 >= 2, a[np.maximum(t - 2, 0)], a))
    np.testing.assert_array_equal(s, a[t - t % 32 + 7])
    np.testing.assert_allclose(r, np.repeat(a.reshape(2, 32).sum(1), 32), rtol=1e-5)
    warp_max = np.repeat((t * 3 % 7).reshape(2, 32).max(1), 32)
    np.testing.assert_array_equal(m, warp_max + t // 32 * 100)


def test_tree_reduction_with_shuffles_in_a_loop():
    """The CUDA warp-sum idiom: `v += shfl_down(v, offset)` for offset 16, 8, 4, 2, 1,
    in a T.serial loop, then lane 0 of each warp adds its sum into the output."""
    n = 300

    @T.prim_func
    def warp_sums(A: T.Tensor((n,), "float32"), Out: T.Tensor((1,), "float32")):
        with T.Kernel(T.ceildiv(n, 128), threads=128) as bx:
            tx = T.get_thread_binding()
            v = T.alloc_var("float32", init=A[bx * 128 + tx])  # past the end: 0
            for step in T.serial(5):
                v += T.shfl_down(v, 16 >> step)
            if T.get_lane_idx() == 0:
                T.atomic_add(Out[0], v)

    a = RNG.standard_normal(n).astype(np.float32)
    out = np.zeros(1, np.float32)
    tilec.compile(warp_sums)(a, out)
    np.testing.assert_allclose(out, [a.sum()], rtol=1e-4)


def test_shuffles_only_some_threads_reach_are_errors():
    @T.prim_func
    def divergent(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=64):
            tx = T.get_thread_binding()
            if tx < 32:
                A[tx] = T.shfl_xor(A[tx], 1)  # divergent-shuffle

    kernel_error(
        divergent,
        "divergent-shuffle",
        "T.shfl_xor in per-thread code inside the `if` at line",
        "whose condition depends on the thread index",
    )


# -- per-thread code next to tile ops of the block, inside loops and ifs ---------------
# Issue 23: the loop over the threads once went around the whole T.serial loop, so each
# thread ran the gemm itself before the other threads had filled the shared tiles (4032
# of 4096 wrong). Now the loops over the threads go inside the loop, around each run of
# per-thread code, and the tile ops between them run once per iteration.

def _filled_by_threads(pipelined: bool, size: int, ko: int, threads: int):
    """C = A @ B over `ko` k-tiles of size x size, each staged into shared tiles by the
    threads element by element."""

    @T.prim_func
    def gemm_of_thread_filled_tiles(A: T.Tensor((size, size * ko), "float32"),
                                    B: T.Tensor((size * ko, size), "float32"),
                                    C: T.Tensor((size, size), "float32")):
        with T.Kernel(1, threads=threads):
            tx = T.get_thread_binding()
            a_s = T.alloc_shared((size, size), "float32")
            b_s = T.alloc_shared((size, size), "float32")
            c = T.alloc_fragment((size, size), "float32")
            T.clear(c)
            loop = T.Pipelined(ko, num_stages=2) if pipelined else T.serial(ko)
            for k in loop:
                for s in T.serial(size * size // threads):
                    index = s * threads + tx
                    a_s[index // size, index % size] = A[index // size, k * size + index % size]
                    b_s[index // size, index % size] = B[k * size + index // size, index % size]
                T.gemm(a_s, b_s, c)
            T.copy(c, C)

    return gemm_of_thread_filled_tiles


def _gemm_inputs(size: int, ko: int):
    a = RNG.standard_normal((size, size * ko)).astype(np.float32)
    b = RNG.standard_normal((size * ko, size)).astype(np.float32)
    return a, b, np.zeros((size, size), np.float32)


@pytest.mark.parametrize("pipelined", [False, True])
def test_per_thread_writes_reach_a_gemm_in_the_same_iteration(pipelined):
    a, b, c = _gemm_inputs(32, 3)
    tilec.compile(_filled_by_threads(pipelined, 32, 3, 128), target="cpu")(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)


def test_per_thread_writes_reach_a_gemm_in_the_cuda_emulator():
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cuda"))
    from test_cuda_emulated import emulate

    a, b, c = _gemm_inputs(16, 2)
    emulate(_filled_by_threads(True, 16, 2, 64), a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-4)


def test_tile_op_writes_reach_per_thread_reads_in_an_if_and_the_next_iteration():
    """The reverse order (a T.copy into a shared tile, then each thread reads it), under
    an `if` all threads take alike, and a later iteration's copy after this
    iteration's reads."""
    n, rounds = 64, 4

    @T.prim_func
    def rounds_of_copies(A: T.Tensor((rounds, n), "float32"), B: T.Tensor((n,), "float32"),
                         flag: T.int32):
        with T.Kernel(1, threads=n):
            tx = T.get_thread_binding()
            staged = T.alloc_shared((n,), "float32")
            total = T.alloc_local((1,), "float32")
            total[0] = 0.0
            for r in T.serial(rounds):
                if flag > 0:
                    T.copy(A[r, 0], staged)
                    total[0] = total[0] + staged[n - 1 - tx] * (r + 1)
            B[tx] = total[0]

    a = RNG.standard_normal((rounds, n)).astype(np.float32)
    b = np.zeros(n, np.float32)
    tilec.compile(rounds_of_copies, target="cpu")(a, b, 1)
    weights = np.arange(1, rounds + 1, dtype=np.float32)[:, None]
    np.testing.assert_allclose(b, (a[:, ::-1] * weights).sum(axis=0), rtol=1e-5, atol=1e-5)


def test_tile_ops_in_loops_only_some_threads_run_are_errors():
    @T.prim_func
    def ragged(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1, threads=64):
            tx = T.get_thread_binding()
            s = T.alloc_shared((64, 64), "float32")
            for i in T.serial(tx):
                s[i, tx] = 1.0
                T.copy(s, A)  # ragged-copy

    kernel_error(
        ragged,
        "ragged-copy",
        "the block's 'tile.copy' in per-thread code inside the T.serial loop at line",
        "whose bounds depend on the thread index",
    )
