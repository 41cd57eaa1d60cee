"""The autotuner with TileLang's surface: the winner is the best config by the measure
used (median wall time on cpu, simulated cycles on ascend), a config that fails to
compile is skipped with its located error, and the disk cache answers a second run
without measuring."""

from __future__ import annotations

import re

import numpy as np
import pytest
from example_kernels import example

import tilec
import tilec.language as T
from tilec.autotuner import AutotuneError, AutoTuner
from tilec.autotuner import tuner as tuner_module

gemm = example("gemm")

M, N, K = 40, 48, 32
"""Not multiples of every tile tried: the edges are masked."""

CONFIGS = [  # on ascend the second wins (fewer cycles), so a tuner keeping the first fails
    {"block_M": 32, "block_N": 64, "block_K": 32},
    {"block_M": 16, "block_N": 16, "block_K": 16},
    {"block_M": 1 << 15, "block_N": 1 << 15, "block_K": 16},  # a 4 GiB fragment: no target has it
]


@pytest.fixture(autouse=True)
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    return tmp_path


def kernel(block_M=None, block_N=None, block_K=None):
    return gemm.matmul(M, N, K, block_M=block_M, block_N=block_N, block_K=block_K)


def ref_program(A, B):
    return A @ B


def tune(target: str) -> tilec.autotuner.AutotuneResult:
    tuner = AutoTuner.from_kernel(kernel=kernel, configs=CONFIGS)
    tuner.set_compile_args(out_idx=[-1], target=target)
    tuner.set_profile_args(supply_type=tilec.TensorSupplyType.Auto, ref_prog=ref_program,
                           skip_check=False, backend="event")
    return tuner.run(warmup=1, rep=5)


def check_skipped_and_correct(result) -> None:
    (skipped,) = result.skipped
    assert skipped.config == CONFIGS[2]
    assert re.match(r".*gemm\.py:\d+:\d+: error: .*4294967296 bytes", skipped.error)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((M, K)).astype(np.float32)
    b = rng.standard_normal((K, N)).astype(np.float32)
    np.testing.assert_allclose(result.kernel(a, b), a @ b, rtol=1e-5, atol=1e-5)


def test_cpu_winner_has_the_least_median_wall_time():
    result = tune("cpu")
    measured = [t for t in result.trials if t.measurement is not None]
    assert [t.config for t in measured] == CONFIGS[:2]
    best = min(measured, key=lambda t: t.measurement.latency)
    assert result.config == best.config and result.latency == best.measurement.latency
    assert result.cycles is None and result.ref_latency > 0 and not result.from_cache
    check_skipped_and_correct(result)


@pytest.mark.parametrize("profile", ["910b", "950"])
def test_ascend_winner_has_the_fewest_simulated_cycles(profile):
    result = tune(f"ascend:{profile}")
    cycles = {str(t.config): t.measurement.cycles for t in result.trials if t.measurement}
    assert len(cycles) == 2 and result.cycles == min(cycles.values())
    assert cycles[str(result.config)] == result.cycles
    assert result.kernel.target == f"ascend:{profile}" and result.ref_latency is None
    check_skipped_and_correct(result)
    # the cycle model is deterministic: the winner measures the same again
    result.kernel(*(np.ones(s, np.float32) for s in ((M, K), (K, N))))
    assert result.kernel.report().cycles == result.cycles


def test_the_disk_cache_returns_the_winner_without_measuring(monkeypatch):
    first = tune("ascend:950")

    def no_measuring(*args):
        raise AssertionError("measured again")

    monkeypatch.setattr(tuner_module._Bench, "measure", no_measuring)
    again = tune("ascend:950")
    assert again.from_cache and again.config == first.config and again.cycles == first.cycles
    assert [t.describe() for t in again.trials] == [t.describe() for t in first.trials]
    check_skipped_and_correct(again)
    # other shapes are another entry: tuned, so measured
    with pytest.raises(AutotuneError, match="measured again"):
        AutoTuner.from_kernel(kernel=lambda block_M, block_N, block_K: gemm.matmul(
            M, N, 2 * K, block_M=block_M, block_N=block_N, block_K=block_K), configs=CONFIGS[:1]
        ).set_compile_args(out_idx=[-1], target="ascend:950").run()


def test_autotune_over_jit_as_tilelang_writes_it():
    @tilec.autotune(configs=CONFIGS[:2], warmup=1, rep=5, ref_prog=ref_program)
    @tilec.jit(out_idx=[-1], target="ascend:950")
    def matmul(M, N, K, block_M, block_N, block_K, dtype="float32"):
        @T.prim_func
        def main(A: T.Tensor((M, K), dtype), B: T.Tensor((K, N), dtype),
                 C: T.Tensor((M, N), dtype)):
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

        return main

    tuned = matmul(M, N, K)
    result = matmul.result(M, N, K)
    assert tuned is result.kernel and result.config in CONFIGS[:2]
    assert result.cycles == min(t.measurement.cycles for t in result.trials)
    a = np.arange(M * K, dtype=np.float32).reshape(M, K) / 100
    b = np.ones((K, N), np.float32)
    np.testing.assert_allclose(tuned(a, b), a @ b, rtol=1e-5)
    # with the tunable parameters given, no tuning: the kernel of that config
    fixed = matmul(M, N, K, block_M=16, block_N=16, block_K=16)
    np.testing.assert_allclose(fixed(a, b), a @ b, rtol=1e-5)


def test_a_reference_no_config_matches_is_an_error():
    tuner = AutoTuner.from_kernel(kernel=kernel, configs=CONFIGS[:1])
    tuner.set_compile_args(out_idx=[-1], target="ascend:950")
    tuner.set_profile_args(ref_prog=lambda A, B: A @ B + 1)
    with pytest.raises(AutotuneError, match=r"differ from ref_prog beyond rtol=0.01, atol=0.01"):
        tuner.run()


def test_bad_arguments_name_the_candidates():
    tuner = AutoTuner.from_kernel(kernel=kernel, configs=[{"block_Q": 1}])
    with pytest.raises(ValueError, match="unknown profiling backend 'nsys'; backends: event, "
                                         "cupti, cudagraph"):
        tuner.set_profile_args(backend="nsys")
    with pytest.raises(ValueError, match="names block_Q, which is not a parameter of the kernel "
                                         r"function \(block_M, block_N, block_K\)"):
        tuner.run()
