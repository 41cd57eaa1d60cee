"""Fractal layouts of the cube path, as reshapes and transposes of numpy arrays.

A fractal is 16 rows x C0 elements (C0 = 32 bytes / element size). Buffers
on the cube path are 4-D memrefs whose shape is the blocked shape, so their
bytes are the on-chip order (see the dialect spec):

- Nz (L1 tiles, and L0C with C0 = 16): logical (R, C) -> (C1, R1, 16, C0),
  element (r, c) at [c // C0, r // 16, r % 16, c % C0];
- Zz (L0A; L1 tiles of 32-bit operands the 910b transposes): logical (M, K)
  -> (M1, K1, 16, C0), (m, k) at [m // 16, k // C0, m % 16, k % C0];
- Zn (L0B): logical (K, N) -> (K1, N1, 16, C0), (k, n) at [k // C0, n // 16, n % 16, k % C0].

`to_nd` functions return the padded logical matrix (a copy); `from_nd`
functions take a matrix whose extents are whole fractals.
"""

from __future__ import annotations

import numpy as np

FRACTAL_ROWS = 16
FRACTAL_BYTES = 32


def c0(itemsize: int) -> int:
    """Elements per fractal row for an element of `itemsize` bytes."""
    return FRACTAL_BYTES // itemsize


def ceil_to(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


def nz_shape(rows: int, cols: int, cols_per_block: int) -> tuple[int, int, int, int]:
    return (-(-cols // cols_per_block), -(-rows // FRACTAL_ROWS), FRACTAL_ROWS, cols_per_block)


def zz_shape(rows: int, cols: int, cols_per_block: int) -> tuple[int, int, int, int]:
    return (-(-rows // FRACTAL_ROWS), -(-cols // cols_per_block), FRACTAL_ROWS, cols_per_block)


def nz_to_nd(nz: np.ndarray) -> np.ndarray:
    c1, r1, r0, cb = nz.shape
    return nz.transpose(1, 2, 0, 3).reshape(r1 * r0, c1 * cb)


def nd_to_nz(nd: np.ndarray, cols_per_block: int) -> np.ndarray:
    rows, cols = nd.shape
    return nd.reshape(rows // FRACTAL_ROWS, FRACTAL_ROWS, cols // cols_per_block,
                      cols_per_block).transpose(2, 0, 1, 3)


def zz_to_nd(zz: np.ndarray) -> np.ndarray:
    m1, k1, m0, kb = zz.shape
    return zz.transpose(0, 2, 1, 3).reshape(m1 * m0, k1 * kb)


def nd_to_zz(nd: np.ndarray, cols_per_block: int) -> np.ndarray:
    rows, cols = nd.shape
    return nd.reshape(rows // FRACTAL_ROWS, FRACTAL_ROWS, cols // cols_per_block,
                      cols_per_block).transpose(0, 2, 1, 3)


def zn_to_nd(zn: np.ndarray) -> np.ndarray:
    k1, n1, n0, kb = zn.shape
    return zn.transpose(0, 3, 1, 2).reshape(k1 * kb, n1 * n0)


def nd_to_zn(nd: np.ndarray, rows_per_block: int) -> np.ndarray:
    rows, cols = nd.shape
    return nd.reshape(rows // rows_per_block, rows_per_block, cols // FRACTAL_ROWS,
                      FRACTAL_ROWS).transpose(0, 2, 3, 1)


def fit(matrix: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """`matrix` cut or zero-padded to (rows, cols)."""
    if matrix.shape == (rows, cols):
        return matrix
    out = np.zeros((rows, cols), dtype=matrix.dtype)
    r, c = min(rows, matrix.shape[0]), min(cols, matrix.shape[1])
    out[:r, :c] = matrix[:r, :c]
    return out
