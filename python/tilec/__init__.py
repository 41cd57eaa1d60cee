"""tilec: a tile-level kernel compiler built on MLIR.

`tilec.compile`, `tilec.jit` and the types they return are loaded on first
use, so importing tilec (for example to reach `tilec.passes`) does not load
the MLIR JIT.

What TileLang (and tilelang-ascend) users reach on `tilelang` is here under
the same names, so `import tilec as tilelang` runs their host code:
`jit(out_idx=, workspace_idx=, pass_configs=)`, `PassConfigKey`,
`DataType("float16").bits`, `cdiv`/`next_power_of_2` (also in `tilec.math`),
`disable_cache`/`enable_cache`/`is_cache_enabled` and `tilec.cache.clear_cache`.
"""

from __future__ import annotations

import importlib

from tilec import (
    layout,  # noqa: F401 - `tilec.layout`, as `tilelang.layout`
    math,  # noqa: F401 - `tilec.math`, as `tilelang.math`
)
from tilec.language import prim_func as kernel  # noqa: F401 - `@tilec.kernel`
from tilec.language.dtypes import DType as DataType  # noqa: F401 - TVM's, as TileLang exports it
from tilec.math import cdiv, next_power_of_2  # noqa: F401
from tilec.pass_config import PassConfigKey  # noqa: F401

__version__ = "0.1.0"

_RUNTIME_EXPORTS = {
    "compile": "tilec.runtime.compiler",
    "CompiledKernel": "tilec.runtime.compiler",
    "jit": "tilec.runtime.jit_styles",
    "JitKernel": "tilec.runtime.jit",
    "ArgumentError": "tilec.runtime.signature",
    "disable_cache": "tilec.cache",
    "enable_cache": "tilec.cache",
    "is_cache_enabled": "tilec.cache",
    "autotune": "tilec.autotuner.tuner",
    "TensorSupplyType": "tilec.autotuner.supply",
}


def __getattr__(name: str):
    if name in _RUNTIME_EXPORTS:
        return getattr(importlib.import_module(_RUNTIME_EXPORTS[name]), name)
    if name in ("cache", "autotuner"):  # `tilelang.cache.clear_cache()`, `.autotuner.AutoTuner`
        return importlib.import_module(f"tilec.{name}")
    raise AttributeError(f"module 'tilec' has no attribute '{name}'")
