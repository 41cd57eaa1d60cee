"""tile-cuda-infer-layouts: decide, from its uses, where each tile of a cuda kernel lives.

A `fragment` or `local` tile stays in registers when every use lets each
thread work on the elements it holds: `tile.fill`/`tile.clear`, a
`tile.copy` of the whole tile from offset 0, the accumulator of a
`tile.gemm`, the source of a `tile.atomic_add`, and `memref.load`/`store`
inside a `tile.parallel` over the tile's shape at exactly the loop
indices. Any other use (an operand of a gemm, a reduction, a scalar access
outside a parallel loop, a shifted index) needs elements of other threads,
so the tile goes to workgroup memory. Register tiles used by one op
together share a layout: the `mma` accumulator layout when one of them is
the accumulator of a gemm that runs on the tensor cores and all have its
shape (`wgmma` for a gemm that runs on wgmma, on sm_90a, `wgmma_plan.py`),
else `cyclic`. A register tile of more than `MAX_REGISTER_BYTES` per
thread would spill, so it goes to workgroup memory too.

The decision is the attribute `tile.cuda_placement` on each `tile.alloc`
that the conversion then follows:

    %acc = tile.alloc {tile.cuda_placement = "mma:2x2"} : memref<128x128xf32, #tile.scope<fragment>>
    %row = tile.alloc {tile.cuda_placement = "shared"} : memref<64xf32, #tile.scope<fragment>>

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
from tilec.passes.conversion.tile_semantics import copy_sizes
from tilec.passes.conversion.tile_to_cuda.wgmma_plan import (
    WARPGROUP,
    PanelSwizzle,
    WgmmaGrid,
    panel_bytes,
    wgmma_grid,
)
from tilec.passes.registry import Pass, PassFailure, option, register_pass
from tilec.targets import CudaTarget, TargetError, get_target

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


@dataclass(frozen=True)
class GemmShape:
    """A gemm's operand element types and sizes, transposes resolved."""

    m: int
    n: int
    k: int
    ab_element: str
    c_element: str
    transpose_a: bool
    transpose_b: bool
    policy: str = "square"


POLICY = "tile.policy"
POLICIES = ("square", "full_row", "full_col")


def gemm_shape(op: ir.Operation, a: tuple[int, ...], c: tuple[int, ...], ab: ir.Type,
               acc: ir.Type) -> GemmShape:
    transpose_a = "transpose_a" in op.attributes
    transpose_b = "transpose_b" in op.attributes
    k = a[0] if transpose_a else a[1]
    policy = ir.StringAttr(op.attributes[POLICY]).value if POLICY in op.attributes else "square"
    return GemmShape(c[0], c[1], k, str(ab), str(acc), transpose_a, transpose_b, policy)


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


MAX_REGISTER_BYTES = 512
_REGISTER_SCOPES = {tile.Scope.fragment, tile.Scope.local}


@dataclass
class _Candidate:
    alloc: ir.Operation
    shape: tuple[int, ...]
    owner_wise: bool = True
    gemm_layout: str | None = None


def _shape(value: ir.Value) -> tuple[int, ...]:
    return tuple(ir.MemRefType(value.type).shape)


def _at_loop_indices(use: ir.Operation, indices: list[ir.Value], shape: tuple[int, ...]) -> bool:
    parallel = irb.enclosing(use, {"tile.parallel", "tile.kernel"})
    if parallel is None or parallel.name != "tile.parallel":
        return False
    extents = tuple(ir.DenseI64ArrayAttr(parallel.attributes["extents"]))
    arguments = list(parallel.regions[0].blocks[0].arguments)
    return extents == shape and len(indices) == len(arguments) and all(
        a == b for a, b in zip(indices, arguments, strict=True)
    )


def _whole_copy(op: ir.Operation, number: int) -> bool:
    """Whether tile.copy `op` covers its operand `number` whole from offset 0."""
    src_type = ir.MemRefType(op.operands[0].type)
    dst_at = 1 + src_type.rank
    dst_type = ir.MemRefType(op.operands[dst_at].type)
    if number == 0:
        offsets = list(op.operands)[1:dst_at]
        type_ = src_type
    else:
        offsets = list(op.operands)[dst_at + 1 : dst_at + 1 + dst_type.rank]
        type_ = dst_type
    sizes = copy_sizes(op, src_type, dst_type)
    return math.prod(sizes) == math.prod(type_.shape) and all(
        irb.constant_int(o) == 0 for o in offsets
    )


def _gemm_shape_of(op: ir.Operation) -> GemmShape:
    a, c = op.operands[0], op.operands[2]
    return gemm_shape(op, _shape(a), _shape(c), ir.MemRefType(a.type).element_type,
                      ir.MemRefType(c.type).element_type)


def _tile_accessed(value: ir.Value) -> bool:
    """Whether every use of a shared tile reaches its elements through `Tile`."""
    for use in value.uses:
        op = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if op.name in _TILE_ACCESSES or (op.name == "tile.gemm" and use.operand_number <= 1):
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
        if irb.enclosing(owner.operation, {"tile.kernel"}) is None or not _tile_accessed(operand):
            return None
    bits = irb.bit_width(ir.MemRefType(a.type).element_type)
    return wgmma_grid(_gemm_shape_of(op), kernel_threads(op), _shape(a), _shape(b), bits)


def _gemm_layout(op: ir.Operation, threads: int, has_wgmma: bool) -> str | None:
    """The register layout of a gemm's accumulator, None without tensor cores."""
    grid = gemm_wgmma(op, has_wgmma)
    if grid is not None:
        return grid.text
    warps = mma_warps(_gemm_shape_of(op), threads)
    return None if warps is None else f"mma:{warps[0]}x{warps[1]}"


def _classify(candidate: _Candidate, value: ir.Value, groups: _Groups, threads: int,
              has_wgmma: bool) -> None:
    for use in value.uses:
        op = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        number = use.operand_number
        if op.name in ("tile.fill", "tile.clear") or (op.name == "tile.atomic_add" and number == 0):
            continue
        if op.name == "tile.copy" and _whole_copy(op, number):
            groups.link(op, candidate)
            continue
        if op.name == "tile.gemm" and number == 2:
            candidate.gemm_layout = candidate.gemm_layout or _gemm_layout(op, threads, has_wgmma)
            continue
        indices = list(op.operands)[1:]
        if op.name == "memref.load" and _at_loop_indices(op, indices, candidate.shape):
            groups.link(irb.enclosing(op, {"tile.parallel"}), candidate)
            continue
        if (
            op.name == "memref.store"
            and number == 1
            and _at_loop_indices(op, list(op.operands)[2:], candidate.shape)
        ):
            groups.link(irb.enclosing(op, {"tile.parallel"}), candidate)
            continue
        candidate.owner_wise = False


class _Groups:
    """Register tiles that one op touches together must share a layout."""

    def __init__(self) -> None:
        self.by_op: dict[ir.Operation, list[_Candidate]] = {}

    def link(self, op: ir.Operation, candidate: _Candidate) -> None:
        self.by_op.setdefault(op, []).append(candidate)

    def components(self, candidates: list[_Candidate]) -> list[list[_Candidate]]:
        parent = {id(c): id(c) for c in candidates}

        def root(key: int) -> int:
            while parent[key] != key:
                key = parent[key]
            return key

        for members in self.by_op.values():
            kept = [m for m in members if m.owner_wise]
            for other in kept[1:]:
                parent[root(id(other))] = root(id(kept[0]))
        found: dict[int, list[_Candidate]] = {}
        for c in candidates:
            found.setdefault(root(id(c)), []).append(c)
        return list(found.values())


def infer_layouts(func: ir.Operation, has_wgmma: bool = False) -> None:
    """Sets `tile.cuda_placement` on every on-chip tile.alloc of `func`;
    `has_wgmma`: gemms may run on wgmma (sm_90a)."""
    groups = _Groups()
    candidates: list[_Candidate] = []
    for alloc in irb.collect(func, "tile.alloc"):
        value = alloc.results[0]
        if _placement(alloc) == PRIVATE:
            continue
        scope = on_chip_scope(ir.MemRefType(value.type))
        if scope not in _REGISTER_SCOPES or irb.enclosing(alloc, {"tile.kernel"}) is None:
            alloc.attributes[PLACEMENT] = ir.StringAttr.get("shared")
            continue
        candidate = _Candidate(alloc, _shape(value))
        threads = kernel_threads(alloc)
        _classify(candidate, value, groups, threads, has_wgmma)
        element = ir.MemRefType(value.type).element_type
        per_thread = math.ceil(math.prod(candidate.shape) / threads) * irb.bit_width(element) // 8
        if per_thread > MAX_REGISTER_BYTES:
            candidate.owner_wise = False
        candidates.append(candidate)
    for group in groups.components([c for c in candidates if c.owner_wise]):
        gemm_layouts = {c.gemm_layout for c in group if c.gemm_layout is not None}
        shapes = {c.shape for c in group}
        layout = "cyclic"
        if len(gemm_layouts) == 1 and len(shapes) == 1:
            layout = gemm_layouts.pop()
        for c in group:
            c.alloc.attributes[PLACEMENT] = ir.StringAttr.get(layout)
    for c in candidates:
        if not c.owner_wise:
            c.alloc.attributes[PLACEMENT] = ir.StringAttr.get("shared")
    for alloc in irb.collect(func, "tile.alloc"):
        if _placement(alloc) != "shared":
            continue
        swizzle = _swizzle(alloc, has_wgmma)
        if swizzle == "mma":
            alloc.attributes[SWIZZLE] = ir.UnitAttr.get()
        elif swizzle is not None:
            alloc.attributes[WGMMA_SWIZZLE] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), swizzle
            )


def _placement(alloc: ir.Operation) -> str | None:
    if PLACEMENT not in alloc.attributes:
        return None
    return ir.StringAttr(alloc.attributes[PLACEMENT]).value


# Uses of a shared tile that reach its elements only through `Tile`.
_TILE_ACCESSES = {"tile.copy", "tile.fill", "tile.clear"}


def _swizzle(alloc: ir.Operation, has_wgmma: bool) -> str | int | None:
    """How a shared tile that only `Tile` accesses is stored: the panel bytes
    when it feeds a wgmma gemm, "mma" when it feeds an mma.sync one, None
    (plain row-major) otherwise."""
    value = alloc.results[0]
    type_ = ir.MemRefType(value.type)
    if irb.enclosing(alloc, {"tile.kernel"}) is None or not _tile_accessed(value):
        return None
    gemms = [use.owner.operation if hasattr(use.owner, "operation") else use.owner
             for use in value.uses]
    gemms = [op for op in gemms if op.name == "tile.gemm"]
    if any(gemm_wgmma(op, has_wgmma) is not None for op in gemms):
        return panel_bytes(tuple(type_.shape), irb.bit_width(type_.element_type))
    if Swizzle.of(tuple(type_.shape), type_.element_type) is None:
        return None
    if any(mma_warps(_gemm_shape_of(op), kernel_threads(op)) is not None for op in gemms):
        return "mma"
    return None


def _has_wgmma(arch: str) -> bool:
    """Whether cuda arch `arch` (`sm_90a`, `cuda:sm_90a`) has wgmma; ValueError names the archs."""
    try:
        target = get_target(arch if arch.startswith("cuda") else f"cuda:{arch}")
    except TargetError as exc:
        raise ValueError(str(exc)) from None
    if not isinstance(target, CudaTarget):
        raise ValueError(f"'{arch}' is not a cuda arch")
    return target.has_wgmma


def _check_arch(text: str) -> None:
    _has_wgmma(text)


@register_pass
@dataclass(frozen=True)
class CudaInferLayoutsPass(Pass):
    """Places every tile of a cuda kernel in registers (with a layout) or workgroup memory."""

    argument = "tile-cuda-infer-layouts"
    anchor = "func.func"
    summary = "Place each tile of a cuda kernel in registers (with a layout) or shared memory"

    arch: str = option("sm_80", "the cuda arch (sm_80, sm_86, sm_89, sm_90a): wgmma on sm_90a",
                       _check_arch)

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            check_policies(op)
            infer_layouts(op, _has_wgmma(self.arch))

