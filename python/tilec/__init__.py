"""tilec: a tile-level kernel compiler built on MLIR.

`tilec.compile` and `tilec.jit` are loaded on first use, so importing tilec
(for example to reach `tilec.passes`) does not load the MLIR JIT.
"""

from __future__ import annotations

from tilec.language import prim_func as kernel  # noqa: F401 - `@tilec.kernel`

__version__ = "0.1.0"

_RUNTIME_EXPORTS = ("compile", "jit")


def __getattr__(name: str):
    if name in _RUNTIME_EXPORTS:
        from tilec import runtime

        return getattr(runtime, name)
    raise AttributeError(f"module 'tilec' has no attribute '{name}'")
