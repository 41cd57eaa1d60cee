"""Loops: `T.Parallel`, `T.Pipelined`, `T.serial` and `T.Persistent`.

Each is iterated by a Python `for`, which runs its body exactly once while
the loop's region is open, with the induction variables as symbolic values.
Leaving the body early (`break`, `return`) cannot be traced and is reported.
"""

from __future__ import annotations

from collections.abc import Iterator

from . import builder, semantic
from .builder import OpenRegion, RegionKind
from .dtypes import index
from .errors import SourceLoc
from .source import at, dsl_api, site
from .values import Scalar


def _body(
    region: OpenRegion, loc: SourceLoc, values: tuple[Scalar, ...], *inner: OpenRegion
) -> Iterator[object]:
    """Yields the induction variables once, then closes the regions opened in the
    loop's (`inner`, outermost first) and `region`, the loop's (or reports a `break`)."""
    finished = False
    try:
        yield values[0] if len(values) == 1 else values
        finished = True
    finally:
        if finished:
            with at(loc):
                for opened in (*reversed(inner), region):
                    semantic.close_region(opened)
        else:
            semantic.abandon_region(region)


def _static_extents(extents: tuple[object, ...]) -> list[int]:
    if not extents:
        raise semantic.error("T.Parallel needs at least one extent")
    sizes = []
    for axis, extent in enumerate(extents):
        size = semantic.python_int(extent, f"T.Parallel extent {axis}")
        if size is None:
            raise semantic.error(
                f"T.Parallel extents are the static shape of the tiles it covers, so extent "
                f"{axis} must be a Python int but got {extent!r}; loop with T.serial for a "
                "run-time bound"
            )
        if size < 1:
            raise semantic.error(f"T.Parallel extent {axis} must be positive but got {size}")
        sizes.append(size)
    return sizes


class Parallel:
    """`for i, j in T.Parallel(m, n):` element-wise code over an m x n index space.

    The extents are Python ints; iterations are independent and may run in
    any order. The body is scalar code: element reads and writes
    (`C[i, j] = A[i, j] * 2`), arithmetic, math, `T.if_then_else`, `T.serial`.
    Becomes a `tile.parallel`. TileLang's hints `coalesced_width` (elements per
    vector access) and `loop_layout` (a T.Fragment over the loop's indices) are
    recorded as `tile.coalesced_width` and `tile.layout`.
    """

    @dsl_api
    def __init__(
        self, *extents: object, coalesced_width: object = None, loop_layout: object = None
    ):
        self.extents = extents
        self.loc = site()
        self.hints = semantic.parallel_hints(len(extents), coalesced_width, loop_layout)

    def __iter__(self) -> Iterator[object]:
        with at(self.loc):
            trace = semantic.require_kernel("T.Parallel")
            outer = trace.current.enclosing(RegionKind.PARALLEL)
            if outer is not None:
                raise semantic.error(
                    f"T.Parallel cannot be nested in T.Parallel (line {outer.loc.line}); use one "
                    "T.Parallel over all the dims"
                )
            region, indices = builder.open_parallel(_static_extents(self.extents), self.hints)
        return _body(region, self.loc, tuple(Scalar(i, index, region) for i in indices))


def _bounds(start: object, stop: object) -> tuple[object, object]:
    """`(0, n)` for a loop written with one bound `n`."""
    return (0, start) if stop is None else (start, stop)


class Pipelined:
    """`for k in T.Pipelined(n, num_stages=3):` a serial loop a target may software-pipeline.

    `T.Pipelined(stop)` or `T.Pipelined(start, stop)`, step 1; the body may
    hold tile ops (copies, gemm). `num_stages` is how many iterations' copies
    may be in flight (0 or 1: not pipelined). TileLang's manual schedule,
    `order` and `stage` (one entry per statement of the body), `group` and
    `sync`, is checked and recorded as `tile.order`, ... for the targets that
    pipeline; without `num_stages` it has `max(stage) + 1` stages. Becomes a
    `tile.pipelined`.
    """

    @dsl_api
    def __init__(
        self,
        start: object,
        stop: object = None,
        num_stages: object = None,
        order: object = None,
        stage: object = None,
        sync: object = None,
        group: object = None,
    ):
        self.start, self.stop = _bounds(start, stop)
        self.schedule = (num_stages, order, stage, group, sync)
        self.loc = site()

    def __iter__(self) -> Iterator[object]:
        with at(self.loc):
            semantic.require_tile_context("T.Pipelined")
            stages, hints = semantic.pipeline_schedule(*self.schedule)
            lower = semantic.index_value(self.start, "the start of T.Pipelined")
            upper = semantic.index_value(self.stop, "the stop of T.Pipelined")
            step = semantic.index_value(1, "the step of T.Pipelined")
            region, iv = builder.open_pipelined(lower, upper, step, stages, hints)
        return _body(region, self.loc, (Scalar(iv, index, region),))


class serial:
    """`for k in T.serial(n):` or `T.serial(start, stop, step=1)`: a plain loop (`scf.for`).

    Bounds may be symbolic; the step must be positive. Usable anywhere in a
    kernel, including inside T.Parallel.
    """

    what = "T.serial"

    @dsl_api
    def __init__(self, start: object, stop: object = None, step: object = None):
        self.start, self.stop = _bounds(start, stop)
        self.step = 1 if step is None else step
        self.loc = site()
        self.hints: dict[str, builder.Hint] = {}

    def __iter__(self) -> Iterator[object]:
        what = self.what
        with at(self.loc):
            semantic.require_kernel(what)
            step_size = semantic.python_int(self.step, f"{what} step")
            if step_size is not None and step_size < 1:
                raise semantic.error(f"{what}: step must be positive but got {step_size}")
            lower = semantic.index_value(self.start, f"the start of {what}")
            upper = semantic.index_value(self.stop, f"the stop of {what}")
            step = semantic.index_value(self.step, f"the step of {what}")
            region, iv = builder.open_serial(lower, upper, step, self.hints)
        return _body(region, self.loc, (Scalar(iv, index, region),))


class unroll(serial):
    """`for i in T.unroll(n):` a serial loop that a target should unroll, fully or by
    `unroll_factor` (TileLang's `T.unroll`); recorded as `tile.unroll` on the scf.for
    (`true`, or the factor), which cpu leaves to LLVM. `explicit` (TileLang: unroll in
    the front end) is recorded as `tile.unroll_explicit`."""

    what = "T.unroll"

    @dsl_api
    def __init__(
        self,
        start: object,
        stop: object = None,
        step: object = None,
        *,
        explicit: bool = False,
        unroll_factor: int | None = None,
    ):
        super().__init__(start, stop, step)
        self.hints = semantic.unroll_hints(explicit, unroll_factor)


class vectorized(serial):
    """`for i in T.vectorized(n):` TileLang's loop that a target vectorizes: the same
    iterations as T.serial (in per-thread code, each thread's own); cpu leaves the
    vectorizing to LLVM."""

    what = "T.vectorized"


class Persistent:
    """`for bx, by in T.Persistent([gm, gn], wave_size, index, group_size=8):` TileLang's
    persistent tile walk: a block with id `index` of `wave_size` launched blocks visits
    the tiles of the `[gm, gn]` grid `index`, `index + wave_size`, ... in waves, the last
    dim grouped `group_size` at a time (panels of `group_size` columns, walked down the
    rows, for L2 reuse), so the blocks together visit every tile once.

    A T.serial loop over the waves (`ceildiv` of the grouped grid by `wave_size`) with an
    `if` that skips the positions past the grid; the body sees the tile's coordinates.
    """

    @dsl_api
    def __init__(self, domain: object, wave_size: object, index: object, group_size: object = 8):
        self.domain = domain
        self.wave_size = wave_size
        self.index = index
        self.group_size = group_size
        self.loc = site()

    def __iter__(self) -> Iterator[object]:
        what = "T.Persistent"
        binary = semantic.binary
        with at(self.loc):
            semantic.require_kernel(what)
            if not isinstance(self.domain, list | tuple) or not self.domain:
                raise semantic.error(
                    f"{what}: the domain must be a non-empty list of grid sizes but got "
                    f"{self.domain!r}"
                )
            dims = list(self.domain)
            last = dims[-1]
            group = binary("max", 1, binary("min", self.group_size, last))
            # The grid as TileLang walks it: panels of `group` columns of the last dim.
            grouped = [semantic.ceildiv(last, group), *dims[:-1], group]
            positions = grouped[0]
            for size in grouped[1:]:
                positions = binary("*", positions, size)
            waves = semantic.ceildiv(positions, self.wave_size)
            lower = semantic.index_value(0, f"the start of {what}")
            upper = semantic.index_value(waves, f"the number of waves of {what}")
            step = semantic.index_value(1, f"the step of {what}")
            loop, wave = builder.open_serial(lower, upper, step, {})
            started = binary("*", Scalar(wave, index, loop), self.wave_size)
            position = binary("+", started, self.index)
            coords, rest = [], position
            for size in reversed(grouped[1:]):
                coords.insert(0, binary("%", rest, size))
                rest = binary("//", rest, size)
            panel, inner = rest, coords[-1]
            column = binary("+", binary("*", panel, group), inner)
            inside = binary(
                "&", semantic.compare("<", position, positions), semantic.compare("<", column, last)
            )
            guard, _ = builder.open_then(semantic.truth(inside, what).value, has_else=False)
        yield from _body(loop, self.loc, (*coords[:-1], column), guard)
