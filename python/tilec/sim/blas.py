"""Runs numpy's BLAS on one thread while the simulator works.

Why: every mmad is a small matrix product (a tile of at most a few hundred
rows); a threaded BLAS spends more on waking and spinning its threads than on
the product, and on a loaded machine the spinning threads also starve the
interpreter. Measured on 2 cores under load: a 1024^3 GEMM simulation took
5-8 s with OpenBLAS's default threads and 0.8 s with one thread.

numpy wheels bundle OpenBLAS (symbols with a `scipy_` prefix and a `64_`
suffix in recent wheels); other builds are left as they are.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import glob
import os
import threading
from collections.abc import Iterator

import numpy as np

_NAMES = (("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
          ("openblas_get_num_threads64_", "openblas_set_num_threads64_"),
          ("openblas_get_num_threads", "openblas_set_num_threads"))


@functools.cache
def _controls() -> tuple | None:
    libs = os.path.join(os.path.dirname(os.path.dirname(np.__file__)), "numpy.libs")
    for path in glob.glob(os.path.join(libs, "*openblas*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for get_name, set_name in _NAMES:
            if hasattr(lib, get_name) and hasattr(lib, set_name):
                getter, setter = getattr(lib, get_name), getattr(lib, set_name)
                getter.restype = ctypes.c_int
                setter.argtypes = [ctypes.c_int]
                return getter, setter
    return None


_lock = threading.Lock()
_users = 0
_saved = 0
"""Simulations running now, and the thread count to restore after the last:
with each one saving and restoring its own, two interleaved simulations
would leave BLAS on one thread for good."""


@contextlib.contextmanager
def single_threaded() -> Iterator[None]:
    global _users, _saved
    controls = _controls()
    if controls is None:
        yield
        return
    getter, setter = controls
    with _lock:
        if _users == 0:
            _saved = getter()
            setter(1)
        _users += 1
    try:
        yield
    finally:
        with _lock:
            _users -= 1
            if _users == 0:
                setter(_saved)
