"""Side-by-side timing shared by the benchmarks."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

PAUSE_SECONDS = 0.5


def median_seconds(rounds: int, runs: int, *candidates: Callable[[], object]) -> list[float]:
    """Median wall time of each candidate over `rounds` rounds of `runs`
    calls. The candidates take turns by rounds, with a pause in between:
    OpenBLAS's threads keep spinning for a while after numpy returns, and a
    kernel timed right after a numpy call would share the cores with them."""
    times: list[list[float]] = [[] for _ in candidates]
    for _ in range(rounds):
        for run, samples in zip(candidates, times, strict=True):
            time.sleep(PAUSE_SECONDS)
            run()
            for _ in range(runs):
                start = time.perf_counter()
                run()
                samples.append(time.perf_counter() - start)
    return [statistics.median(samples) for samples in times]
