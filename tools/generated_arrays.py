"""Argument arrays the command-line tools make from `random|zeros|ones|arange[:SHAPExTYPE]`."""

from __future__ import annotations

import re

import numpy as np

from tilec.sim.dtypes import ElementType

GENERATED = re.compile(r"^(random|zeros|ones|arange)(?::(.+))?$")
"""`KIND[:SPEC]`: the spec, SHAPExTYPE, is parsed by each tool (its defaults differ)."""


def generated_array(kind: str, shape: tuple[int, ...], element: ElementType,
                    rng: np.random.Generator) -> np.ndarray:
    """An array of `kind`: normal floats, or small integers for integer types (random),
    zeros, ones, or 0, 1, 2, ... (arange, wrapping or saturating past the type's range)."""
    if kind == "zeros":
        values = np.zeros(shape)
    elif kind == "ones":
        values = np.ones(shape)
    elif kind == "arange":
        values = np.arange(int(np.prod(shape))).reshape(shape)
    elif element.is_float:
        values = rng.standard_normal(shape)
    elif element.kind == "bool":
        values = rng.integers(0, 2, shape)
    else:
        values = rng.integers(-8, 8, shape) if element.kind == "int" else rng.integers(0, 16, shape)
    with np.errstate(over="ignore"):  # arange past a narrow type's range wraps or is inf
        return element.store(values)
