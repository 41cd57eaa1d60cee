"""tilec: a tile-level kernel compiler built on MLIR.

`tilec.compile`, `tilec.jit` and the types they return are loaded on first
use, so importing tilec (for example to reach `tilec.passes`) does not load
the MLIR JIT.
"""

from __future__ import annotations

import importlib

from tilec import layout  # noqa: F401 - `tilec.layout`, as `tilelang.layout`
from tilec.language import prim_func as kernel  # noqa: F401 - `@tilec.kernel`

__version__ = "0.1.0"

_RUNTIME_EXPORTS = {
    "compile": "tilec.runtime.compiler",
    "CompiledKernel": "tilec.runtime.compiler",
    "jit": "tilec.runtime.jit_styles",
    "JitKernel": "tilec.runtime.jit",
    "ArgumentError": "tilec.runtime.signature",
}


def __getattr__(name: str):
    if name in _RUNTIME_EXPORTS:
        return getattr(importlib.import_module(_RUNTIME_EXPORTS[name]), name)
    raise AttributeError(f"module 'tilec' has no attribute '{name}'")
