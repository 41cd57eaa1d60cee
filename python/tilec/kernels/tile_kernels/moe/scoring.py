"""`tile_kernels.moe.scoring`: the scoring functions MoE gates name."""

from __future__ import annotations

from enum import IntEnum


class ScoringFunc(IntEnum):
    """How a gate turns logits into scores; the values are upstream's."""

    SIGMOID = 0
    SQRTSOFTPLUS = 1
    SOFTMAX = 2
    IDENTITY = 3

    def __str__(self) -> str:
        return self.name.lower()

    @classmethod
    def from_str(cls, label: str) -> ScoringFunc:
        try:
            return cls[label.upper()]
        except KeyError:
            raise ValueError(f"{label} is not a valid {cls.__name__}") from None
