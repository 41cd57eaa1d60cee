"""What a DMA to or from GM costs: the L2 cache in front of HBM, and burst efficiency.

L2, because a tiled GEMM reads every A and B tile from many cores, and on the
real chip all but the first read hit L2 (192 MB on 910B): charging HBM
bandwidth for every read would predict a memory-bound kernel where the
hardware is compute-bound. GM is split into lines of `profile.l2_line_bytes`;
a line becomes resident when an op reads or writes it, and lines leave in
first-in first-out order once more than `profile.l2_bytes` are resident. A
read pays HBM bandwidth for the share of its lines that are not resident and
L2 bandwidth for the rest; a write pays L2 write bandwidth (write-back).

Bursts, because the DMA moves GM in bursts of `profile.dma_burst_bytes`
(512 B): a transfer whose rows start off a burst boundary, or are shorter
than a burst, reaches only `profile.dma_unaligned_efficiency` of the rate.
GM arguments are taken to start on a burst boundary.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from tilec.sim.memory import Arena, Region
from tilec.targets.ascend.profiles import Profile


class GmTransferModel:
    def __init__(self, profile: Profile):
        self.profile = profile
        self.line = profile.l2_line_bytes
        self.capacity_lines = profile.l2_bytes // profile.l2_line_bytes
        self.resident: dict[int, np.ndarray] = {}
        self.fifo: collections.deque[tuple[np.ndarray, np.ndarray]] = collections.deque()
        self.resident_lines = 0

    def _lines(self, region: Region) -> np.ndarray:
        starts = region.run_starts()
        first = starts // self.line
        last = (starts + region.length - 1) // self.line
        counts = last - first + 1
        if int(counts.max()) == 1:
            return first
        offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        return np.repeat(first, counts) + offsets

    def _bits(self, arena: Arena) -> np.ndarray:
        bits = self.resident.get(arena.id)
        if bits is None:
            bits = np.zeros(-(-arena.data.nbytes // self.line), dtype=bool)
            self.resident[arena.id] = bits
        return bits

    def _touch(self, bits: np.ndarray, region: Region) -> float:
        """Marks the lines of `region` resident; returns the fraction that already was."""
        if region.starts is None:  # one run: a slice, no index arrays
            lines = np.arange(region.lo // self.line, (region.hi - 1) // self.line + 1)
            hit = bits[lines[0]:lines[-1] + 1]
        else:
            lines = self._lines(region)
            hit = bits[lines]
        fraction = np.count_nonzero(hit) / len(hit)
        if fraction < 1.0:
            new = lines[~hit] if region.starts is None else np.unique(lines[~hit])
            bits[new] = True
            self.fifo.append((bits, new))
            self.resident_lines += len(new)
            while self.resident_lines > self.capacity_lines and len(self.fifo) > 1:
                old_bits, old_lines = self.fifo.popleft()
                old_bits[old_lines] = False
                self.resident_lines -= len(old_lines)
        return fraction

    def _efficiency(self, region: Region) -> float:
        burst = self.profile.dma_burst_bytes
        if region.starts is None:
            aligned = region.lo % burst == 0
        else:
            aligned = region.length % burst == 0 and not (region.starts % burst).any()
        return 1.0 if aligned else self.profile.dma_unaligned_efficiency

    def read_cycles(self, region: Region) -> int:
        hit = self._touch(self._bits(region.arena), region)
        nbytes = region.nbytes / self._efficiency(region)
        return math.ceil(nbytes * (1.0 - hit) / self.profile.hbm_bytes_per_cycle
                         + nbytes * hit / self.profile.l2_read_bytes_per_cycle)

    def write_cycles(self, region: Region) -> int:
        self._touch(self._bits(region.arena), region)
        return math.ceil(region.nbytes / self._efficiency(region)
                         / self.profile.l2_write_bytes_per_cycle)
