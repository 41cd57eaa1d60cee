"""TileLang's examples/dequantize_gemm/example_dequant_gemm_w4a8.py (`matmul_int8xint4`,
`out_idx=[2]`): an int8 x int4 GEMM that writes C transposed, Ct = B @ A^T. B holds two
signed 4-bit values a byte; each step stages a uint8 B tile (with a make_swizzled_layout
annotation), unpacks it element-wise in T.Parallel into an int8 fragment through a helper
(shift and mask in uint8, reinterpret as int8, arithmetic shift right to sign-extend), copies
that fragment and feeds it to an int8 gemm with an int32 accumulator, transpose_B.

Why this one: of the dequantize_gemm examples, it and example_dequant_gemm_fp4_hopper.py are
the two whose kernels are plain T.* code (no T.attr, T.comm_reducer, T.evaluate, lop3 or
other TVM intrinsics); this one's dequantize helper is the smaller (three `tirx.const`, one
`tirx.reinterpret`, against nine and one), and it is a single kernel with no split-K variant.
The helper builds TIR expressions with `from tvm import tirx`; that import is replaced by a
stand-in `tirx` whose `const` and `reinterpret` are T.cast and T.reinterpret, so the helper
is verbatim. The autotuner is left out.

The kernel asserts K % block_K == 0; the ragged case is in M and N."""

from types import SimpleNamespace

import numpy as np
import pytest

import tilec
import tilec.language as T

# Stands in for `from tvm import tirx` (the TIR builders the helper calls).
tirx = SimpleNamespace(
    PrimExpr=object,
    const=lambda value, dtype: T.cast(value, dtype),
    reinterpret=T.reinterpret,
)


def _tir_u8_to_i4_to_i8(nbit: int, val: tirx.PrimExpr, pos: tirx.PrimExpr, dtype: str):
    assert nbit == 4
    assert dtype == T.int8
    assert val.dtype == T.uint8

    mask = tirx.const((1 << nbit) - 1, T.uint8)

    i4 = (val >> (pos.astype(T.uint8) * tirx.const(nbit, T.uint8))) & mask

    i8_shifted = tirx.reinterpret(T.int8, i4 << tirx.const(4, T.uint8))
    i8 = i8_shifted >> tirx.const(4, T.int8)
    return i8


@tilec.jit(out_idx=[2])
def matmul_int8xint4(
    M,
    N,
    K,
    in_dtype,
    out_dtype,
    accum_dtype,
    num_bits=4,
    block_M=32,
    block_N=32,
    block_K=128,
    num_stages=1,
    threads=128,
):
    num_elems_per_byte = 8 // num_bits
    storage_dtype = T.uint8
    A_shape = (M, K)
    B_shape = (N, K // num_elems_per_byte)
    A_shared_shape = (block_M, block_K)
    B_shared_shape = (block_N, block_K // num_elems_per_byte)
    B_dequantize_local_shape = (block_N, block_K)

    assert K % (block_K) == 0

    @T.prim_func
    def main(
        A: T.Tensor(A_shape, in_dtype),
        B: T.Tensor(B_shape, storage_dtype),
        Ct: T.Tensor((N, M), out_dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=threads) as (bx, by):
            A_shared = T.alloc_shared(A_shared_shape, in_dtype)
            B_shared = T.alloc_shared(B_shared_shape, storage_dtype)
            B_local = T.alloc_fragment(B_shared_shape, storage_dtype)
            B_dequantize_local = T.alloc_fragment(B_dequantize_local_shape, in_dtype)
            B_dequantize_prev_local = T.alloc_fragment(B_dequantize_local_shape, in_dtype)
            Ct_local = T.alloc_fragment((block_N, block_M), accum_dtype)
            Ct_shared = T.alloc_shared((block_N, block_M), out_dtype)

            T.annotate_layout(
                {
                    B_shared: tilec.layout.make_swizzled_layout(B_shared),
                }
            )

            T.clear(Ct_local)
            for k in T.Pipelined(K // block_K, num_stages=num_stages):
                T.copy(A[by * block_M, k * block_K], A_shared)
                T.copy(B[bx * block_N, k * block_K // num_elems_per_byte], B_shared)
                T.copy(B_shared, B_local)
                for i, j in T.Parallel(block_N, block_K):
                    B_dequantize_local[i, j] = _tir_u8_to_i4_to_i8(
                        num_bits,
                        B_local[i, j // num_elems_per_byte],
                        j % num_elems_per_byte,
                        dtype=in_dtype,
                    )
                T.copy(B_dequantize_local, B_dequantize_prev_local)
                T.gemm(B_dequantize_prev_local, A_shared, Ct_local, transpose_B=True)
            T.copy(Ct_local, Ct_shared)
            T.copy(
                Ct_shared,
                Ct[bx * block_N : (bx + 1) * block_N, by * block_M : (by + 1) * block_M],
            )

    return main


def numpy_convert(tensor):
    assert tensor.ndim == 2 and tensor.dtype == np.uint8
    N, K = tensor.shape

    i4 = np.stack((tensor & 0x0F, tensor >> 4), axis=-1)
    i4 = i4.reshape(N, K * 2).astype(np.int8)
    return (i4 << 4) >> 4


def ref_program(A, qB):
    B = numpy_convert(qB)
    C = A.astype(np.int64) @ B.T.astype(np.int64)
    return C.astype(np.int32).transpose(1, 0)


@pytest.mark.parametrize(("m", "n", "k"), [(100, 70, 256), (128, 256, 256)])  # ragged, aligned
def test_dequant_gemm_w4a8(m, n, k):
    rng = np.random.default_rng(48)
    A = rng.integers(-128, 128, (m, k), dtype=np.int8)
    qB = rng.integers(0, 256, (n, k // 2), dtype=np.uint8)

    kernel = matmul_int8xint4(
        m,
        n,
        k,
        T.int8,
        T.int32,
        T.int32,
        num_bits=4,
        block_M=32,
        block_N=32,
        block_K=128,
        num_stages=1,
        threads=128,
    )
    Ct = kernel(A, qB)
    assert Ct.dtype == np.int32

    np.testing.assert_array_equal(Ct, ref_program(A, qB))
