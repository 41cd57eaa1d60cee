"""A tile indexed by a value known only at run time keeps its accesses inside it, on
every target, with the rule tensors have: a read outside gives 0 and a write outside is
dropped (issue 22: on cpu `t[idx] = 7` with idx 70 wrote past a 64-element tile and
read the 7 back, and idx 1,000,000 crashed)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as T

sys.path.insert(0, str(Path(__file__).resolve().parent / "cuda"))


@T.prim_func
def scatter_into_tile(Idx: T.Tensor((6,), "int32"), Y: T.Tensor((64,), "float32"),
                      Z: T.Tensor((6,), "float32")):
    with T.Kernel(1, threads=32):
        t = T.alloc_fragment((64,), "float32")
        T.clear(t)
        for s in T.serial(6):
            t[Idx[s]] = 7.0 + s
            Z[s] = t[Idx[s]]
        T.copy(t, Y)


INDICES = np.array([3, 70, 1_000_000, -1, 63, 64], np.int32)


def _expected() -> tuple[np.ndarray, np.ndarray]:
    y = np.zeros(64, np.float32)
    z = np.zeros(6, np.float32)
    for s, index in enumerate(INDICES):
        if 0 <= index < 64:
            y[index] = 7.0 + s
            z[s] = 7.0 + s
    return y, z


@pytest.mark.parametrize("target", ["cpu", "ascend:910b", "ascend:950"])
def test_runtime_tile_indices_stay_inside(target):
    kernel = tilec.compile(scatter_into_tile, target=target)
    y = np.full(64, -5.0, np.float32)
    z = np.full(6, -5.0, np.float32)
    kernel(INDICES, y, z)
    want_y, want_z = _expected()
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(z, want_z)


def test_runtime_tile_indices_stay_inside_on_cuda():
    """In the SIMT emulator of the cuda lowering (no GPU here)."""
    from test_cuda_emulated import emulate

    y = np.full(64, -5.0, np.float32)
    z = np.full(6, -5.0, np.float32)
    emulate(scatter_into_tile, INDICES, y, z)
    want_y, want_z = _expected()
    np.testing.assert_array_equal(y, want_y)
    np.testing.assert_array_equal(z, want_z)
