"""The cuda lowering of tile.atomic_add: `red.global.add` per element (or pair) of a
global destination, an atomic add (`atom.shared`) per element of a shared one.

tile.atomic_add has no result, so each element is added with PTX `red`
(a reduction: no value comes back, the thread does not wait for the old
value as `atom` makes it) through inline PTX on the element's global
address: MLIR's atomic ops all lower to `atomicrmw`, which NVPTX always
selects as `atom`. Types: f32, f64, i32, i64 and f16 on every arch, bf16 on
sm_90a; any other type (bf16 before sm_90, 8/16-bit integers) keeps
`memref.atomic_rmw` (a compare-and-swap loop).

A tile source is added by the threads that hold (registers) or are dealt
(memory) its elements; elements past the end of the destination are
dropped. Where one thread adds two adjacent 16-bit floats of a row (the
`mma` layout's register pairs; a memory tile dealt in pairs), it issues one
`red.global.add.noftz.f16x2` (`.bf16x2` on sm_90a) when both are inside
the destination and the pair's address is 4-byte aligned, else two scalar
adds. A scalar source is added once per block, by thread 0, as the cpu
adds it once per block; inside a `tile.parallel` body, once per element by
the thread that runs the element; in per-thread code, by each thread.

Before:

    tile.atomic_add %t, %out[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xf32>

After (schematically, per slot):

    scf.if %inside {
      %v = memref.load %regs[%c3] : memref<32xf32>
      %p = llvm.addrspacecast %generic : !llvm.ptr to !llvm.ptr<1>
      llvm.inline_asm has_side_effects "red.global.add.f32 [$0], $1;", "l,f,~{memory}" %p, %v
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, llvm, memref, scf, vector

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_cuda.analysis.layouts import (
    Tile,
    for_each_element,
    guarded,
    is_workgroup,
    kernel_threads,
    thread_id,
    tile_of,
)
from tilec.passes.conversion.tile_to_cuda.distribute_thread_loops import per_thread
from tilec.targets import CudaTarget


@dataclass(frozen=True)
class _Red:
    """One `red.global.add` form: its PTX type suffix and operand constraint."""

    suffix: str
    constraint: str
    min_sm: int = 0


# Per element type: the scalar form, and the two-element form of 16-bit floats.
_SCALAR = {
    "f32": _Red("f32", "f"), "f64": _Red("f64", "d"), "i32": _Red("u32", "r"),
    "i64": _Red("u64", "l"), "f16": _Red("noftz.f16", "h"), "bf16": _Red("noftz.bf16", "h", 90),
}
_PAIR = {"f16": _Red("noftz.f16x2", "r"), "bf16": _Red("noftz.bf16x2", "r", 90)}


def _sm(target: CudaTarget) -> int:
    return int("".join(ch for ch in target.arch.removeprefix("sm_") if ch.isdigit()))


def _form(table: dict[str, _Red], element: ir.Type, target: CudaTarget) -> _Red | None:
    form = table.get(str(element))
    return form if form is not None and _sm(target) >= form.min_sm else None


def _address(dst: ir.Value, positions: list[ir.Value]) -> ir.Value:
    """The byte address (index) of `dst[positions]`."""
    rank = len(positions)
    metadata = memref.ExtractStridedMetadataOp(dst)
    offset, strides = metadata.results[1], list(metadata.results)[2 + rank :]
    linear = offset
    for position, stride in zip(positions, strides, strict=True):
        linear = arith.addi(linear, arith.muli(position, stride))
    bytes_ = irb.index(irb.bit_width(ir.MemRefType(dst.type).element_type) // 8)
    base = memref.extract_aligned_pointer_as_index(dst)
    return arith.addi(base, arith.muli(linear, bytes_))


def _red(form: _Red, address: ir.Value, value: ir.Value) -> None:
    generic = llvm.inttoptr(
        ir.Type.parse("!llvm.ptr"), arith.index_cast(ir.IntegerType.get_signless(64), address)
    )
    pointer = llvm.addrspacecast(ir.Type.parse("!llvm.ptr<1>"), generic)
    llvm.inline_asm(
        None, [pointer, value], f"red.global.add.{form.suffix} [$0], $1;",
        f"l,{form.constraint},~{{memory}}", has_side_effects=True,
    )


def add_atomically(value: ir.Value, dst: ir.Value, positions: list[ir.Value],
                   target: CudaTarget) -> None:
    """`dst[positions] += value` for any thread at once: a `red.global` where the
    type has one on `target` and `dst` is global, else `memref.atomic_rmw` (no
    bounds check), which NVPTX selects as `atom.shared` on a shared tile: a
    `red.global` on a shared address would add into whatever global memory
    the shared offset names."""
    form = None if is_workgroup(dst.type) else _form(_SCALAR, value.type, target)
    if form is not None:
        _red(form, _address(dst, positions), value)
        return
    kind = arith.AtomicRMWKind.addf if irb.is_float(value.type) else arith.AtomicRMWKind.addi
    memref.atomic_rmw(kind, value, dst, positions)


_ADDS = (int(arith.AtomicRMWKind.addf), int(arith.AtomicRMWKind.addi))


def scalar_adds_as_red(func: ir.Operation, target: CudaTarget) -> None:
    """Every `memref.atomic_rmw` add of a kernel (a DSL `T.atomic_add` on
    one element) whose old value nobody reads, on global memory, becomes a
    `red` where its type has one: NVPTX would select `atom` and wait for the
    value."""
    for rmw in irb.collect(func, "memref.atomic_rmw"):
        value, dst = rmw.operands[0], rmw.operands[1]
        if (ir.IntegerAttr(rmw.attributes["kind"]).value not in _ADDS
                or list(rmw.results[0].uses) or is_workgroup(dst.type)
                or irb.enclosing(rmw, {"gpu.launch"}) is None
                or _form(_SCALAR, value.type, target) is None):
            continue
        with ir.InsertionPoint(rmw), rmw.location:
            add_atomically(value, dst, list(rmw.operands)[2:], target)
        rmw.erase()


def _add_pair(values: tuple[ir.Value, ir.Value], dst: ir.Value, positions: list[ir.Value],
              form: _Red, target: CudaTarget) -> None:
    """Adds `values` at `positions` and the next column: one paired red when
    both are inside and 4-byte aligned, else each on its own."""
    second = [*positions[:-1], irb.add(positions[-1], 1)]
    address = _address(dst, positions)
    aligned = arith.cmpi(
        arith.CmpIPredicate.eq, arith.andi(address, irb.index(3)), irb.index(0)
    )
    # Both checked: the first column may be before the start (an index below 0).
    both = arith.andi(_inside(dst, positions), _inside(dst, second))
    branch = scf.IfOp(arith.andi(both, aligned), has_else=True)
    with ir.InsertionPoint(branch.then_block):
        pair = vector.from_elements(ir.VectorType.get([2], values[0].type), list(values))
        word = vector.bitcast(ir.VectorType.get([1], ir.IntegerType.get_signless(32)), pair)
        _red(form, address, vector.extract(word, [], [0]))
        scf.YieldOp([])
    with ir.InsertionPoint(branch.else_block):
        for value, at in zip(values, (positions, second), strict=True):
            with guarded(_inside(dst, at)):
                add_atomically(value, dst, at, target)
        scf.YieldOp([])


def _inside(dst: ir.Value, positions: list[ir.Value]) -> ir.Value:
    check = None
    for dim, position in enumerate(positions):
        ok = arith.cmpi(arith.CmpIPredicate.ult, position, memref.dim(dst, irb.index(dim)))
        check = ok if check is None else arith.andi(check, ok)
    assert check is not None
    return check


def _add_tile(tile: Tile, dst: ir.Value, offsets: list[ir.Value], threads: int,
              target: CudaTarget) -> None:
    def at(coords: list[ir.Value]) -> list[ir.Value]:
        return [irb.add(o, c) for o, c in zip(offsets, coords, strict=True)]

    pair = None if is_workgroup(dst.type) else _form(_PAIR, tile.element, target)
    layout = tile.layout
    if pair is not None and layout is not None and layout.kind == "mma":
        # Slots 2i and 2i + 1 hold columns 2t and 2t + 1 of one row.
        slots = range(0, layout.slots, 2)
        coords_of = layout.thread_coords(thread_id(), slots)
        for slot in slots:
            coords = coords_of(slot)
            values = (tile.load(coords, slot), tile.load(coords, slot + 1))
            _add_pair(values, dst, at(coords), pair, target)
        return
    if pair is not None and layout is None and tile.shape[-1] % 2 == 0:
        # Deal the elements in pairs of a row.
        halves = (*tile.shape[:-1], tile.shape[-1] // 2)

        def pairs(coords: list[ir.Value], slot: int | None) -> None:
            first = [*coords[:-1], arith.muli(coords[-1], irb.index(2))]
            second = [*coords[:-1], irb.add(first[-1], 1)]
            values = (tile.load(first, None), tile.load(second, None))
            _add_pair(values, dst, at(first), pair, target)

        for_each_element(halves, threads, None, pairs)
        return

    def body(coords: list[ir.Value], slot: int | None) -> None:
        positions = at(coords)
        with guarded(_inside(dst, positions)):
            add_atomically(tile.load(coords, slot), dst, positions, target)

    for_each_element(tile.shape, threads, layout, body)


@register_lowering
class AtomicAddByThreads(TileOpLowering[None, CudaTarget]):
    """tile.atomic_add as one `red` (or atomic read-modify-write) per element or pair."""

    target = "cuda"
    op_names = ("tile.atomic_add",)
    name = "cuda-atomic-add-by-threads"
    phase = Phase.ATOMIC_ADDS

    def lower(self, op: ir.Operation, plan: None, target: CudaTarget) -> None:
        src, dst = op.operands[0], op.operands[1]
        offsets = list(op.operands)[2:]
        with ir.InsertionPoint(op), op.location:
            if not isinstance(src.type, ir.MemRefType):
                inside = _inside(dst, offsets)
                if irb.enclosing(op, {"tile.parallel"}) is None and not per_thread(op):
                    # Once per block, as the cpu adds it; in a tile.parallel
                    # body once per element, by the thread the element is dealt to;
                    # in per-thread code by each thread.
                    is_first = arith.cmpi(arith.CmpIPredicate.eq, thread_id(), irb.index(0))
                    inside = arith.andi(is_first, inside)
                with guarded(inside):
                    add_atomically(src, dst, offsets, target)
            else:
                _add_tile(tile_of(src), dst, offsets, kernel_threads(op), target)
        op.erase()
