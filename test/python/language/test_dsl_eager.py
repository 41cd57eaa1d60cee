"""TileLang's eager kernels under `@tilec.jit` (issue 23): a function of the tensors
whose body annotates them, `T.const` dims that are Python ints of the call's shapes (or
of `.compile(**dims)`), `T.dynamic` dims that stay dynamic, `T.empty` outputs returned.
Misuses are located errors (in the body) or TypeErrors/ValueErrors of the call."""

from __future__ import annotations

import numpy as np
import pytest
from dsl_helpers import expect_error

import tilec
import tilec.language as T

F = __file__


@tilec.jit
def scaled_rows(X, scale: float = 2.0, block: int = 64, out_dtype=T.float32):
    M, N = T.const("M, N")  # scaled_rows-const
    X: T.Tensor((M, N), T.float16)
    Y = T.empty((M, N), out_dtype)
    # N is a Python int here: a Python loop over column tiles, unrolled in the trace.
    col_tiles = [j for j in range(0, N, block)]
    with T.Kernel(M, threads=64) as row:
        for j0 in col_tiles:
            for j in T.Parallel(block):
                if j0 + j < N:
                    Y[row, j0 + j] = T.cast(X[row, j0 + j], out_dtype) * scale
    return Y


def test_call_with_arrays_builds_once_per_size_and_values():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((5, 150)).astype(np.float16)
    y = scaled_rows(x)
    np.testing.assert_allclose(y, 2 * x.astype(np.float32), rtol=1e-6)
    assert y.dtype == np.float32
    y = scaled_rows(x, scale=0.5, out_dtype=T.float16)
    assert y.dtype == np.float16
    np.testing.assert_allclose(y, (0.5 * x.astype(np.float32)).astype(np.float16))
    x2 = rng.standard_normal((3, 70)).astype(np.float16)
    np.testing.assert_allclose(scaled_rows(x2), 2 * x2.astype(np.float32), rtol=1e-6)
    scaled_rows(x)  # built before
    assert repr(scaled_rows) == "<eager tilec.jit scaled_rows, 3 builds>"


def test_compile_gives_a_kernel_with_static_shapes():
    kernel = scaled_rows.compile(M=4, N=100, block=32)
    x = np.ones((4, 100), np.float16)
    np.testing.assert_array_equal(kernel(x), np.full((4, 100), 2, np.float32))
    # The dims are static: other sizes are refused by the kernel's argument checks.
    with pytest.raises(TypeError, match=r"expects shape \(4, 100\) but got \(4, 101\)"):
        kernel(np.ones((4, 101), np.float16))


@tilec.jit
def add_dynamic(A, B):
    n = T.dynamic("n")
    A: T.Tensor((n,), T.float32)
    B: T.Tensor((n,), T.float32)
    C = T.empty((n,), T.float32)
    with T.Kernel(T.ceildiv(n, 128), threads=128) as bx:
        for i in T.Parallel(128):
            if bx * 128 + i < n:
                C[bx * 128 + i] = A[bx * 128 + i] + B[bx * 128 + i]
    return C


def test_dynamic_dims_stay_dynamic():
    for n in (5, 300):
        a, b = np.arange(n, dtype=np.float32), np.full(n, 0.5, np.float32)
        np.testing.assert_array_equal(add_dynamic(a, b), a + 0.5)
    assert repr(add_dynamic) == "<eager tilec.jit add_dynamic, 1 builds>"


def test_call_and_compile_misuse():
    x = np.ones((4, 8), np.float16)
    with pytest.raises(TypeError, match="argument 'X' expects 2 dims but got 1"):
        scaled_rows(np.ones(8, np.float16))
    with pytest.raises(TypeError, match="argument 'X' expects an array but got int"):
        scaled_rows(3)
    with pytest.raises(ValueError, match="'n' is 3 in dim 0 of 'A' but 4 in dim 0 of 'B'"):
        add_dynamic_const(np.ones(3, np.float32), np.ones(4, np.float32))
    with pytest.raises(TypeError, match=r"got P=\.\.\., which is neither a parameter nor"):
        scaled_rows.compile(M=4, N=8, P=2)
    with pytest.raises(TypeError, match="not the tensor 'X'"):
        scaled_rows.compile(M=4, N=8, X=x)
    with pytest.raises(TypeError, match="N must be an int size"):
        scaled_rows.compile(M=4, N=8.0)
    with pytest.raises(TypeError, match="missing its argument 'block'"):
        needs_block.compile(n=4)
    expect_error(lambda: scaled_rows.compile(M=4), F, "scaled_rows-const",
                 "T.const dim 'N' has no size: give it as N=... to .compile()")


@tilec.jit
def add_dynamic_const(A, B):
    n = T.const("n")
    A: T.Tensor((n,), T.float32)
    B: T.Tensor((n,), T.float32)
    C = T.empty((n,), T.float32)
    with T.Kernel(1, threads=32):
        for i in T.Parallel(n):
            C[i] = A[i] + B[i]
    return C


@tilec.jit
def needs_block(A, block):
    n = T.const("n")
    A: T.Tensor((n,), T.float32)
    with T.Kernel(1, threads=32):
        for i in T.Parallel(block):
            A[i] = 0


@tilec.jit
def used_before_annotation(A, B):
    n = T.const("n")
    A: T.Tensor((n,), T.float32)
    m = B.shape[0]  # before
    B: T.Tensor((m,), T.float32)


@tilec.jit
def not_a_tensor(A):
    A: T.float32  # annotation


@tilec.jit
def annotated_in_a_branch(A, flag=False):
    if flag:
        A: T.Tensor((4,), T.float32)
    with T.Kernel(1):  # annotated_in_a_branch
        pass


@tilec.jit
def never_annotated(A, flag=False):  # never_annotated
    if flag:
        A: T.Tensor((4,), T.float32)


def test_annotation_misuse_is_located():
    a = np.ones(4, np.float32)
    expect_error(lambda: used_before_annotation(a, a), F, "before",
                 "tensor parameter 'B' is used before its annotation")
    expect_error(lambda: not_a_tensor(a), F, "annotation",
                 "tensor parameter 'A' needs the annotation T.Tensor(shape, dtype) but got float32")
    expect_error(lambda: annotated_in_a_branch(a), F, "annotated_in_a_branch",
                 "T.Kernel can only be used inside the body",
                 "tensor parameter 'A' of eager kernel 'annotated_in_a_branch' has no annotation "
                 "yet: write `A: T.Tensor(shape, dtype)` before this line")
    err = expect_error(lambda: never_annotated(a), F, "never_annotated",
                       "tensor parameter 'A' was not annotated before the body ended")
    assert err.loc.col == 1


def test_factories_and_prim_funcs_are_not_eager():
    @T.prim_func
    def k(A: T.Tensor((4,), T.float32)):
        with T.Kernel(1):
            for i in T.Parallel(4):
                A[i] = 1

    assert type(tilec.jit(k)).__name__ == "JitKernel"
    assert type(tilec.jit(lambda n: k)).__name__ == "JitFactory"
