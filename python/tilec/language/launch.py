"""`T.Kernel`: the launch of a grid of blocks, as a `with` block."""

from __future__ import annotations

import math
from collections.abc import Iterator
from types import TracebackType

from mlir import ir

from . import builder, semantic
from .builder import OpenRegion, RegionKind
from .dtypes import index
from .source import at, dsl_api, site
from .values import Scalar


class Kernel:
    """`with T.Kernel(gx, gy, threads=128) as (bx, by):` runs its body once per block.

    One to three grid sizes (Python ints or integer symbolic values, e.g.
    `T.ceildiv(M, 64)`); the body sees the block indices, a single value for
    a 1-D grid and a tuple otherwise. Becomes a `tile.kernel`. Tiles
    allocated in the body belong to it and cannot be used after it.
    """

    @dsl_api
    def __init__(self, *grid: object, threads: object = 128):
        self.grid = grid
        self.threads = threads
        self.loc = site()
        self.region: OpenRegion | None = None

    @dsl_api
    def __enter__(self) -> Scalar | tuple[Scalar, ...]:
        trace = semantic.require_trace("T.Kernel")
        outer = trace.current.enclosing(RegionKind.KERNEL)
        if outer is not None:
            raise semantic.error(
                f"T.Kernel cannot be nested (the enclosing T.Kernel is at line {outer.loc.line})"
            )
        if not 1 <= len(self.grid) <= 3:
            raise semantic.error(f"T.Kernel takes 1 to 3 grid sizes but got {len(self.grid)}")
        given = self.threads if isinstance(self.threads, tuple | list) else (self.threads,)
        dims = [semantic.python_int(t, "T.Kernel threads") for t in given]
        if not 1 <= len(dims) <= 3 or any(t is None or t < 1 for t in dims):
            raise semantic.error(
                "T.Kernel: threads must be a positive Python int or a tuple of 1 to 3 of them "
                f"(x, y, z) but got {self.threads!r}"
            )
        sizes = [
            semantic.index_value(g, f"grid size {i} of T.Kernel") for i, g in enumerate(self.grid)
        ]
        self.region, indices = builder.open_kernel(sizes, math.prod(dims))
        if len(dims) > 1:
            # the block's threads are numbered x fastest; T.get_thread_binding(d) reads them
            self.region.block.owner.attributes[semantic.THREAD_DIMS] = \
                ir.DenseI64ArrayAttr.get(dims)
        blocks = tuple(Scalar(i, index, self.region) for i in indices)
        return blocks[0] if len(blocks) == 1 else blocks

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if exc_type is None and self.region is not None:
            with at(self.loc):
                semantic.close_kernel(self.region)


@dsl_api
def get_thread_binding(dim: int = 0) -> Scalar:
    """TileLang's thread index along `dim` (`threadIdx.x`; 0 along y and z).

    The kernel then has per-thread (SIMT) code, run once per thread as in CUDA:
    local tiles (`T.alloc_local`, `T.alloc_var`) are per thread, other tiles
    per block, `T.sync_threads` separates what every thread does before it
    from what follows, and a tile op that does not depend on the thread index
    is run once by the block (see `tilec.language.threads`).
    """
    return semantic.thread_binding(dim)


class thread_binding:
    """`for tx in T.thread_binding(128, thread="threadIdx.x"):` TVM's loop bound to the
    threads: its body runs once per thread of the block, with `tx` the thread index
    (see get_thread_binding). The extent must be the block's threads."""

    @dsl_api
    def __init__(self, start: object, stop: object = None, thread: str = "threadIdx.x"):
        self.extent = start if stop is None else None
        if stop is not None:
            low = semantic.python_int(start, "T.thread_binding: start")
            if low != 0:
                raise semantic.error(f"T.thread_binding: start must be 0 but got {start!r}")
            self.extent = stop
        self.thread = thread
        self.loc = site()

    def __iter__(self) -> Iterator[Scalar]:
        with at(self.loc):
            what = "T.thread_binding"
            if self.thread != "threadIdx.x":
                raise semantic.error(
                    f'{what}: only thread="threadIdx.x" is supported (tilec blocks have one '
                    f"thread dim; the block index is `with T.Kernel(...) as bx`) but got "
                    f"{self.thread!r}"
                )
            threads = semantic.thread_extent(0)
            if semantic.python_int(self.extent, f"{what}: extent") != threads:
                raise semantic.error(
                    f"{what}: the extent must be the {threads} threads of the block but got "
                    f"{self.extent!r}"
                )
            index = semantic.thread_binding(0)
        yield index


@dsl_api
def get_thread_bindings() -> list[Scalar]:
    """The thread indices along x, y, z (see get_thread_binding)."""
    return [semantic.thread_binding(d) for d in range(3)]


@dsl_api
def get_thread_extent(dim: int = 0) -> int:
    """The threads of the enclosing T.Kernel along x (1 along y and z)."""
    return semantic.thread_extent(dim)


@dsl_api
def get_block_binding(dim: int = 0) -> Scalar:
    """The index of the block along `dim`, as `with T.Kernel(...) as (bx, by)` binds it."""
    return semantic.block_binding(dim)


@dsl_api
def get_block_bindings() -> list[Scalar]:
    """The block indices along every dim of the grid."""
    trace = semantic.require_kernel("T.get_block_bindings")
    kernel = trace.current.enclosing(RegionKind.KERNEL)
    assert kernel is not None, "require_kernel found it"
    return [semantic.block_binding(d) for d in range(semantic.grid_rank(kernel))]
