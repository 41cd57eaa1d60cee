"""`T.Kernel`: the launch of a grid of blocks, as a `with` block."""

from __future__ import annotations

from types import TracebackType

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
        threads = semantic.python_int(self.threads, "T.Kernel threads")
        if threads is None or threads < 1:
            raise semantic.error(
                f"T.Kernel: threads must be a positive Python int but got {self.threads!r}"
            )
        sizes = [
            semantic.index_value(g, f"grid size {i} of T.Kernel") for i, g in enumerate(self.grid)
        ]
        self.region, indices = builder.open_kernel(sizes, threads)
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
                semantic.close_region(self.region)


@dsl_api
def get_thread_binding(dim: int = 0) -> Scalar:
    """TileLang's thread index along `dim`: 0 in a block of one thread; with more, an
    error, since tilec kernels are written for the block as a whole (tile ops are run by
    all its threads together) and per-thread code would lose the other threads' work."""
    return semantic.thread_binding(dim)


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
    return [semantic.block_binding(d) for d in range(len(kernel.block.arguments))]
