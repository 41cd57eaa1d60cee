"""The inputs a tuning run calls every candidate with (TileLang's `TensorSupplyType`).

Every candidate of one run gets the same arrays, made once from a fixed seed,
so that their outputs, their check against `ref_prog` and their timings are
of the same work. Only static shapes can be made up: a kernel with a dynamic
dim or a scalar parameter needs a `supply_prog`.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

import numpy as np

from tilec.runtime.signature import Param, numpy_dtype

SEED = 0


class TensorSupplyType(enum.Enum):
    """How made-up inputs are filled, with TileLang's member names."""

    Integer = 1
    """Small integers in [-2, 3) ([0, 3) for unsigned types): exact in every dtype."""
    Uniform = 2
    """Uniform in [-1, 1)."""
    Normal = 3
    """Normal with mean 0 and deviation 1."""
    Randn = 4
    """Standard normal (as Normal)."""
    Zero = 5
    One = 6
    Auto = 7
    """Standard normal for floats, Integer for integers, 0 or 1 for bools."""


def _values(kind: TensorSupplyType, dtype: np.dtype, shape: tuple[int, ...],
            rng: np.random.Generator) -> np.ndarray:
    """Values of `kind` for an array of `dtype` (float64 or int64, cast by the caller)."""
    integral = dtype.kind in "iu"
    if dtype.kind == "b":
        return rng.integers(0, 2, shape)
    if kind is TensorSupplyType.Auto:
        kind = TensorSupplyType.Integer if integral else TensorSupplyType.Normal
    if kind is TensorSupplyType.Integer:
        return rng.integers(0 if dtype.kind == "u" else -2, 3, shape)
    if kind is TensorSupplyType.Zero:
        return np.zeros(shape)
    if kind is TensorSupplyType.One:
        return np.ones(shape)
    if integral:
        raise ValueError(f"supply_type {kind.name} makes floats, not {dtype} values; use "
                         "TensorSupplyType.Integer or Auto")
    if kind is TensorSupplyType.Uniform:
        return rng.uniform(-1.0, 1.0, shape)
    return rng.standard_normal(shape)


def supply_inputs(kernel: str, params: Sequence[Param], kind: TensorSupplyType) -> list[np.ndarray]:
    """An array of `kind` values for each of `params`, all static arrays."""
    rng = np.random.default_rng(SEED)
    arrays = []
    for param in params:
        if param.shape is None or None in param.shape:
            what = "a scalar" if param.shape is None else f"shape {param.describe_shape()}"
            raise ValueError(f"kernel '{kernel}': cannot make up a value for '{param.name}' "
                             f"({what}); give supply_prog to the autotuner")
        dtype = numpy_dtype(param.element)
        shape = tuple(int(n) for n in param.shape)  # type: ignore[union-attr]
        arrays.append(np.ascontiguousarray(_values(kind, dtype, shape, rng).astype(dtype)))
    return arrays
