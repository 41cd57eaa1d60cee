"""`T.use_swizzle`, in TileLang's form and in tilelang-ascend's.

TileLang's `T.use_swizzle(panel_size, order="row", enable=True)` is a hint:
it asks the target to launch blocks in panels for L2 reuse and is recorded on
the tile.kernel. tilelang-ascend's `T.use_swizzle(cid, M, N, K, block_M, block_N,
off=1, dir=0, in_loop=False)` is a value: the index of the (block_M, block_N)
tile of the M x N output that task `cid` computes, so the kernel writes
`bid = T.use_swizzle(cid, ...)` and derives its tile from `bid`. It is
computed here with the kernel's own arithmetic, on every target.
"""

from __future__ import annotations

from . import semantic
from .source import dsl_api

_ASCEND_NAMES = frozenset({"cid", "m", "n", "k", "block_m", "block_n", "off", "dir", "in_loop"})


@dsl_api
def use_swizzle(*args: object, **kwargs: object) -> object:
    """`T.use_swizzle(panel_size, order="row", enable=True)`: TileLang's hint
    (None); `T.use_swizzle(cid, M, N, K, block_M, block_N, off=1, dir=0)`:
    tilelang-ascend's swizzled tile index (see `swizzled_tile`)."""
    if len(args) > 3 or _ASCEND_NAMES & set(kwargs):
        return swizzled_tile(*args, **kwargs)
    return panel_hint(*args, **kwargs)


def panel_hint(panel_size: int, order: str = "row", enable: bool = True) -> None:
    """Asks the target to launch blocks in panels of `panel_size` for L2 reuse
    (`order`: "row", "column" or "mlx"); recorded as `tile.swizzle` on the tile.kernel."""
    semantic.use_swizzle(panel_size, order, enable)


def _size(value: object, name: str, least: int = 1) -> int:
    size = semantic.python_int(value, f"T.use_swizzle: {name}")
    if size is None or size < least:
        raise semantic.error(f"T.use_swizzle: {name} must be a Python int of at least {least} "
                             f"but got {value!r}")
    return size


def swizzled_tile(cid: object, m: object, n: object, k: object, block_m: object,
                  block_n: object, off: object = 1, dir: object = 0,
                  in_loop: object = False) -> object:
    """The tile (`row * tiles_per_row + col`) that task `cid` computes in the swizzle
    of CATLASS's GemmIdentityBlockSwizzle<off, dir> (catlass/gemm/block/block_swizzle.hpp,
    which tilelang-ascend's `thread_block_swizzle` calls): tasks walk bands of `off`
    tile rows (dir=0) or columns (dir=1), down each band's columns (rows) in
    alternating directions, and `cid` wraps around the tile count. `k` and `in_loop`
    are accepted as upstream takes them; neither changes the tile."""
    del k, in_loop
    block_m, block_n = _size(block_m, "block_M"), _size(block_n, "block_N")
    rows = -(-_size(m, "M") // block_m)
    cols = -(-_size(n, "N") // block_n)
    band = _size(off, "off")
    direction = semantic.python_int(dir, "T.use_swizzle: dir")
    if direction not in (0, 1):
        raise semantic.error(f"T.use_swizzle: dir must be 0 (bands of rows) or 1 (bands of "
                             f"columns) but got {dir!r}")
    # Bands run across `across` tiles; the band index walks `along` tiles.
    along, across = (rows, cols) if direction == 0 else (cols, rows)
    bands = -(-along // band)
    task = cid % (rows * cols)
    which, inside = task // (band * across), task % (band * across)
    width = semantic.select(which == bands - 1, along - band * (bands - 1), band)
    first = which * band + inside % width
    second = inside // width
    second = semantic.select(which % 2 == 1, across - second - 1, second)
    row, col = (first, second) if direction == 0 else (second, first)
    return row * cols + col
