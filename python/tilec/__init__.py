"""tilec: a tile-level kernel compiler built on MLIR."""

from tilec.language import prim_func as kernel  # noqa: F401 - `@tilec.kernel`

__version__ = "0.1.0"
