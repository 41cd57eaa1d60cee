"""One compiled kernel called from several threads at once: every call gets
its own inputs' result, on every target that runs here (issue 22: the ascend
simulator once bound each call's arguments on the shared program, and 16 of 20
concurrent calls returned another call's data)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from example_kernels import example

import tilec
from tilec.runtime.compiler import CompileError
from tilec.sim import blas

THREADS = 4
CALLS = 5
M, N = 24, 40
"""Rows over one block and columns over one tile: every launch runs several
blocks and masks a partial tile, so the calls interleave inside the simulator."""

softmax = example("softmax")


def _inputs(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((M, N)).astype(np.float32) * (seed + 1)


def _call_concurrently(run) -> list[tuple[int, np.ndarray]]:
    """`run(seed)` from THREADS threads, CALLS times each, all starting together."""
    start = threading.Barrier(THREADS)

    def worker(thread: int) -> list[tuple[int, np.ndarray]]:
        start.wait()
        return [(seed, run(seed)) for seed in range(thread * CALLS, (thread + 1) * CALLS)]

    with ThreadPoolExecutor(THREADS) as pool:
        futures = [pool.submit(worker, t) for t in range(THREADS)]
        return [result for future in futures for result in future.result()]


def _check(results: list[tuple[int, np.ndarray]]) -> None:
    assert len(results) == THREADS * CALLS
    wrong = [seed for seed, y in results
             if not np.allclose(y, softmax.reference(_inputs(seed)), rtol=1e-5, atol=1e-6)]
    assert wrong == [], f"{len(wrong)} of {len(results)} concurrent calls were wrong: {wrong}"


@pytest.mark.parametrize("target", ["cpu", "ascend:910b", "ascend:950"])
def test_compiled_kernel_from_threads(target):
    kernel = tilec.compile(softmax.softmax(M, N, block_M=8, block_N=32), target=target)
    blas_threads = _blas_threads()

    def run(seed: int) -> np.ndarray:
        y = np.zeros((M, N), np.float32)
        kernel(_inputs(seed), y)
        if target != "cpu":  # the report a thread reads is of its own last call
            np.testing.assert_array_equal(kernel.report().outputs["Y"].reshape(M, N), y)
        return y

    _check(_call_concurrently(run))
    # the simulator runs BLAS on one thread; overlapping runs restore the count once
    assert _blas_threads() == blas_threads


def _blas_threads() -> int | None:
    controls = blas._controls()
    return None if controls is None else controls[0]()


@pytest.mark.parametrize("target", ["cpu", "ascend:910b"])
def test_jit_kernel_from_threads(target, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    kernel = tilec.jit(softmax.softmax(M, N, block_M=8, block_N=32), target=target)

    def run(seed: int) -> np.ndarray:
        y = np.zeros((M, N), np.float32)
        kernel(_inputs(seed), y)
        return y

    _check(_call_concurrently(run))


def test_cuda_kernel_from_threads_without_a_gpu():
    """Without a GPU every concurrent call fails alike, with the documented error."""
    kernel = tilec.compile(softmax.softmax(M, N, block_M=8, block_N=32), target="cuda:sm_80")

    def run(seed: int) -> str:
        with pytest.raises(CompileError) as caught:
            kernel(_inputs(seed), np.zeros((M, N), np.float32))
        return str(caught.value)

    messages = {message for _, message in _call_concurrently(run)}
    assert len(messages) == 1 and "no CUDA GPU" in messages.pop()
