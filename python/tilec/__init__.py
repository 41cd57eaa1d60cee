"""tilec: a tile-level kernel compiler built on MLIR."""

__version__ = "0.1.0"
