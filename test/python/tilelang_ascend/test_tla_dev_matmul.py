"""tilelang-ascend's developer-mode GEMMs: examples/developer_mode/gemm_developer.py (`as (cid,
_)`, `T.gemm_v0(..., init=(k == 0))` with a traced init) and
examples/developer_mode/matmul_add_developer.py (`threads=2`, `as cid`, an `if k == 0`
between an initializing and an accumulating T.gemm_v0, then a vector T.tile.add of D). Only
the imports changed (`import tilec as tilelang`, numpy arrays for torch's); the
`@tilelang.jit` decoration is applied per target in the test and pass_configs are left out.
Each runs on cpu and in the simulator on the 910b and the 950 against numpy, with a K that
is a multiple of the K tile and one that is not (its K loop is ceildiv'ed)."""

import numpy as np
import pytest

import tilec as tilelang
import tilec.language as T

TARGETS = ("cpu", "ascend:910b", "ascend:950")


def matmul(M, N, K, block_M, block_N, K_L1, dtype="float16", accum_dtype="float"):
    m_num = M // block_M
    n_num = N // block_N

    @T.prim_func
    def main(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(m_num * n_num, is_npu=True) as (cid, _):
            bx = cid // n_num
            by = cid % n_num

            A_L1 = T.alloc_shared((block_M, K_L1), dtype)
            B_L1 = T.alloc_shared((K_L1, block_N), dtype)

            C_L0 = T.alloc_fragment((block_M, block_N), accum_dtype)

            loop_k = T.ceildiv(K, K_L1)
            for k in T.serial(loop_k):
                T.copy(A[bx * block_M, k * K_L1], A_L1)
                T.copy(B[k * K_L1, by * block_N], B_L1)

                T.gemm_v0(A_L1, B_L1, C_L0, init=(k == 0))


            T.copy(C_L0, C[bx * block_M, by * block_N])

    return main


def matmul_add(M, N, K, block_M, block_N, block_K, dtype="float16", accum_dtype="float"):
    m_num = M // block_M
    n_num = N // block_N

    @T.prim_func
    def main(
        A: T.Tensor((M, K), dtype),
        B: T.Tensor((K, N), dtype),
        C: T.Tensor((M, N), dtype),
        D: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(m_num * n_num, threads=2, is_npu=True) as (cid):
            bx = cid // n_num
            by = cid % n_num
            A_L1 = T.alloc_shared((block_M, block_K), dtype)
            B_L1 = T.alloc_shared((block_K, block_N), dtype)

            C_L0 = T.alloc_fragment((block_M, block_N), accum_dtype)

            d_ub = T.alloc_shared((block_M, block_N), dtype)
            c_ub = T.alloc_shared((block_M, block_N), dtype)

            loop_k = T.ceildiv(K, block_K)
            for k in T.serial(loop_k):
                T.copy(A[bx * block_M, k * block_K], A_L1)
                T.copy(B[k * block_K, by * block_N], B_L1)

                if k == 0:
                    T.gemm_v0(A_L1, B_L1, C_L0, init=True)
                else:
                    T.gemm_v0(A_L1, B_L1, C_L0)

            T.copy(C_L0, c_ub)
            T.copy(D[bx * block_M, by * block_N], d_ub)

            T.tile.add(c_ub, c_ub, d_ub)

            T.copy(c_ub, C[bx * block_M, by * block_N])

    return main


def _inputs(M, N, K, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float16) for s in ((M, K), (K, N), (M, N))]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("K", [128, 96])
def test_gemm_developer(target, K):
    M, N = 256, 256
    a, b, _ = _inputs(M, N, K)
    func = tilelang.jit(out_idx=[-1], target=target)(matmul)(M, N, K, 128, 128, 64)
    c = func(a, b)
    ref_c = a.astype(np.float32) @ b.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref_c, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("K", [128, 80])
def test_matmul_add_developer(target, K):
    M, N = 128, 256
    a, b, d = _inputs(M, N, K, seed=1)
    func = tilelang.jit(out_idx=[2], target=target)(matmul_add)(M, N, K, 64, 128, 32)
    c = func(a, b, d)
    ref_c = a.astype(np.float32) @ b.astype(np.float32) + d.astype(np.float32)
    np.testing.assert_allclose(c.astype(np.float32), ref_c, rtol=1e-2, atol=2e-2)


def test_traced_init_is_a_branch_between_the_two_gemms():
    """`init=(k == 0)` is traced: one scf.if whose branches are the gemm that overwrites C
    (clear_accum) and the one that adds to it."""
    text = tilelang.compile(matmul(128, 128, 128, 64, 64, 64), target="cpu").ir("tile")
    branch = text[text.index("scf.if"):]
    then, orelse = branch.split("} else {", 1)
    assert "clear_accum" in then.split("tile.gemm", 1)[1].split("\n")[0]
    accumulate = orelse.split("tile.gemm", 1)[1].split("\n")[0]
    assert "clear_accum" not in accumulate


def matmul_relu(M, N, K, block_M, block_N):
    """gemm_developer's shape of kernel, its result drained with the fixpipe's ReLU
    (`T.copy(C_L0, C[...], enable_relu=True)`, as tilelang-ascend's lightning indexer does)."""

    @T.prim_func
    def main(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
             C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M) * T.ceildiv(N, block_N), is_npu=True) as (cid, _):
            bx = cid // T.ceildiv(N, block_N)
            by = cid % T.ceildiv(N, block_N)
            A_L1 = T.alloc_shared((block_M, K), "float16")
            B_L1 = T.alloc_shared((K, block_N), "float16")
            C_L0 = T.alloc_fragment((block_M, block_N), "float")
            T.copy(A[bx * block_M, 0], A_L1)
            T.copy(B[0, by * block_N], B_L1)
            T.mma(A_L1, B_L1, C_L0, init=True)
            T.copy(C_L0, C[bx * block_M, by * block_N], enable_relu=True)

    return main


@pytest.mark.parametrize("target", TARGETS)
def test_copy_enable_relu(target):
    M, N, K = 96, 128, 64
    a, b, _ = _inputs(M, N, K, seed=2)
    c = tilelang.jit(out_idx=[-1], target=target)(matmul_relu)(M, N, K, 64, 64)(a, b)
    ref_c = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    np.testing.assert_allclose(c, ref_c, rtol=1e-3, atol=1e-3)
