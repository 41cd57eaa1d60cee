"""TileLang's calling style: `@tilec.jit(out_idx=[-1])` on a kernel factory,
`C = kernel(A, B)` with the output allocated from the inputs' sizes."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.runtime.signature import ArgumentError


@tilec.jit(out_idx=[-1])
def matmul(M, N, K, block_M=32, block_N=32, block_K=16, dtype="float32"):
    @T.prim_func
    def gemm(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype), C: T.Tensor((M, N), dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), dtype)
            B_s = T.alloc_shared((block_K, block_N), dtype)
            C_f = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_f)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_f)
            T.copy(C_f, C[by * block_M, bx * block_N])

    return gemm


N = T.symbolic("N")


@T.prim_func
def split(X: T.Tensor((N,), "float32"), Lo: T.Tensor((N,), "float32"), Hi: T.Tensor((N,), "int32")):
    with T.Kernel(T.ceildiv(N, 32), threads=32) as bx:
        for i in T.Parallel(32):
            Lo[bx * 32 + i] = X[bx * 32 + i] - 1.0
            Hi[bx * 32 + i] = T.cast(X[bx * 32 + i], "int32")


def test_factory_returns_a_kernel_that_allocates_its_output():
    kernel = matmul(70, 50, 40)
    assert matmul(70, 50, 40) is kernel  # one kernel per set of factory arguments
    a = np.random.rand(70, 40).astype(np.float32)
    b = np.random.rand(40, 50).astype(np.float32)
    c = kernel(a, b)
    assert c.shape == (70, 50) and c.dtype == np.float32
    np.testing.assert_allclose(c, a @ b, rtol=1e-5)


def test_symbolic_output_dims_come_from_the_inputs():
    x = np.arange(45, dtype=np.float32)
    lo, hi = tilec.compile(split, out_idx=[1, 2])(x)
    np.testing.assert_array_equal(lo, x - 1)
    np.testing.assert_array_equal(hi, x.astype(np.int32))
    lo2, hi2 = tilec.jit(split, out_idx=[-2, -1])(x[:10].copy())
    assert lo2.shape == hi2.shape == (10,)


@pytest.mark.parametrize(
    ("out_idx", "args", "message"),
    [
        ([-1], (np.zeros(4, np.float32),), "takes 2 inputs \\(X, Lo\\) .* but got 1"),
        ([3], (np.zeros(4, np.float32),), "3 is not a parameter position of a kernel with 3"),
        ([1, -2], (np.zeros(4, np.float32),), "names a parameter twice"),
        ([0, 1, 2], (), "output 'X': its dim 0 \\(N\\) is not the size of any input's dim"),
    ],
)
def test_out_idx_mistakes(out_idx, args, message):
    with pytest.raises(ArgumentError, match=message):
        tilec.compile(split, out_idx=out_idx)(*args)


class _Tensor:
    """A framework tensor that numpy knows only through DLPack."""

    def __init__(self, array: np.ndarray):
        self._array = array

    def __dlpack__(self, **kwargs):
        return self._array.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self._array.__dlpack_device__()


def test_dlpack_tensors_are_used_in_place():
    x = np.arange(40, dtype=np.float32)
    lo = np.zeros(40, np.float32)
    hi = np.zeros(40, np.int32)
    tilec.compile(split)(_Tensor(x), _Tensor(lo), _Tensor(hi))
    np.testing.assert_array_equal(lo, x - 1)  # written through the DLPack view
    np.testing.assert_array_equal(hi, x.astype(np.int32))
    out_lo, _ = tilec.jit(split, out_idx=[1, 2])(_Tensor(x))
    np.testing.assert_array_equal(out_lo, x - 1)


def test_torch_tensors_work_where_torch_is_installed():
    torch = pytest.importorskip("torch")
    x = torch.arange(33, dtype=torch.float32)
    lo = torch.zeros(33)
    hi = torch.zeros(33, dtype=torch.int32)
    tilec.compile(split)(x, lo, hi)
    assert torch.equal(lo, x - 1) and torch.equal(hi, x.to(torch.int32))


M = T.dynamic("M")


@T.prim_func
def tripled(X: T.Tensor((M,), "float32")):
    Y = T.empty((M,), "float32")
    with T.Kernel(T.ceildiv(M, 32), threads=32) as bx:
        for i in T.Parallel(32):
            Y[bx * 32 + i] = X[bx * 32 + i] * 3.0
    return Y


def test_a_kernel_returning_t_empty_outputs_allocates_them_by_default():
    x = np.arange(50, dtype=np.float32)
    np.testing.assert_array_equal(tilec.compile(tripled)(x), 3 * x)
    np.testing.assert_array_equal(tilec.jit(tripled)(x[:7].copy()), 3 * x[:7])
