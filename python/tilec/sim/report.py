"""The text report of a simulation (what `tile-sim` prints)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tilec.sim.api import SimResult


def _bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.2f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def format_report(result: SimResult) -> str:
    profile = result.profile
    lines = [
        f"kernel @{result.kernel} ({result.core_kind}) on {profile.name} ({profile.arch}), "
        f"block_dim {result.block_dim}: {result.core_count} cores",
        f"cycles: {result.cycles} ({result.microseconds:.3f} us at {profile.clock_ghz} GHz)",
        "pipe busy (cycles summed over cores, % of cycles x cores that have the pipe):",
    ]
    for pipe, share in result.pipe_utilization.items():
        lines.append(f"  {pipe:<5}{result.pipe_busy[pipe]:>14} {100 * share:6.2f}%")
    lines.append(f"cube utilization: {100 * result.cube_utilization:.2f}%")
    lines.append(f"vector utilization: {100 * result.vector_utilization:.2f}%")
    if result.macs:
        lines.append(f"cube MACs: {result.macs} ({result.tflops:.2f} TFLOPS achieved)")
    if result.bandwidth:
        lines.append("traffic per path (bytes, bytes/cycle, GB/s):")
        for path, traffic in sorted(result.bandwidth.items()):
            lines.append(f"  {path:<9}{_bytes(traffic.bytes):>12} {traffic.bytes_per_cycle:10.2f}"
                         f" {traffic.gb_per_s:10.2f}")
    if result.memory_peak:
        usage = ", ".join(f"{space} {_bytes(peak)} of {_bytes(profile.usable_bytes(space))}"
                          for space, peak in result.memory_peak.items())
        lines.append(f"on-chip memory (peak per core): {usage}")
    lines.append(f"races: {len(result.races)}")
    lines.append(f"deadlocks: {len(result.deadlocks)}")
    if result.errors:
        lines.append(f"other errors: {len(result.errors)}")
    return "\n".join(lines)
