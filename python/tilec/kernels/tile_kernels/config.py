"""TileKernels' device configuration (`tile_kernels.config`): how many SMs its kernels
may fill.

Upstream reads the CUDA device's SM count; a tilec target has no such property to
ask before a call, so the device's count is the host's CPU count (the cpu target runs
a block per core), as `tilec.kernels.deep_gemm.config` counts it.
"""

from __future__ import annotations

import os

_num_sms = 0


def get_device_num_sms() -> int:
    """The cores of the device: the host's CPU count."""
    return os.cpu_count() or 1


def set_num_sms(num_sms: int) -> None:
    """Limits the kernels to `num_sms` cores (at least 1, at most the device's)."""
    if not 0 < num_sms <= get_device_num_sms():
        raise ValueError(f"tile_kernels.config.set_num_sms: num_sms must be in "
                         f"[1, {get_device_num_sms()}] but is {num_sms}")
    global _num_sms
    _num_sms = num_sms


def get_num_sms() -> int:
    """set_num_sms's value, else the device's count."""
    return _num_sms if _num_sms else get_device_num_sms()
