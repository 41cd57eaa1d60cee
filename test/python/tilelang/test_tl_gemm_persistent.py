"""TileLang's examples/gemm/example_gemm_persistent.py (factory form): the same float16 GEMM
three ways:

- `matmul_non_persistent`: one block per C tile, T.use_swizzle(10);
- `matmul_persistent` with `use_persistent_primitive=False`: `sm_num` resident blocks walk
  the tiles in waves (T.serial), in groups of 8 columns, skipping tiles past the edges with a
  Python `if ... and ...` on traced values;
- the same with `use_persistent_primitive=True`: the tile walk is `T.Persistent`.

`driver.get_num_sms()` is replaced by a fixed `sm_num` parameter (132, an H100's count)."""

import numpy as np
import pytest

import tilec
import tilec.language as T


@tilec.jit(out_idx=[-1])
def matmul_non_persistent(M, N, K, block_M, block_N, block_K, threads, num_stages,
                          dtype=T.float16, accum_dtype=T.float32):
    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M), T.ceildiv(N, block_N), threads=threads) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)

            T.use_swizzle(10)

            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                T.copy(A[bx * block_M, k * block_K], A_shared)
                T.copy(B[k * block_K, by * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)

            T.copy(C_local, C_shared)
            T.copy(C_shared, C[bx * block_M, by * block_N])

    return main


@tilec.jit(out_idx=[-1])
def matmul_persistent(M, N, K, block_M, block_N, block_K, threads, num_stages, dtype=T.float16,
                      accum_dtype=T.float32, use_persistent_primitive=True, sm_num=132):
    m_blocks = T.ceildiv(M, block_M)
    n_blocks = T.ceildiv(N, block_N)
    waves = T.ceildiv(m_blocks * n_blocks, sm_num)
    group_size = 8

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(sm_num, threads=threads) as (block_id):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)

            for w in T.serial(waves):
                tile_id = sm_num * w + block_id
                bx = (tile_id // group_size) % m_blocks
                by = (tile_id % group_size) + (tile_id // group_size) // m_blocks * group_size

                if bx * block_M < M and by * block_N < N:
                    T.clear(C_local)
                    for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                        T.copy(A[bx * block_M, k * block_K], A_shared)
                        T.copy(B[k * block_K, by * block_N], B_shared)
                        T.gemm(A_shared, B_shared, C_local)

                    T.copy(C_local, C_shared)
                    T.copy(C_shared, C[bx * block_M, by * block_N])

    @T.prim_func
    def main_persistent_primitive(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(sm_num, threads=threads) as (block_id):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)
            C_shared = T.alloc_shared((block_M, block_N), dtype)

            for bx, by in T.Persistent(
                [T.ceildiv(M, block_M), T.ceildiv(N, block_N)], sm_num, block_id
            ):
                T.clear(C_local)
                for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=num_stages):
                    T.copy(A[bx * block_M, k * block_K], A_shared)
                    T.copy(B[k * block_K, by * block_N], B_shared)
                    T.gemm(A_shared, B_shared, C_local)

                T.copy(C_local, C_shared)
                T.copy(C_shared, C[bx * block_M, by * block_N])

    return main_persistent_primitive if use_persistent_primitive else main


SHAPES = [(300, 200, 100), (256, 256, 128)]  # ragged, aligned


def check(kernel, M, N, K):
    rng = np.random.default_rng(29)
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    c = kernel(a, b)
    ref = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize(("M", "N", "K"), SHAPES)
def test_matmul_non_persistent(M, N, K):
    check(matmul_non_persistent(M, N, K, 64, 128, 32, 128, 3), M, N, K)


@pytest.mark.parametrize(("M", "N", "K"), SHAPES)
def test_matmul_persistent_waves(M, N, K):
    kernel = matmul_persistent(M, N, K, 64, 128, 32, 128, 3, use_persistent_primitive=False)
    check(kernel, M, N, K)


@pytest.mark.parametrize(("M", "N", "K"), SHAPES)
def test_matmul_persistent_primitive(M, N, K):
    check(matmul_persistent(M, N, K, 64, 128, 32, 128, 3), M, N, K)
