"""The race detector's history (python/tilec/sim/races.py) on a scalar loop next to a tile.

Accesses are kept in classes of span length and a class whose every access is ordered
before a new one is not searched, which keeps one-element accesses after a whole-tile
vector op from scanning each other: what made a scalar loop quadratic. The same races
must still be found, in the same order of earlier accesses."""

from __future__ import annotations

import numpy as np

from tilec.sim.memory import Arena, Region
from tilec.sim.races import RaceDetector, Site

S, V = 0, 1  # two actors (pipes)
TILE = Site("ascend.vbin", "k.py:3:5", "ascend.vbin add")
LOAD = Site("memref.load", "k.py:5:9", "memref.load")
STORE = Site("memref.store", "k.py:6:9", "memref.store")


def _element(arena: Arena, index: int) -> Region:
    return Region(arena, 4 * index, 4 * index + 4, 4, None)


def _clock(s: int, v: int) -> np.ndarray:
    return np.array([s, v])


def test_a_scalar_write_unordered_with_a_tile_read_is_a_race_among_many_ordered():
    arena = Arena("ub", np.zeros(4096, np.uint8), "block 0 aiv0")
    races = RaceDetector()
    races.access((Region(arena, 0, 1024, 1024, None),), (), V, 1, _clock(0, 1), TILE, "V", 0)
    for i in range(256):  # a scalar loop after a flag from V: ordered
        races.access((_element(arena, i),), (_element(arena, i),), S, 2 + i, _clock(2 + i, 1),
                     STORE, "S", 1 + i)
    assert not races.diagnostics()
    races.access((Region(arena, 0, 1024, 1024, None),), (), V, 2, _clock(0, 2), TILE, "V", 1)
    # V's second read has not seen S's writes: one race, reported against the first element
    (race,) = races.races.values()
    assert (race.earlier.site, race.later.site, race.lo, race.hi) == (STORE, TILE, 0, 4)
    # and a later unordered one-element write of S after V's read: a race too
    races.access((), (_element(arena, 300),), S, 400, _clock(400, 1), STORE, "S", 399)
    assert len(races.races) == 1
    races.access((), (_element(arena, 7),), S, 401, _clock(401, 1), LOAD, "S", 400)
    assert len(races.races) == 2


def test_accesses_of_one_actor_within_its_fence_are_not_searched():
    arena = Arena("ub", np.zeros(256, np.uint8), "block 0 aiv0")
    races = RaceDetector()
    for i in range(32):
        races.access((), (_element(arena, i),), S, 1 + i, _clock(1 + i, 0), STORE, "S", i)
    # a write after a barrier past every earlier write is ordered; the pipe overlaps its
    # instructions, so one whose fence is below an earlier write's epoch races with it
    races.access((), (_element(arena, 31),), S, 40, _clock(40, 0), STORE, "S", 32)
    assert not races.races
    races.access((), (_element(arena, 5),), S, 41, _clock(41, 0), STORE, "S", 3)
    (race,) = races.races.values()
    assert race.earlier.epoch == 6 and race.later.epoch == 41
