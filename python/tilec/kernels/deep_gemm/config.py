"""DeepGEMM's device configuration: how many SMs (cores) its kernels may use."""

from __future__ import annotations

import os

_num_sms: int | None = None


def get_num_sms() -> int:
    """The cores a kernel's grid may fill: set_num_sms's value, else the host's CPU count
    (the cpu target runs a block per core)."""
    return _num_sms if _num_sms is not None else (os.cpu_count() or 1)


def set_num_sms(num_sms: int) -> None:
    if num_sms <= 0:
        raise ValueError(f"set_num_sms: the number of SMs must be positive but is {num_sms}")
    global _num_sms
    _num_sms = num_sms
