"""Where a cuda kernel's tiles live and how the lowerings reach their elements.

Every cuda lowering then sees a tile through `tile_of`: workgroup memory
(a view of the block's dynamic shared memory) that any thread may index,
with a `gpu.barrier` around every tile op touching it, or registers: each
thread holds the elements its `Layout` gives it in a private
`memref<slots x T>` that LLVM's SROA turns into registers (every access
uses a constant slot), and ops on it run where the data is, with no
barrier. A `Layout` maps (thread, slot) to the coordinates of the element
held: `cyclic` deals the elements out in row-major order (element e on
thread e % threads, slot e // threads), `mma` is the accumulator layout of
`mma.sync.m16n8k16` over a grid of warps, so a gemm's result never leaves
the registers the tensor cores wrote. `wgmma` is the accumulator layout of
`wgmma.mma_async.m64nN` over a grid of warpgroups: warp w of a warpgroup
holds rows 16w .. 16w + 15 of each m64 tile in the mma.sync pattern, n8
tile after n8 tile.

A shared tile that only tile.copy, tile.fill/clear and tensor-core gemms
(as operand A or B) touch is also marked `tile.cuda_swizzle`: its 16-byte
chunks are stored XOR-swizzled (`Swizzle`), so the 8 rows that one
`ldmatrix` phase (and the 8 chunks one quarter-warp of cp.async) address
fall in 8 distinct groups of 4 banks: no bank conflicts. Every access to
such a tile goes through `Tile` (load, store, `physical`), so the writers
and readers agree on the layout. On sm_90a an operand of a gemm that runs on
wgmma is instead marked `tile.cuda_wgmma_swizzle` (its panel width in
bytes): stored in the swizzled panels wgmma's descriptors read
(`PanelSwizzle`).

A gemm runs on the tensor cores (`mma_warps`) with f16 or bf16 operands and
an f32 accumulator (m16n8k16), or i8 operands and an i32 accumulator
(m16n8k32, any transposes), M a multiple of 16 per warp row, N of 8 per
warp column, K of the instruction's, and operand rows that `ldmatrix` can
fetch 16 bytes at a time. f32 operands keep the FMA path: tf32 would round
them to 10 mantissa bits, which the cpu target does not. The
warps of a block form a grid over C, chosen among the factorizations of the
warp count that divide C evenly by the gemm's `tile.policy`
(`T.GemmWarpPolicy`): `square` (the default) takes the squarest warp tiles
(fewest operand fetches per mma), a tie going to more warps along M;
`full_row` the most warps along M (all of them when M allows: each warp
owns whole rows of C), `full_col` the most along N.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, gpu, memref, scf

from tilec.dialects import tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_cuda.analysis.gemm_shape import (
    POLICIES,
    POLICY,
    GemmShape,
    gemm_shape,
)
from tilec.passes.conversion.tile_to_cuda.analysis.wgmma_plan import (
    WARPGROUP,
    PanelSwizzle,
    WgmmaGrid,
    wgmma_grid,
)
from tilec.passes.registry import PassFailure

# On tile.alloc, set by tile-cuda-infer-layouts: "shared", "cyclic" or
# "mma:<warps along M>x<warps along N>"; or "private" (`PRIVATE`), set before
# it by tile-cuda-distribute-thread-loops and kept: one thread's own tile.
PLACEMENT = "tile.cuda_placement"
PRIVATE = "private"
# On the private buffer of a register tile: the same text, with the
# logical shape and the block's thread count beside it.
LAYOUT = "tile.cuda_layout"
LOGICAL_SHAPE = "tile.cuda_shape"
THREADS = "tile.cuda_threads"
# Unit attribute on a shared tile.alloc and on the memref.view it becomes:
# the tile is stored with `Swizzle`.
SWIZZLE = "tile.cuda_swizzle"
# Integer attribute (panel bytes) in the same places: stored with `PanelSwizzle`.
WGMMA_SWIZZLE = "tile.cuda_wgmma_swizzle"
SWIZZLE_BYTES = 16
BANK_GROUPS = 8  # 128 bytes of banks = 8 groups of 4 banks (16 bytes)

WARP = 32


def workgroup_space() -> ir.Attribute:
    return ir.Attribute.parse("#gpu.address_space<workgroup>")


def is_workgroup(type_: ir.Type) -> bool:
    return (
        isinstance(type_, ir.MemRefType)
        and ir.MemRefType(type_).memory_space is not None
        and str(ir.MemRefType(type_).memory_space) == "#gpu.address_space<workgroup>"
    )


# Ops whose result is a view of their first operand.
VIEWS = frozenset({"memref.subview", "memref.collapse_shape", "memref.expand_shape",
                   "memref.cast", "memref.reinterpret_cast", "memref.transpose"})


def retype_views(value: ir.Value, space: ir.Attribute | None) -> None:
    """Views of a tile now in memory space `space` are in that space too."""
    for use in list(value.uses):
        user = irb.use_owner(use)
        if user.name not in VIEWS or use.operand_number != 0:
            continue
        result = user.results[0]
        old = ir.MemRefType(result.type)
        result.set_type(ir.MemRefType.get(old.shape, old.element_type, layout=old.layout,
                                          memory_space=space))
        retype_views(result, space)


def thread_id() -> ir.Value:
    return gpu.thread_id(gpu.Dimension.x)


def kernel_threads(op: ir.Operation) -> int:
    """The thread count of the tile.kernel around `op`."""
    kernel = op if op.name == "tile.kernel" else irb.enclosing(op, {"tile.kernel"})
    if kernel is None:
        raise ValueError("not inside a tile.kernel")
    return ir.IntegerAttr(kernel.attributes["threads"]).value


@dataclass(frozen=True)
class Layout:
    """Which element of a `shape` tile slot `s` of each thread holds."""

    kind: str  # "cyclic", "mma" or "wgmma"
    shape: tuple[int, ...]
    threads: int
    warps_m: int = 1
    warps_n: int = 1

    @property
    def slots(self) -> int:
        return math.ceil(math.prod(self.shape) / self.threads)

    @property
    def text(self) -> str:
        return "cyclic" if self.kind == "cyclic" else f"{self.kind}:{self.warps_m}x{self.warps_n}"

    @staticmethod
    def parse(text: str, shape: tuple[int, ...], threads: int) -> Layout:
        if text == "cyclic":
            return Layout("cyclic", shape, threads)
        kind, grid = text.split(":")
        wm, wn = (int(v) for v in grid.split("x"))
        return Layout(kind, shape, threads, wm, wn)

    def wgmma_tiles(self) -> tuple[int, int]:
        """m64 tiles and n8 tiles per warpgroup."""
        m, n = self.shape
        return m // self.warps_m // 64, n // self.warps_n // 8

    def wgmma_slot(self, mi: int, n8: int, c: int) -> int:
        """The slot of register `c` (0..3) of n8 tile `n8` of m64 tile `mi`."""
        return (mi * self.wgmma_tiles()[1] + n8) * 4 + c

    def mma_tiles(self) -> tuple[int, int]:
        """m16 tiles and n8 tiles per warp."""
        m, n = self.shape
        return m // self.warps_m // 16, n // self.warps_n // 8

    def mma_slot(self, mi: int, ni: int, c: int) -> int:
        """The slot of accumulator register `c` (0..3) of mma tile (mi, ni)."""
        _, tiles_n = self.mma_tiles()
        return (mi * tiles_n + ni) * 4 + c

    def coords(self, tid: ir.Value, slot: int) -> list[ir.Value]:
        """The coordinates of the element thread `tid` holds in slot `slot`."""
        return self.thread_coords(tid, [slot])(slot)

    def thread_coords(self, tid: ir.Value,
                      slots: Iterable[int] | None = None) -> Callable[[int], list[ir.Value]]:
        """The coordinates of thread `tid`'s `slots` (default: all), by slot.
        An mma or wgmma slot is the thread's own row and column (built here,
        once) plus a constant, so a lowering that visits every slot builds two
        adds per slot instead of the whole thread-dependent expression each time."""
        if self.kind == "cyclic":
            return lambda slot: delinearize(arith.addi(irb.index(slot * self.threads), tid),
                                            self.shape)
        row, col = self._wgmma_thread(tid) if self.kind == "wgmma" else self._mma_thread(tid)
        tile_rows = 64 if self.kind == "wgmma" else 16
        tiles_n = (self.wgmma_tiles() if self.kind == "wgmma" else self.mma_tiles())[1]

        def offsets(slot: int) -> tuple[int, int]:
            mi, ni, c = slot // (tiles_n * 4), (slot // 4) % tiles_n, slot % 4
            return mi * tile_rows + 8 * (c // 2), ni * 8 + c % 2

        # Built with the thread's row and column, before any slot's use.
        constants = {o: irb.index(o) for slot in (range(self.slots) if slots is None else slots)
                     for o in offsets(slot) if o}

        def at(slot: int) -> list[ir.Value]:
            return [arith.addi(base, constants[o]) if o else base
                    for base, o in zip((row, col), offsets(slot), strict=True)]

        return at

    def _mma_thread(self, tid: ir.Value) -> tuple[ir.Value, ir.Value]:
        """Row and column of slot 0 of thread `tid` in the mma layout: its
        warp's corner plus its lane's place in an m16n8 accumulator."""
        m, n = self.shape
        warp = arith.divui(tid, irb.index(WARP))
        lane = arith.remui(tid, irb.index(WARP))
        warp_m = arith.divui(warp, irb.index(self.warps_n))
        warp_n = arith.remui(warp, irb.index(self.warps_n))
        row = arith.addi(arith.muli(warp_m, irb.index(m // self.warps_m)),
                         arith.divui(lane, irb.index(4)))
        col = arith.addi(arith.muli(warp_n, irb.index(n // self.warps_n)),
                         arith.muli(arith.remui(lane, irb.index(4)), irb.index(2)))
        return row, col

    def _wgmma_thread(self, tid: ir.Value) -> tuple[ir.Value, ir.Value]:
        """Row and column of slot 0 of thread `tid` in the wgmma layout: its
        warpgroup's corner, its warp's 16 rows, its lane's place in them."""
        m, n = self.shape
        group = arith.divui(tid, irb.index(WARPGROUP))
        warp = arith.remui(arith.divui(tid, irb.index(WARP)), irb.index(WARPGROUP // WARP))
        lane = arith.remui(tid, irb.index(WARP))
        row = arith.addi(
            arith.muli(arith.divui(group, irb.index(self.warps_n)), irb.index(m // self.warps_m)),
            arith.addi(arith.muli(warp, irb.index(16)), arith.divui(lane, irb.index(4))),
        )
        col = arith.addi(
            arith.muli(arith.remui(group, irb.index(self.warps_n)), irb.index(n // self.warps_n)),
            arith.muli(arith.remui(lane, irb.index(4)), irb.index(2)),
        )
        return row, col

    def valid(self, tid: ir.Value, slot: int) -> ir.Value | None:
        """Whether slot `slot` holds an element (None: on every thread)."""
        total = math.prod(self.shape)
        if (slot + 1) * self.threads <= total:
            return None
        element = arith.addi(irb.index(slot * self.threads), tid)
        return arith.cmpi(arith.CmpIPredicate.ult, element, irb.index(total))


def delinearize(element: ir.Value, shape: tuple[int, ...] | list[int]) -> list[ir.Value]:
    """Row-major coordinates of linear index `element` in `shape`."""
    coords: list[ir.Value] = []
    rest = element
    for extent in reversed(shape[1:]):
        coords.append(arith.remui(rest, irb.index(extent)))
        rest = arith.divui(rest, irb.index(extent))
    coords.append(rest)
    return coords[::-1]


@dataclass(frozen=True)
class Swizzle:
    """Chunk c (16 bytes) of row r is stored at chunk c ^ ((r // period) % mask).

    With `chunks` 16-byte chunks per row, rows r .. r + 7 (r a multiple of 8)
    at one logical chunk land on 8 distinct bank groups, and 8 consecutive
    chunks of the row-major order stay on 8 distinct groups too."""

    lanes: int  # elements per 16-byte chunk
    period: int
    mask: int

    @staticmethod
    def of(shape: tuple[int, ...], element: ir.Type) -> Swizzle | None:
        """The swizzle of a 2-D tile, None when its rows cannot be swizzled."""
        bits = irb.bit_width(element)
        if len(shape) != 2 or bits % 8 or (shape[1] * bits // 8) % SWIZZLE_BYTES:
            return None
        chunks = shape[1] * bits // 8 // SWIZZLE_BYTES
        if chunks not in (2, 4) and chunks % BANK_GROUPS:
            return None
        groups = min(chunks, BANK_GROUPS)
        return Swizzle(SWIZZLE_BYTES * 8 // bits, BANK_GROUPS // groups, groups)

    def chunk_of(self, row: int, chunk: int) -> int:
        return chunk ^ ((row // self.period) % self.mask)

    def apply(self, coords: list[ir.Value]) -> list[ir.Value]:
        row, col = coords
        term = arith.remui(arith.divui(row, irb.index(self.period)), irb.index(self.mask))
        return [row, arith.xori(col, arith.muli(term, irb.index(self.lanes)))]


@dataclass(frozen=True)
class Tile:
    """An operand of a tile op as the cuda lowerings see it: memory any
    thread can index (global or workgroup), or registers with a layout."""

    value: ir.Value
    shape: tuple[int, ...]
    element: ir.Type
    layout: Layout | None
    swizzle: Swizzle | PanelSwizzle | None = None

    @property
    def in_registers(self) -> bool:
        return self.layout is not None

    def physical(self, coords: list[ir.Value]) -> list[ir.Value]:
        """Where logical `coords` of a memory tile are stored."""
        return coords if self.swizzle is None else self.swizzle.apply(coords)

    def load(self, coords: list[ir.Value], slot: int | None) -> ir.Value:
        if self.layout is not None:
            assert slot is not None
            return memref.load(self.value, [irb.index(slot)])
        return memref.load(self.value, self.physical(coords))

    def store(self, value: ir.Value, coords: list[ir.Value], slot: int | None) -> None:
        if self.layout is not None:
            assert slot is not None
            memref.store(value, self.value, [irb.index(slot)])
        else:
            memref.store(value, self.value, self.physical(coords))


def tile_of(value: ir.Value) -> Tile:
    """`value` (a memref after the alloc lowering) as a `Tile`."""
    type_ = ir.MemRefType(value.type)
    owner = value.owner
    if isinstance(owner, ir.Operation | ir.OpView) and LAYOUT in owner.attributes:
        shape = tuple(ir.DenseI64ArrayAttr(owner.attributes[LOGICAL_SHAPE]))
        threads = ir.IntegerAttr(owner.attributes[THREADS]).value
        text = ir.StringAttr(owner.attributes[LAYOUT]).value
        return Tile(value, shape, type_.element_type, Layout.parse(text, shape, threads))
    swizzle: Swizzle | PanelSwizzle | None = None
    if isinstance(owner, ir.Operation | ir.OpView) and WGMMA_SWIZZLE in owner.attributes:
        rows, cols = type_.shape
        swizzle = PanelSwizzle(ir.IntegerAttr(owner.attributes[WGMMA_SWIZZLE]).value, rows, cols,
                               irb.bit_width(type_.element_type) // 8)
    elif isinstance(owner, ir.Operation | ir.OpView) and SWIZZLE in owner.attributes:
        swizzle = Swizzle.of(tuple(type_.shape), type_.element_type)
    return Tile(value, tuple(type_.shape), type_.element_type, None, swizzle)


def copy_swizzle(source: ir.Operation, view: ir.Operation) -> None:
    """Marks `view` (a memref.view of a shared tile) stored as `source` is."""
    for name in (SWIZZLE, WGMMA_SWIZZLE):
        if name in source.attributes:
            view.attributes[name] = source.attributes[name]


@contextmanager
def guarded(condition: ir.Value | None) -> Iterator[None]:
    """Builds the body under `scf.if condition` (unconditionally for None)."""
    if condition is None:
        yield
        return
    branch = scf.IfOp(condition)
    with ir.InsertionPoint(branch.then_block):
        yield
        scf.YieldOp([])


def for_each_element(
    shape: tuple[int, ...] | list[int],
    threads: int,
    owner: Layout | None,
    body: Callable[[list[ir.Value], int | None], None],
) -> None:
    """Calls `body(coords, slot)` for the elements of `shape` this thread
    handles: the slots of `owner` (unrolled, so slots stay constants), or,
    without an owner, every `threads`-th element from the thread id."""
    tid = thread_id()
    if owner is not None:
        coords = owner.thread_coords(tid)
        for slot in range(owner.slots):
            with guarded(owner.valid(tid, slot)):
                body(coords(slot), slot)
        return
    with irb.loop(tid, irb.index(math.prod(shape)), irb.index(threads)) as element:
        body(delinearize(element, shape), None)


def register_owner(*tiles: Tile) -> Layout | None:
    """The layout of the register tiles among `tiles` (placement gave them
    all the same one), or None when all are in memory."""
    layouts = {t.layout for t in tiles if t.layout is not None}
    assert len(layouts) <= 1, layouts
    return next(iter(layouts), None)


def on_chip_scope(type_: ir.MemRefType) -> tile.Scope | None:
    """The tile scope of an on-chip tile type, None for global memory."""
    if type_.memory_space is None or not tile.is_scope_attr(type_.memory_space):
        return None
    scope = tile.scope_of(type_)
    return None if scope is tile.Scope.global_ else scope



def check_policies(func: ir.Operation) -> None:
    """Reports every tile.gemm whose `tile.policy` is not a warp policy."""
    failed = False
    for op in irb.collect(func, "tile.gemm"):
        if POLICY not in op.attributes:
            continue
        attr = op.attributes[POLICY]
        if not isinstance(attr, ir.StringAttr) or ir.StringAttr(attr).value not in POLICIES:
            op.location.emit_error(
                f"'tile.gemm' has {POLICY} = {attr}; the warp policies are "
                + ", ".join(f'"{p}"' for p in POLICIES)
            )
            failed = True
    if failed:
        raise PassFailure("unknown gemm warp policy")


# mma.sync per operand element type: (accumulator, K of one instruction).
MMA_KINDS = {"f16": ("f32", 16), "bf16": ("f32", 16), "i8": ("i32", 32)}


def mma_k(shape: GemmShape) -> int | None:
    """K of the mma.sync instruction this gemm can use, None when it has none."""
    kind = MMA_KINDS.get(shape.ab_element)
    if kind is None or kind[0] != shape.c_element:
        return None
    return kind[1]


def mma_warps(shape: GemmShape, threads: int) -> tuple[int, int] | None:
    """The (warps along M, warps along N) grid of an mma.sync gemm, or None
    when the gemm cannot use mma.sync (then it is an FMA loop)."""
    step = mma_k(shape)
    if step is None or threads % WARP or shape.k % step:
        return None
    # ldmatrix fetches 16 contiguous bytes per row of each operand: K / 2
    # elements (both instructions take 32 bytes of K per row).
    chunk = step // 2
    a_row = shape.m if shape.transpose_a else shape.k
    b_row = shape.k if shape.transpose_b else shape.n
    if a_row % chunk or b_row % chunk:
        return None
    warps = threads // WARP
    grids = [
        (warps_m, warps // warps_m)
        for warps_m in range(warps, 0, -1)
        if warps % warps_m == 0
        and shape.m % (16 * warps_m) == 0
        and shape.n % (8 * (warps // warps_m)) == 0
    ]
    if not grids:
        return None
    if shape.policy == "full_row":
        return grids[0]
    if shape.policy == "full_col":
        return grids[-1]
    return min(grids, key=lambda g: abs(shape.m // g[0] - shape.n // g[1]))


def shape_of(value: ir.Value) -> tuple[int, ...]:
    return tuple(ir.MemRefType(value.type).shape)


def gemm_shape_of(op: ir.Operation) -> GemmShape:
    a, c = op.operands[0], op.operands[2]
    return gemm_shape(op, shape_of(a), shape_of(c), ir.MemRefType(a.type).element_type,
                      ir.MemRefType(c.type).element_type)


def tile_accessed(value: ir.Value) -> bool:
    """Whether every use of a shared tile reaches its elements through `Tile`."""
    for use in value.uses:
        op = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if op.name in TILE_ACCESSES or (op.name == "tile.gemm" and use.operand_number <= 1):
            continue
        return False
    return True


def gemm_wgmma(op: ir.Operation, has_wgmma: bool) -> WgmmaGrid | None:
    """The warpgroup grid of a tile.gemm (before the alloc lowering) that runs
    on wgmma, None when it does not: not sm_90a, operands that are not
    kernel tiles accessed only through `Tile`, or shapes `wgmma_grid` rejects."""
    if not has_wgmma:
        return None
    a, b = op.operands[0], op.operands[1]
    for operand in (a, b):
        owner = operand.owner
        if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "tile.alloc":
            return None
        if irb.enclosing(owner.operation, {"tile.kernel"}) is None or not tile_accessed(operand):
            return None
    bits = irb.bit_width(ir.MemRefType(a.type).element_type)
    return wgmma_grid(gemm_shape_of(op), kernel_threads(op), shape_of(a), shape_of(b), bits)


TILE_ACCESSES = {"tile.copy", "tile.fill", "tile.clear"}
