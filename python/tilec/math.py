"""`tilelang.math`'s host helpers for sizes: `tilec.math.cdiv` (also `tilec.cdiv`) and
`next_power_of_2`."""

from __future__ import annotations

from tilec.language.math_ops import ceildiv as cdiv

__all__ = ["cdiv", "next_power_of_2"]


def next_power_of_2(x: int) -> int:
    """The least power of two that is at least `x` (1 for `x` <= 1)."""
    return 1 << max(x - 1, 0).bit_length()
