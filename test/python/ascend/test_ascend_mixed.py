"""Mix kernels (one AIC and two AIVs per AI core): a GEMM whose accumulator gets
a vector epilogue is split by tile-ascend-split-cores, the tile handed over
through a ring of GM workspace slots with "ready"/"free" cross-core flags. Every
run is in the simulator, which fails on a race, a deadlock or an unbalanced
flag; the launch sizes give each AI core fewer tiles than the ring has slots,
a number that is not a multiple of it, and grid-stride loops that start at
non-zero blocks."""

import re

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.sim import simulate
from tilec.targets import AscendTarget

pytestmark = pytest.mark.e2e

PROFILES = list(AscendTarget.variants)


def epilogue_gemm(M, N, K, *, epilogue="scale_bias", in_dtype="float16", out_dtype="float32",
                  block_M=32, block_N=32, block_K=32):
    """C = epilogue(A @ B) with a per-column bias; the epilogue is vector work
    the fixpipe cannot do (a scale and a bias, or a ReLU after the bias)."""

    @T.prim_func
    def kernel(A: T.Tensor((M, K), in_dtype), B: T.Tensor((K, N), in_dtype),
               bias: T.Tensor((N,), "float32"), C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_s = T.alloc_shared((block_M, block_K), in_dtype)
            B_s = T.alloc_shared((block_K, block_N), in_dtype)
            bias_s = T.alloc_shared((block_N,), "float32")
            C_l = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[by * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, bx * block_N], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(bias[bx * block_N], bias_s)
            for i, j in T.Parallel(block_M, block_N):
                if epilogue == "scale_bias":
                    C_l[i, j] = C_l[i, j] * 2.0 + bias_s[j]
                else:
                    C_l[i, j] = T.max(C_l[i, j] + bias_s[j], 0.0)
            T.copy(C_l, C[by * block_M, bx * block_N])

    return kernel


def _reference(A, B, bias, epilogue):
    product = A.astype(np.float32) @ B.astype(np.float32)
    if epilogue == "scale_bias":
        return product * 2.0 + bias
    return np.maximum(product + bias, 0.0)


def _run(M, N, K, profile, block_dim=None, **variant):
    options = {"block_dim": block_dim} if block_dim else {}
    kernel = tilec.compile(epilogue_gemm(M, N, K, **variant), target="ascend",
                           profile=profile, **options)
    rng = np.random.default_rng(M * N + K)
    in_dtype = np.float16 if variant.get("in_dtype", "float16") == "float16" else np.float32
    A = rng.standard_normal((M, K)).astype(in_dtype)
    B = rng.standard_normal((K, N)).astype(in_dtype)
    bias = rng.standard_normal(N).astype(np.float32)
    C = np.zeros((M, N), np.float16 if variant.get("out_dtype") == "float16" else np.float32)
    kernel(A, B, bias, C)
    reference = _reference(A, B, bias, variant.get("epilogue", "scale_bias"))
    return kernel, float(np.abs(C.astype(np.float32) - reference).max() / np.abs(reference).max())


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("shape", "block_dim", "variant", "tolerance"),
    [
        ((64, 64, 64), None, {}, 1e-6),                         # 4 tiles, one per AI core
        ((100, 72, 40), 1, {}, 1e-6),                           # 12 tiles on one core: 6 rings
        ((100, 72, 40), 5, {"epilogue": "bias_relu"}, 1e-6),    # 2 or 3 tiles a core, from 1..4
        ((32, 32, 32), 4, {}, 1e-6),                            # one tile: fewer than the slots
        ((70, 130, 50), 3, {"out_dtype": "float16"}, 1e-3),     # 15 tiles on 3 cores, f16 out
        ((96, 64, 48), 2, {"in_dtype": "float32", "epilogue": "bias_relu"}, 1e-5),
    ],
)
def test_epilogue_gemm(profile, shape, block_dim, variant, tolerance):
    kernel, error = _run(*shape, profile, block_dim, **variant)
    assert error <= tolerance
    report = kernel.report()
    assert report.ok and not report.races and not report.deadlocks
    assert report.cube_utilization > 0 and report.vector_utilization > 0
    # Both AIVs of every AI core that got a tile did epilogue work.
    cycles = report.core_cycles
    busy = [name.removesuffix(" aic") for name in cycles if name.endswith("aic") and cycles[name]]
    assert busy and all(cycles[f"{block} aiv{sub}"] > 0 for block in busy for sub in (0, 1))


def gemm_softmax(M, N, K, *, in_dtype="float16", block_M=32, block_K=32):
    """Y = softmax(A @ B) by rows: a block owns block_M whole rows (N fits one tile)."""

    @T.prim_func
    def kernel(A: T.Tensor((M, K), in_dtype), B: T.Tensor((K, N), in_dtype),
               Y: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            A_s = T.alloc_shared((block_M, block_K), in_dtype)
            B_s = T.alloc_shared((block_K, N), in_dtype)
            S = T.alloc_fragment((block_M, N), "float32")
            row_max = T.alloc_fragment((block_M,), "float32")
            row_sum = T.alloc_fragment((block_M,), "float32")
            T.clear(S)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                T.copy(A[bx * block_M, k * block_K], A_s)
                T.copy(B[k * block_K, 0], B_s)
                T.gemm(A_s, B_s, S)
            T.reduce_max(S, row_max, dim=1)
            for i, j in T.Parallel(block_M, N):
                S[i, j] = T.exp(S[i, j] - row_max[i])
            T.reduce_sum(S, row_sum, dim=1)
            for i, j in T.Parallel(block_M, N):
                S[i, j] = S[i, j] / row_sum[i]
            T.copy(S, Y[bx * block_M, 0])

    return kernel


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("shape", "block_dim"),
                         [((64, 64, 64), None), ((100, 64, 40), 2), ((37, 48, 32), 1)])
def test_softmax_after_gemm(profile, shape, block_dim):
    M, N, K = shape
    options = {"block_dim": block_dim} if block_dim else {}
    kernel = tilec.compile(gemm_softmax(M, N, K), target="ascend", profile=profile, **options)
    rng = np.random.default_rng(M + N + K)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    Y = np.zeros((M, N), np.float32)
    kernel(A, B, Y)
    scores = A.astype(np.float32) @ B.astype(np.float32)
    e = np.exp(scores - scores.max(axis=1, keepdims=True))
    assert np.abs(Y - e / e.sum(axis=1, keepdims=True)).max() <= 1e-5
    report = kernel.report()
    assert report.ok and not report.races and not report.deadlocks
    # The row statistics are split with the rows: each AIV holds 16 of them.
    assert "memref<16xf32, #ascend.mem<ub>>" in _ascend_ir(kernel)


def shared_epilogue_gemm(M, N, K, *, out_dtype="float16", block=32):
    """TileLang's epilogue through a shared tile: C_local -> C_shared (rounded
    to out_dtype), element-wise work on C_shared, then the copy out."""

    @T.prim_func
    def kernel(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
               C: T.Tensor((M, N), out_dtype)):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=128) as (bx, by):
            A_s = T.alloc_shared((block, block), "float16")
            B_s = T.alloc_shared((block, block), "float16")
            C_l = T.alloc_fragment((block, block), "float32")
            C_s = T.alloc_shared((block, block), out_dtype)
            T.clear(C_l)
            for k in T.Pipelined(T.ceildiv(K, block), num_stages=2):
                T.copy(A[by * block, k * block], A_s)
                T.copy(B[k * block, bx * block], B_s)
                T.gemm(A_s, B_s, C_l)
            T.copy(C_l, C_s)
            for i, j in T.Parallel(block, block):
                C_s[i, j] = C_s[i, j] * 0.5
            T.copy(C_s, C[by * block, bx * block])

    return kernel


@pytest.mark.parametrize("profile", PROFILES)
def test_epilogue_through_a_shared_tile(profile):
    M, N, K = 70, 96, 40
    kernel = tilec.compile(shared_epilogue_gemm(M, N, K), target="ascend", profile=profile,
                           block_dim=3)
    rng = np.random.default_rng(3)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C = np.zeros((M, N), np.float16)
    kernel(A, B, C)
    reference = (A.astype(np.float32) @ B.astype(np.float32)).astype(np.float16) * 0.5
    assert np.abs(C.astype(np.float32) - reference.astype(np.float32)).max() <= 1e-2
    assert kernel.report().ok


def scaled_operand_gemm(M, N, K, block=32):
    """C = (2 A) @ B^T with the A tile written element by element (rows past M zero):
    a gemm operand the vector cores fill, handed up to the cube every K step."""

    @T.prim_func
    def kernel(A: T.Tensor((M, K), "float16"), B: T.Tensor((N, K), "float16"),
               C: T.Tensor((M, N), "float32")):
        with T.Kernel(T.ceildiv(N, block), T.ceildiv(M, block), threads=128) as (bx, by):
            a = T.alloc_shared((block, block), "float16")
            b = T.alloc_shared((block, block), "float16")
            c = T.alloc_fragment((block, block), "float32")
            T.clear(c)
            for k in T.serial(T.ceildiv(K, block)):
                for i, j in T.Parallel(block, block):
                    row = T.min(by * block + i, M - 1)
                    a[i, j] = T.if_then_else(by * block + i < M, A[row, k * block + j] * 2.0,
                                             0.0)
                T.copy(B[bx * block, k * block], b)
                T.gemm(a, b, c, transpose_B=True)
            T.copy(c, C[by * block, bx * block])

    return kernel


@pytest.mark.parametrize("profile", PROFILES)
def test_a_gemm_operand_the_vector_cores_write(profile):
    M, N, K = 70, 40, 96
    kernel = tilec.compile(scaled_operand_gemm(M, N, K), target="ascend", profile=profile)
    rng = np.random.default_rng(5)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((N, K)).astype(np.float16)
    C = np.zeros((M, N), np.float32)
    kernel(A, B, C)
    np.testing.assert_allclose(C, (2 * A.astype(np.float32)) @ B.astype(np.float32).T,
                               rtol=1e-5, atol=1e-4)
    assert kernel.report().ok
    assert "ascend.kernel = #ascend.core<mix>" in _ascend_ir(kernel)


def test_the_kernel_is_a_mix_kernel_with_a_workspace():
    kernel = tilec.compile(epilogue_gemm(64, 64, 64), target="ascend", profile="910b")
    text = _ascend_ir(kernel)
    assert "ascend.kernel = #ascend.core<mix>" in text
    assert re.search(r"memref<\?x32xf32, #ascend\.mem<gm>> \{ascend\.workspace = 64 : i64\}", text)
    assert text.count("ascend.core aic") == 1 and text.count("ascend.core aiv") == 1
    assert "ascend.cross_core_set_flag mode 2, fix, 0" in text
    assert "ascend.cross_core_set_flag mode 2, mte2, 1" in text


def _ascend_ir(kernel) -> str:
    """The synchronized ascend IR (the last stage of the pipeline)."""
    return kernel.ir(kernel.stages()[-1])


def _simulate(text, M, N, K, block_dim):
    rng = np.random.default_rng(1)
    args = [rng.standard_normal((M, K)).astype(np.float16),
            rng.standard_normal((K, N)).astype(np.float16),
            rng.standard_normal(N).astype(np.float32), np.zeros((M, N), np.float32),
            np.zeros((block_dim * 64, 32), np.float32)]
    return simulate(text, args, profile="910b", block_dim=block_dim)


def test_the_free_flag_is_what_keeps_the_ring_race_free():
    """Without the AIC's wait for "free", its third tile overwrites a slot the
    AIVs may still read: the simulator reports it (the protocol is not idle)."""
    kernel = tilec.compile(epilogue_gemm(128, 64, 32), target="ascend", profile="910b")
    text = _ascend_ir(kernel)
    assert _simulate(text, 128, 64, 32, 1).ok
    broken = re.sub(r"ascend\.cross_core_wait_flag 1, fix[^\n]*\n", "", text)
    broken = re.sub(r"ascend\.cross_core_set_flag mode 2, mte2, 1[^\n]*\n", "", broken)
    assert broken != text
    result = _simulate(broken, 128, 64, 32, 1)
    assert not result.ok and result.races


def test_the_ready_flag_is_what_orders_the_handoff():
    kernel = tilec.compile(epilogue_gemm(64, 64, 32), target="ascend", profile="910b")
    broken = re.sub(r"ascend\.cross_core_wait_flag 0, mte2[^\n]*\n", "", _ascend_ir(kernel))
    result = _simulate(broken, 64, 64, 32, 2)
    assert not result.ok


def mix_then_vector(M, N, K, *, block_M=32):
    """Two kernels in one launch: a gemm with a vector epilogue (a mix kernel)
    writes C, then a vector-only kernel reads the rows another block wrote."""
    blocks = T.ceildiv(M, block_M)

    @T.prim_func
    def kernel(A: T.Tensor((M, K), "float16"), B: T.Tensor((K, N), "float16"),
               C: T.Tensor((M, N), "float32"), D: T.Tensor((M, N), "float32")):
        with T.Kernel(blocks, threads=128) as bx:
            A_s = T.alloc_shared((block_M, K), "float16")
            B_s = T.alloc_shared((K, N), "float16")
            acc = T.alloc_fragment((block_M, N), "float32")
            T.copy(A[bx * block_M, 0], A_s)
            T.copy(B[0, 0], B_s)
            T.gemm(A_s, B_s, acc, clear_accum=True)
            for i, j in T.Parallel(block_M, N):
                acc[i, j] = acc[i, j] * 2.0
            T.copy(acc, C[bx * block_M, 0])
        with T.Kernel(blocks, threads=128) as bx:
            t = T.alloc_fragment((block_M, N), "float32")
            T.copy(C[(blocks - 1 - bx) * block_M, 0], t)
            for i, j in T.Parallel(block_M, N):
                t[i, j] = t[i, j] + 1.0
            T.copy(t, D[bx * block_M, 0])

    return kernel


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(("M", "block_dim"), [(128, None), (96, 1)])
def test_a_vector_kernel_after_a_mix_kernel(profile, M, block_dim):
    N, K = 32, 48
    options = {"block_dim": block_dim} if block_dim else {}
    kernel = tilec.compile(mix_then_vector(M, N, K), target="ascend", profile=profile, **options)
    rng = np.random.default_rng(M)
    A = rng.standard_normal((M, K)).astype(np.float16)
    B = rng.standard_normal((K, N)).astype(np.float16)
    C, D = np.zeros((M, N), np.float32), np.zeros((M, N), np.float32)
    kernel(A, B, C, D)
    product = (A.astype(np.float32) @ B.astype(np.float32)) * 2.0
    tolerance = 1e-6 * np.abs(product).max()
    assert np.abs(C - product).max() <= tolerance
    blocks = product.reshape(M // 32, 32, N)[::-1].reshape(M, N)
    assert np.abs(D - (blocks + 1.0)).max() <= tolerance
    assert kernel.report().ok
    # The vector kernel runs on every AIV (each takes blocks of its own) after
    # an ascend.sync_all that the AICs reach too.
    text = _ascend_ir(kernel)
    assert text.count("ascend.sync_all") == 2
    assert text.count("ascend.core aiv") == 2 and text.count("ascend.core aic") == 2


def test_the_barrier_between_the_kernels_is_what_orders_them():
    kernel = tilec.compile(mix_then_vector(64, 32, 32), target="ascend", profile="910b")
    broken = re.sub(r"ascend\.sync_all\n", "", _ascend_ir(kernel))
    rng = np.random.default_rng(2)
    args = [rng.standard_normal((64, 32)).astype(np.float16),
            rng.standard_normal((32, 32)).astype(np.float16),
            np.zeros((64, 32), np.float32), np.zeros((64, 32), np.float32),
            np.zeros((2 * 64, 32), np.float32)]
    assert simulate(_ascend_ir(kernel), args, profile="910b", block_dim=2).ok
    assert not simulate(broken, args, profile="910b", block_dim=2).ok
