"""The timeline of a simulation as Chrome-trace JSON (opens in Perfetto and chrome://tracing).

One process per core (`block 3 aiv1`), one thread per pipe; every
instruction is a complete event at its start with its duration, waits and
scalar-unit stalls are events named after the waiting op, single-pipe
barriers are instants. Times are microseconds at the profile's clock; the
cycle numbers are in each event's args.
"""

from __future__ import annotations

import json
import os

from tilec.sim.instruction import PIPE_NAMES, PIPES_OF_CORE


def trace_events(timeline: list[tuple], cores: list[tuple[str, str]],
                 clock_ghz: float) -> list[dict]:
    """Events of `timeline` entries (core, pipe, start, cycles, site, category);
    `cores` gives each core's name and kind."""
    per_us = clock_ghz * 1e3
    events: list[dict] = []
    seen: set[int] = set()
    for core, pipe, start, cycles, site, category in timeline:
        if core not in seen:
            seen.add(core)
            name, kind = cores[core]
            events.append({"ph": "M", "name": "process_name", "pid": core,
                           "args": {"name": name}})
            events.append({"ph": "M", "name": "process_sort_index", "pid": core,
                           "args": {"sort_index": core}})
            for tid in sorted(PIPES_OF_CORE[kind]):
                events.append({"ph": "M", "name": "thread_name", "pid": core, "tid": tid,
                               "args": {"name": PIPE_NAMES[tid]}})
                events.append({"ph": "M", "name": "thread_sort_index", "pid": core, "tid": tid,
                               "args": {"sort_index": tid}})
        event = {"name": site.text, "cat": category or "op", "pid": core, "tid": pipe,
                 "ts": start / per_us,
                 "args": {"location": site.location, "start_cycle": start, "cycles": cycles}}
        if cycles:
            event.update(ph="X", dur=cycles / per_us)
        else:
            event.update(ph="i", s="t")
        events.append(event)
    return events


def write_trace(path: str | os.PathLike, timeline: list[tuple], cores: list[tuple[str, str]],
                clock_ghz: float, metadata: dict) -> None:
    document = {"traceEvents": trace_events(timeline, cores, clock_ghz),
                "displayTimeUnit": "ns", "otherData": metadata}
    with open(path, "w") as stream:
        json.dump(document, stream)
