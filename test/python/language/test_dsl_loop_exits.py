"""`break` and `continue` in a kernel's loops, against numpy: on a traced loop (T.serial)
they leave it at run time, on any condition (the iterations after a `break` do nothing);
on a Python loop they are Python's, and a symbolic condition there is a located error.
Per-thread code may hold a barrier under an `if` on a local variable that every thread
computes alike (TileLang's top-k selector does)."""

from __future__ import annotations

import numpy as np
import pytest
from dsl_helpers import expect_error

import tilec
import tilec.language as T


def first_negative(n: int) -> T.PrimFunc:
    @T.prim_func
    def kernel(A: T.Tensor((n,), "float32"), Out: T.Tensor((1,), "int32")):
        with T.Kernel(1):
            found = T.alloc_var("int32", init=-1)
            for i in T.serial(n):
                if A[i] < 0:
                    found = i
                    break
                A[i] = A[i] * 2.0  # not done from the first negative on
            Out[0] = found

    return kernel


@pytest.mark.parametrize("target", ["cpu", "ascend:910b"])
@pytest.mark.parametrize(("values", "index"), [
    ([1, 2, -3, 4, -5, 6], 2),
    ([1, 2, 3], -1),  # no break: every iteration runs
    ([-1, 2], 0),
])
def test_break_leaves_a_serial_loop_at_its_first_negative(target, values, index):
    a = np.array(values, np.float32)
    out = np.zeros(1, np.int32)
    expected = a.copy()
    stop = index if index >= 0 else len(a)
    expected[:stop] *= 2.0
    tilec.compile(first_negative(len(a)), target=target)(a, out)
    assert out[0] == index
    np.testing.assert_array_equal(a, expected)


def test_continue_skips_the_rest_of_one_iteration_and_break_ends_the_loop():
    n = 9

    @T.prim_func
    def kernel(A: T.Tensor((n,), "float32"), Out: T.Tensor((2,), "float32")):
        with T.Kernel(1):
            total = T.alloc_var("float32", init=0.0)
            seen = T.alloc_var("float32", init=0.0)
            for i in T.serial(n):
                seen += 1.0
                if A[i] < 0:
                    continue
                total += A[i]
                if total > 10:
                    break
            Out[0] = total
            Out[1] = seen

    a = np.array([1, -2, 3, 4, -8, 5, 9, 7, 1], np.float32)
    out = np.zeros(2, np.float32)
    tilec.compile(kernel)(a, out)
    # 1 + 3 + 4 + 5 = 13 > 10 at index 5: six iterations began
    np.testing.assert_array_equal(out, [13.0, 6.0])


def test_a_break_of_an_inner_loop_leaves_only_that_loop():
    m, n = 4, 6

    @T.prim_func
    def kernel(A: T.Tensor((m, n), "float32"), Out: T.Tensor((m,), "int32")):
        with T.Kernel(1):
            for r in T.serial(m):
                length = T.alloc_var("int32", init=0)
                for c in T.serial(n):
                    if A[r, c] == 0:
                        break
                    length += 1
                Out[r] = length

    a = np.array([[1, 2, 0, 4, 5, 6], [0, 1, 1, 1, 1, 1], [1] * 6, [3, 3, 3, 3, 0, 0]],
                 np.float32)
    out = np.zeros(m, np.int32)
    tilec.compile(kernel)(a, out)
    np.testing.assert_array_equal(out, [2, 0, 6, 4])


def test_a_python_loop_keeps_pythons_break():
    @T.prim_func
    def kernel(A: T.Tensor((8,), "float32")):
        with T.Kernel(1):
            for i in range(8):
                if i == 3:
                    break
                A[i] = 1.0

    assert kernel.ir().count("memref.store") == 3


def test_a_symbolic_break_of_a_python_loop_is_located():
    @T.prim_func
    def kernel(A: T.Tensor((8,), "float32"), n: T.int32):
        with T.Kernel(1):
            for i in range(8):
                if i < n:
                    continue  # exit
                A[i] = 1.0

    expect_error(kernel.ir, __file__, "exit",
                 "'continue' under an `if` on a symbolic value leaves a Python loop")


def test_a_barrier_under_an_if_on_a_value_every_thread_computes_alike():
    """Rounds of halving a shared count until it is small, each round's barrier under
    `if` on a local copy of the count that all threads read from shared memory."""
    threads = 32

    @T.prim_func
    def kernel(A: T.Tensor((threads,), "int32"), Rounds: T.Tensor((1,), "int32")):
        with T.Kernel(1, threads=threads):
            tx = T.get_thread_binding()
            count = T.alloc_shared((1,), "int32")
            left = T.alloc_var("int32")
            if tx == 0:
                count[0] = A[0]
            T.sync_threads()
            left = count[0]
            for r in T.serial(8):
                if left <= 1:
                    break
                T.sync_threads()
                if tx == 0:
                    count[0] = count[0] // 2
                    Rounds[0] = r + 1
                T.sync_threads()
                left = count[0]

    for start, rounds in ((100, 6), (1, 0), (5, 2)):  # 100 50 25 12 6 3 1
        a = np.full(threads, start, np.int32)
        out = np.zeros(1, np.int32)
        tilec.compile(kernel)(a, out)
        assert out[0] == rounds, start


def test_a_barrier_under_an_if_on_a_value_that_differs_per_thread_is_located():
    @T.prim_func
    def kernel(A: T.Tensor((32,), "int32")):
        with T.Kernel(1, threads=32):
            tx = T.get_thread_binding()
            mine = T.alloc_var("int32")
            mine = A[tx]
            if mine > 0:
                T.sync_threads()  # barrier

    expect_error(kernel.ir, __file__, "barrier", "whose condition depends on the thread index")
