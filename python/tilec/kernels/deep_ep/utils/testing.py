"""DeepEP's benchmark helper. Without a CUDA profiler the time of a whole call is
measured (wall clock), not of the named kernels."""

from __future__ import annotations

import time
from collections.abc import Callable

import torch.distributed as dist


def bench_kineto(
    fn: Callable[[], object],
    kernel_names: str | tuple[str, ...],
    num_tests: int = 30,
    suppress_kineto_output: bool = False,
    trace_path: str | None = None,
    flush_l2: bool = True,
    barrier_comm_profiling: bool = False,
    num_kernels_per_period: int = 1,
    barrier: Callable[[], None] | None = None,
):
    """The mean seconds of one `fn()` (after one warm-up call), for each of
    `kernel_names` (the same number for each: the whole call). With
    `barrier_comm_profiling`, the ranks meet before each call."""
    assert isinstance(kernel_names, str | tuple)
    fn()
    total = 0.0
    for _ in range(num_tests):
        if barrier_comm_profiling:
            barrier() if barrier is not None else dist.barrier()
        start = time.perf_counter()
        fn()
        total += time.perf_counter() - start
    mean = total / num_tests
    return (mean,) * len(kernel_names) if isinstance(kernel_names, tuple) else mean
