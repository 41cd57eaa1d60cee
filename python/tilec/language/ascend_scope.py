"""tilelang-ascend's expert-mode memory and core scopes (its Programming Guide §4.2).

- `T.alloc_L1/alloc_L0A/alloc_L0B/alloc_L0C/alloc_ub(shape, dtype)`: a tile in that
  buffer of the AI core (`#tile.scope<l1>` ...), which placement and planning keep
  there; other targets treat it as any on-chip tile.
- `T.annotate_address({tile: byte_offset, ...})`: where planning puts each tile in
  its buffer (`ascend.offset` on its alloc); tiles whose lifetimes do not meet may
  share bytes, and tile-ascend-check-addresses reports two that do.
- `with T.Scope("C"):` / `with T.Scope("V"):` the cube core's / the vector cores'
  program. An expert kernel is two programs that run at once and hand data
  through GM with cross-core flags, not one sequential program: each scope becomes
  an `scf.execute_region` marked `ascend.core_region = #ascend.core<aic|aiv>` in
  the `tile.kernel`, and `tile-ascend-split-scopes` gives each kind of core its
  own copy of the kernel with its scopes only (the code outside any scope runs
  on both). Both AIVs run the "V" scopes, each with its own sub-block index.
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import scf

from tilec.dialects import ascend
from tilec.targets.ascend import attributes as ascend_attr

from . import builder, semantic
from .builder import OpenRegion, RegionKind
from .dtypes import DType
from .source import dsl_api, site
from .statements import Statement
from .values import Buffer

CORES = {"C": "aic", "V": "aiv"}
"""Upstream's scope names and the core kind each runs on."""


def _alloc_in(scope: str, name: str, buffer: str) -> Callable[[object, str | DType], Buffer]:
    """The DSL's `T.<name>(shape, dtype)`: a tile in `buffer` (`#tile.scope<scope>`)."""

    @dsl_api
    def alloc(shape: object, dtype: str | DType) -> Buffer:
        return semantic.alloc(shape, dtype, scope, f"T.{name}")

    alloc.__name__ = alloc.__qualname__ = name
    alloc.__doc__ = f"A tile in {buffer} (`#tile.scope<{scope}>`)."
    return alloc


alloc_L1 = _alloc_in("l1", "alloc_L1", "the cube core's L1 buffer")
alloc_L0A = _alloc_in("l0a", "alloc_L0A", "L0A, the cube's left operand buffer")
alloc_L0B = _alloc_in("l0b", "alloc_L0B", "L0B, the cube's right operand buffer")
alloc_L0C = _alloc_in("l0c", "alloc_L0C", "L0C, the cube's accumulator")
alloc_ub = _alloc_in("ub", "alloc_ub", "the unified buffer of a vector core")


@dsl_api
def annotate_address(address_map: dict) -> None:
    """Places each tile of `address_map` at its byte offset in its buffer."""
    what = "T.annotate_address"
    semantic.require_tile_context(what)
    if not isinstance(address_map, dict):
        raise semantic.error(f"{what} takes a dict {{tile: byte offset}} but got "
                             f"{type(address_map).__name__}")
    i64 = ir.IntegerType.get_signless(64, builder.active().context)
    for tile_, offset in address_map.items():
        if not isinstance(tile_, Buffer) or tile_.scope not in semantic.ASCEND_SCOPES:
            raise semantic.error(f"{what}: {tile_!r} is not a tile of T.alloc_L1, alloc_L0A, "
                                 f"alloc_L0B, alloc_L0C or alloc_ub")
        number = semantic.python_int(offset, f"{what}: the offset of {tile_.name}")
        if number is None or number < 0:
            raise semantic.error(f"{what}: the offset of {tile_.name} must be a non-negative "
                                 f"Python int but got {offset!r}")
        semantic.check_visible(tile_.home, tile_.name)
        tile_.value.owner.attributes[ascend_attr.OFFSET] = ir.IntegerAttr.get(i64, number)


class Scope(Statement):
    """`with T.Scope("C"):` code for the cube core, `with T.Scope("V"):` for the
    vector cores, directly in the body of a `T.Kernel`."""

    @dsl_api
    def __init__(self, name: str):
        if name not in CORES:
            raise semantic.error(f'T.Scope: expected "C" (the cube core) or "V" (the vector '
                                 f"cores) but got {name!r}")
        self.core = CORES[name]
        self.name = name
        self.loc = site()
        self.region: OpenRegion | None = None

    @dsl_api
    def __enter__(self) -> None:
        what = f'T.Scope("{self.name}")'
        trace = semantic.require_tile_context(what)
        if trace.current.kind is not RegionKind.KERNEL:
            kernel = trace.current.enclosing(RegionKind.KERNEL)
            raise semantic.error(
                f"{what} must be directly in the body of T.Kernel (line {kernel.loc.line}), "
                f"not inside {trace.current.kind.value} (line {trace.current.loc.line})")
        with trace.emitting():
            region = scf.ExecuteRegionOp([])
            region.attributes[ascend_attr.CORE_REGION] = ascend.core_attr(self.core)
            block = region.regions[0].blocks.append()
        self.region = trace.open(RegionKind.SCOPE, block, site())
