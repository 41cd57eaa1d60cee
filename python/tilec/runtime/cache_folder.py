"""Where tilec keeps files between runs: `$TILEC_CACHE_DIR`, else ~/.cache/tilec.

Its own module because the backends (the AscendC CPU model's builds) and the
autotuner keep files there too, and must not import the kernel cache, which
imports the runtime that drives the backends.
"""

from __future__ import annotations

import os
from pathlib import Path


def cache_dir() -> Path:
    configured = os.environ.get("TILEC_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "tilec"
