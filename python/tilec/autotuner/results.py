"""What a tuning run found: each config's measurement or failure, and the winner."""

from __future__ import annotations

from dataclasses import dataclass, field

from tilec.autotuner.measure import Measurement


class AutotuneError(RuntimeError):
    """No config compiled, ran and matched the reference; the message lists why, per config."""


@dataclass(frozen=True)
class Trial:
    """One config of a run: its measurement, or why it was skipped."""

    config: dict[str, object]
    measurement: Measurement | None = None
    error: str | None = None
    """Why the config was skipped: its compile error (located at the kernel's
    line), a failed run, or its outputs differing from `ref_prog`."""

    def describe(self) -> str:
        if self.measurement is None:
            first, *_ = (self.error or "skipped").splitlines() or ["skipped"]
            return f"{self.config}: skipped: {first}"
        cycles = "" if self.measurement.cycles is None else f", {self.measurement.cycles} cycles"
        return f"{self.config}: {self.measurement.latency:.6g} ms{cycles}"


@dataclass
class AutotuneResult:
    """The winning config and its kernel, as TileLang's `AutotuneResult` has them."""

    config: dict[str, object]
    kernel: object
    """The compiled kernel of `config` (called as TileLang's: `C = kernel(A, B)`)."""
    latency: float
    """Milliseconds: the winner's median wall time, or its simulated run's time."""
    cycles: int | None = None
    """The winner's simulated cycles, on targets that simulate (what it won by there)."""
    ref_latency: float | None = None
    """The median wall time of `ref_prog` on the same inputs, where wall time is the measure."""
    trials: list[Trial] = field(default_factory=list)
    from_cache: bool = False
    """Whether the winner came from the disk cache (nothing was measured)."""

    @property
    def skipped(self) -> list[Trial]:
        return [t for t in self.trials if t.error is not None]

    def report(self) -> str:
        """One line per config, then the winner."""
        lines = [t.describe() for t in self.trials]
        source = " (from the tuning cache)" if self.from_cache else ""
        return "\n".join([*lines, f"best: {self.config}{source}"])
