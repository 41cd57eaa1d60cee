"""TileLang's cache controls (`tilelang.cache.clear_cache()`, `tilelang.disable_cache()`)
over tilec's disk cache of compiled kernels (`tilec.runtime.cache`).

As in TileLang, they act on the cache shared by processes; a kernel object keeps the
specializations it compiled in memory (a `tilec.jit` kernel compiles each set of
shapes once per process, whatever these say).
"""

from __future__ import annotations

from pathlib import Path

from tilec.runtime import cache as _disk


def clear_cache() -> None:
    """Deletes every kernel of the disk cache ($TILEC_CACHE_DIR, default ~/.cache/tilec)."""
    _disk.clear()


def disable_cache() -> None:
    """Compiles every new kernel of this process without reading or writing the disk cache."""
    _disk.set_enabled(False)


def enable_cache() -> None:
    """Uses the disk cache again (the default)."""
    _disk.set_enabled(True)


def is_cache_enabled() -> bool:
    return _disk.enabled()


def get_cache_dir() -> Path:
    return _disk.cache_dir()
