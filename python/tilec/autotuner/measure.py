"""What a candidate costs: simulated cycles where the target simulates, else wall time.

A kernel whose runs leave a report (ascend, run in tilec's cycle model) is
measured by the cycles of one run: the model is deterministic, so one run
is exact and two candidates compare without noise. Elsewhere (cpu, cuda,
whose calls return when the kernel is done) the measure is the median wall
time of single calls, with the warmup and repetitions given as millisecond
budgets as TileLang's and Triton's `do_bench` take them.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

BACKENDS = ("event", "cupti", "cudagraph")
"""TileLang's timing backends: all of them mean the median wall time of calls here."""

_ESTIMATE_CALLS = 3


def check_backend(backend: str) -> str:
    if backend not in BACKENDS:
        raise ValueError(f"unknown profiling backend '{backend}'; backends: {', '.join(BACKENDS)}")
    return backend


@dataclass(frozen=True)
class Measurement:
    latency: float
    """Milliseconds: the median wall time of a call, or the simulated run's time."""
    cycles: int | None = None
    """The simulated run's cycles, on targets that simulate."""

    @property
    def score(self) -> float:
        """What candidates are ranked by (lower wins): cycles where there are any."""
        return self.latency if self.cycles is None else self.cycles


def simulated(kernel: object) -> Measurement | None:
    """The measurement in the report of the kernel's last run, if its target makes one."""
    try:
        report = kernel.report()  # type: ignore[attr-defined]
    except RuntimeError:
        return None
    return Measurement(report.microseconds / 1e3, report.cycles)


def wall_median(call: Callable[[], object], warmup_ms: float, rep_ms: float,
                timeout_s: float) -> Measurement:
    """The median wall time of `call`, after `warmup_ms` of calls, over `rep_ms` of
    calls (at least one each); the repetitions stop once `timeout_s` has passed."""
    start = time.perf_counter()
    for _ in range(_ESTIMATE_CALLS):
        call()
    estimate_ms = max((time.perf_counter() - start) * 1e3 / _ESTIMATE_CALLS, 1e-6)
    for _ in range(max(1, int(warmup_ms / estimate_ms))):
        call()
    deadline = start + timeout_s
    samples: list[float] = []
    for _ in range(max(1, int(rep_ms / estimate_ms))):
        before = time.perf_counter()
        call()
        after = time.perf_counter()
        samples.append(after - before)
        if after > deadline:
            break
    return Measurement(statistics.median(samples) * 1e3)
