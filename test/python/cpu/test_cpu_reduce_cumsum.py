"""tile.reduce and tile.cumsum end to end on the cpu, along each dim."""

from __future__ import annotations

import numpy as np
import pytest

import tilec

RNG = np.random.default_rng(2)

_NUMPY = {
    "sum": lambda x, d: x.sum(d),
    "max": lambda x, d: x.max(d),
    "min": lambda x, d: x.min(d),
    "abssum": lambda x, d: np.abs(x).sum(d),
    "absmax": lambda x, d: np.abs(x).max(d),
}
_COMBINE = {"sum": np.add, "max": np.maximum, "min": np.minimum, "abssum": np.add}
_COMBINE["absmax"] = np.maximum


def _reduce_kernel(kind: str, dim: int, clear: bool, rows: int = 5, cols: int = 19) -> str:
    out = rows if dim == 1 else cols
    clear_text = "" if clear else " clear = false"
    return f"""
func.func @reduce(%S: memref<{rows}x{cols}xf32>, %D: memref<{out}xf32>) attributes {{tile.entry}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {{
    %s = tile.alloc : memref<{rows}x{cols}xf32, #tile.scope<fragment>>
    %d = tile.alloc : memref<{out}xf32, #tile.scope<fragment>>
    tile.copy %S[%c0, %c0], %s[%c0, %c0]
        : memref<{rows}x{cols}xf32>, memref<{rows}x{cols}xf32, #tile.scope<fragment>>
    tile.copy %D[%c0], %d[%c0] : memref<{out}xf32>, memref<{out}xf32, #tile.scope<fragment>>
    tile.reduce {kind} %s, %d dim = {dim}{clear_text}
        : memref<{rows}x{cols}xf32, #tile.scope<fragment>>, memref<{out}xf32, #tile.scope<fragment>>
    tile.copy %d[%c0], %D[%c0] : memref<{out}xf32, #tile.scope<fragment>>, memref<{out}xf32>
  }}
  return
}}
"""


@pytest.mark.parametrize("kind", list(_NUMPY))
@pytest.mark.parametrize("dim", [0, 1])
def test_reduce(kind, dim):
    clear = kind in ("sum", "max")
    kernel = tilec.compile(_reduce_kernel(kind, dim, clear))
    s = RNG.standard_normal((5, 19)).astype(np.float32)
    old = RNG.standard_normal(5 if dim == 1 else 19).astype(np.float32)
    d = old.copy()
    kernel(s, d)
    expected = _NUMPY[kind](s, dim)
    if not clear:
        expected = _COMBINE[kind](expected, old)
    np.testing.assert_allclose(d, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dim,reverse", [(0, False), (1, False), (0, True), (1, True)])
def test_cumsum_in_place(dim, reverse):
    reverse_text = " reverse = true" if reverse else ""
    kernel = tilec.compile(f"""
func.func @cumsum(%S: memref<6x21xi32>) attributes {{tile.entry}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {{
    %s = tile.alloc : memref<6x21xi32, #tile.scope<fragment>>
    tile.copy %S[%c0, %c0], %s[%c0, %c0] : memref<6x21xi32>, memref<6x21xi32, #tile.scope<fragment>>
    tile.cumsum %s, %s dim = {dim}{reverse_text}
        : memref<6x21xi32, #tile.scope<fragment>>, memref<6x21xi32, #tile.scope<fragment>>
    tile.copy %s[%c0, %c0], %S[%c0, %c0] : memref<6x21xi32, #tile.scope<fragment>>, memref<6x21xi32>
  }}
  return
}}
""")
    s = RNG.integers(-50, 50, (6, 21)).astype(np.int32)
    expected = np.flip(np.cumsum(np.flip(s, dim), dim), dim) if reverse else np.cumsum(s, dim)
    kernel(s)
    np.testing.assert_array_equal(s, expected)
