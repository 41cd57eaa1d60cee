"""Byte-addressed memories, buffers placed in them, and the byte ranges ops touch.

Every on-chip memory of a core (L1, L0A, L0B, L0C, UB, BT, FB) is one
`Arena`: a uint8 array of the profile's capacity. `memref.alloc` places a
buffer at an aligned address inside it (first fit, or exactly at the offset
the memory planner chose: planned buffers may share bytes with other planned
buffers whose lifetimes do not overlap) and the buffer's value is a numpy view
of those bytes with the memref's shape, so a 4-D Nz tile really sits in Nz
order and a subview is just a strided view. A GM argument is an arena of its
own. Race detection and the L2 model need to know which bytes an op touches:
`Region` is that, computed from the numpy view's address and strides, as a
sorted set of equal-length byte runs (one run for a contiguous view).
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools

import numpy as np

from tilec.sim.dtypes import ElementType

_arena_ids = itertools.count()


def address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


@dataclasses.dataclass(eq=False)
class Allocation:
    offset: int
    nbytes: int
    label: str
    """What the buffer is, for messages: its type and where it was allocated."""
    planned: bool = False
    """Placed at the memory planner's offset (`ascend.offset`), not first fit."""


class Arena:
    """One memory: a GM argument, or one on-chip memory space of one core."""

    def __init__(self, space: str, data: np.ndarray, owner: str, *, usable: int | None = None,
                 alignment: int = 1):
        self.id = next(_arena_ids)
        self.space = space
        self.data = data
        self.owner = owner
        """The core (`block 3 aiv1`) or argument (`argument 0`) it belongs to."""
        self.base = address(data)
        self.usable = data.nbytes if usable is None else usable
        self.alignment = alignment
        self.allocations: list[Allocation] = []  # sorted by offset
        self.peak = 0
        """The most bytes in use at once."""

    def allocate(self, nbytes: int, label: str) -> int | None:
        """First-fit placement of `nbytes`; None when no aligned gap is large enough."""
        cursor = 0
        for index, existing in enumerate(self.allocations):
            start = -(-cursor // self.alignment) * self.alignment
            if start + nbytes <= existing.offset:
                self._insert(index, Allocation(start, nbytes, label))
                return start
            cursor = max(cursor, existing.offset + existing.nbytes)
        start = -(-cursor // self.alignment) * self.alignment
        if start + nbytes > self.usable:
            return None
        self._insert(len(self.allocations), Allocation(start, nbytes, label))
        return start

    def place(self, offset: int, nbytes: int, label: str) -> str | None:
        """Places `nbytes` at exactly `offset` (a planned buffer); the reason
        when it cannot be. It may overlap other planned buffers (the plan
        reuses bytes across lifetimes, and the race checker sees any access
        the sync does not order), never a first-fit one. Placing the same
        buffer again (an alloc in a loop) keeps the one allocation."""
        if offset % self.alignment:
            return f"offset {offset} is not a multiple of the {self.alignment}-byte alignment"
        if offset < 0 or offset + nbytes > self.usable:
            return (f"bytes [{offset}, {offset + nbytes}) are outside the {self.usable} usable "
                    f"bytes")
        for existing in self.allocations:
            if (not existing.planned and existing.offset < offset + nbytes
                    and offset < existing.offset + existing.nbytes):
                return f"it overlaps {existing.label}, which the memory planner did not place"
        offsets = [a.offset for a in self.allocations]
        index = bisect.bisect_left(offsets, offset)
        for existing in self.allocations[index:]:
            if existing.offset != offset:
                break
            if existing.nbytes == nbytes and existing.label == label:
                return None
        self._insert(index, Allocation(offset, nbytes, label, planned=True))
        return None

    def allocation_at(self, offset: int, nbytes: int, label: str) -> Allocation:
        """The allocation `allocate` or `place` just made (or kept) there."""
        return next(a for a in self.allocations
                    if (a.offset, a.nbytes, a.label) == (offset, nbytes, label))

    def _insert(self, index: int, allocation: Allocation) -> None:
        self.allocations.insert(index, allocation)
        self.peak = max(self.peak, self.used_bytes())

    def free(self, allocation: Allocation) -> bool:
        """Ends `allocation`; False when it is not (or no longer) in this arena."""
        for index, existing in enumerate(self.allocations):
            if existing is allocation:
                del self.allocations[index]
                return True
        return False

    def used_bytes(self) -> int:
        """Bytes inside some allocation (planned buffers that share bytes count once)."""
        used, end = 0, 0
        for allocation in self.allocations:
            lo, hi = max(allocation.offset, end), allocation.offset + allocation.nbytes
            if hi > lo:
                used += hi - lo
            end = max(end, hi)
        return used

    def describe(self, lo: int, hi: int) -> str:
        """`ub of block 0 aiv0, bytes [lo, hi) (memref<...> allocated at f:3:9)`."""
        where = f"{self.space} of {self.owner}" if self.space != "gm" else self.owner
        text = f"{where}, bytes [{lo}, {hi})"
        offsets = [a.offset for a in self.allocations]
        index = bisect.bisect_right(offsets, lo)
        holders = [a for a in reversed(self.allocations[:index]) if lo < a.offset + a.nbytes]
        # Planned buffers may share bytes: name every one that holds `lo`.
        if holders:
            text += " (" + "; ".join(f"{a.label}, offset {lo - a.offset}"
                                     for a in reversed(holders)) + ")"
        return text


@dataclasses.dataclass(frozen=True, slots=True)
class Buffer:
    """The runtime value of a memref: a typed view into an arena."""

    array: np.ndarray
    arena: Arena
    element: ElementType
    allocation: Allocation | None = None
    """The allocation the bytes belong to (None for GM): planned buffers may
    share bytes, so an address alone does not say which one a view is of."""

    def view(self, array: np.ndarray) -> Buffer:
        return Buffer(array, self.arena, self.element, self.allocation)


@dataclasses.dataclass(frozen=True, slots=True)
class Region:
    """Bytes of one arena touched by one access: runs [s, s + length) for s in
    `starts` (None: the single run [lo, hi)). `lo`/`hi` bound all runs."""

    arena: Arena
    lo: int
    hi: int
    length: int
    starts: np.ndarray | None

    @property
    def nbytes(self) -> int:
        return self.length if self.starts is None else self.length * len(self.starts)

    def run_starts(self) -> np.ndarray:
        return np.array([self.lo], dtype=np.int64) if self.starts is None else self.starts


def region(arena: Arena, array: np.ndarray) -> Region | None:
    """The bytes of `arena` that the view `array` covers (None when it is empty)."""
    if array.size == 0:
        return None
    offset = address(array) - arena.base
    if array.flags.c_contiguous:
        return Region(arena, offset, offset + array.nbytes, array.nbytes, None)
    itemsize = array.itemsize
    dims = [(n, s) for n, s in zip(array.shape, array.strides, strict=True) if n != 1]
    run = itemsize
    while dims and dims[-1][1] == run:
        run *= dims[-1][0]
        dims.pop()
    if not dims:
        return Region(arena, offset, offset + run, run, None)
    starts = np.zeros(1, dtype=np.int64) + offset
    for n, stride in dims:
        starts = np.add.outer(starts, np.arange(n, dtype=np.int64) * stride).ravel()
    if any(stride < 0 for _, stride in dims):
        starts.sort()
    return Region(arena, int(starts[0]), int(starts[-1]) + run, run, starts)


def overlap(a: Region, b: Region) -> tuple[int, int] | None:
    """The first byte range both regions touch, or None."""
    if a.hi <= b.lo or b.hi <= a.lo:
        return None
    if a.starts is None and b.starts is None:
        return max(a.lo, b.lo), min(a.hi, b.hi)
    a_starts, b_starts = a.run_starts(), b.run_starts()
    if len(a_starts) < len(b_starts):
        a, b, a_starts, b_starts = b, a, b_starts, a_starts
    # For each run of b, the first run of a that ends after it starts.
    index = np.searchsorted(a_starts, b_starts - a.length, side="right")
    valid = index < len(a_starts)
    hit = np.zeros(len(b_starts), dtype=bool)
    hit[valid] = a_starts[index[valid]] < b_starts[valid] + b.length
    if not hit.any():
        return None
    j = int(np.argmax(hit))
    i = int(index[j])
    lo = max(int(a_starts[i]), int(b_starts[j]))
    return lo, min(int(a_starts[i]) + a.length, int(b_starts[j]) + b.length)
