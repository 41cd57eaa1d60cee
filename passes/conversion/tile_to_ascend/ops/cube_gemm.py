"""The ascend lowering of tile.gemm on the cube core: L0 loads and mmad.

The operands wait in L1 in Nz layout (`ascend.copy_nd2nz` put them there);
each K step loads A into an L0A buffer (Zz) and B into an L0B buffer (Zn),
transposing on the way when the gemm says so, and one `ascend.mmad`
accumulates into the L0C tile (Nz of 16 x 16 fractals). A K that fits L0A
and L0B (64 KiB each) is one step; a deeper one (an L1 slab of several
steps, `tile-ascend-k-slabs`) is cut into the deepest steps of which two fit
each L0, which take turns on two L0A and two L0B buffers (`ascend.l0_turns`)
so that MTE1 loads one step while the cube multiplies the other; a step
starts on a fractal of both L1 layouts. The L0 buffers are allocated once
per kernel, at the start of the function, so `tile-ascend-multi-buffer` can
give a pipelined loop several.

The first mmad after a `tile.clear` of the accumulator (or of a gemm with
`clear_accum`) overwrites it (`init`) instead of adding to it. The clear is
found where the program puts it: in the same block as the gemm, or in a
block around it; each loop between the two makes that first mmad the one of
the loop's first iteration, an `scf.if` on the induction variables:

    tile.clear %acc
    tile.pipelined %k = %lb to %ub step %s num_stages = 2 {
      tile.gemm %a, %b, %acc : ...
    }

becomes

    %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>   (function start)
    %l0b = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l0b>>
    ...
    tile.pipelined %k = %lb to %ub step %s num_stages = 2 {
      ascend.load_l0a %a, %l0a sizes [64, 32] : ...
      ascend.load_l0b %b, %l0b sizes [32, 64] : ...
      %first = arith.cmpi eq, %k, %lb : index
      scf.if %first {
        ascend.mmad %l0a, %l0b, %acc sizes [64, 64, 32] {init} : ...
      } else {
        ascend.mmad %l0a, %l0b, %acc sizes [64, 64, 32] : ...
      }
    }

(the tile.clear itself is then erased by the cube fill lowering).

A clear after the gemm in the loop's body (2x accumulation: each K tile's
product is added onto a second accumulator on the vector cores and the
first one cleared, every iteration or under an `if` every few) makes the
first mmad of a later iteration overwrite too: always, when the clear is
unconditional, else when the clear's condition held on the previous
iteration, recomputed from the loop counter one step back. A clear before
the loop and one at the end of each iteration make every mmad `init`, with
no test.

Cube layout facts the loads rest on (f32: 16 x 8 fractals, C0 = 8):

- L0A wants each fractal as 16 rows of M by C0 of K, L0B as 16 rows of N by
  C0 of K. An Nz L1 tile of A (M x K) or of Bᵀ (N x K, `transpose_b`) has
  exactly those fractals: the load only reorders them. A (K x M, with
  `transpose_a`) or B (K x N) has them transposed, and a transposing load
  of 16-bit fractals (LoadData2D `ifTranspose`) or 8-bit pairs handles that;
- no load transposes 32-bit fractals out of Nz: LoadDataWithTranspose joins
  two 16 x 8 fractals that lie side by side (Zz or Zn in L1, arch 2201) into
  a 16 x 16 square, Nz keeps them one above the other, and the 950 (arch
  3510) has no such load into L0A and documents no fractal order of its V2
  form for 32 bits. So an f32 operand that needs transposing is put in L1
  in a layout that serves: on the 910b in Zz (`ascend.copy_nd2nz {zz}`, one
  Nd2Nz matrix per 16 rows), loaded by `ascend.load_l0a/l0b {zz}`
  (LoadDataWithTranspose of squares); on the 950 as the Nz of its transpose
  (`ascend.copy_nd2nz {transpose}`, DataCopy with Dn2NzParams: the GM matrix
  read column-major), which the plain load takes like any A or Bᵀ. The 950
  copies an 8-bit A that needs transposing in the same way: its transposing
  load of 8-bit pairs reaches L0B only.
  The gemm records the layout on the tile (`ascend.l1_layout`), and the
  alloc and the copy into L1 lower to it. The transposed Nz pads a ragged
  tile as any Nz does (its rows to C0 columns, its columns to 16 rows), so
  the 950 takes every extent. Zz loads move whole 16 x 16 squares: a Zz
  tile's columns pad to whole squares (the copy zeroes them), its loads'
  sizes reach the squares' edges, and L0B holds K to a square's edge too,
  past the K the mmad reads (Zn keeps K outermost, so a view of its first
  fractals serves). A Zz A's K sets L0A's row pitch: where it is not whole
  squares the mmad runs K to their edge, which is right only over zeros in
  both operands, so such an A takes Zz only next to a Zz B (whose padding
  rows are zero). A tile that gemms read both ways (MLA's latent cache: Kᵀ
  for the scores, V for the output) gets a second L1 tile for the reads that
  need transposing, which every copy from GM into it writes too. A tile that
  anything but copies from GM writes, or such an A next to a B not in Zz,
  stays Nz, and the compile fails where the AscendC emitter reports that no
  load transposes it.

A gemm under an `scf.if` inside a loop after its clear is an error (the
first iteration may skip it; `tile-ascend-place-tiles` keeps such an
accumulator in UB, see `fresh_accumulators`), and so is a clear that no gemm
follows before the copy out. Not handled: a K loop that runs zero times at run time leaves
the accumulator as it was instead of zero (L0C can only be zeroed by an mmad).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf

from tilec.dialects import ascend
from tilec.passes.canonicalize_ops import is_zero_constant
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_ascend.ops import buffers
from tilec.passes.conversion.tile_to_ascend.ops.buffers import (
    L1_LAYOUT,
    L1_SQUARES,
    L1_TRANSPOSED,
    L1_ZZ,
    l1_layout,
    l1_shape,
)
from tilec.passes.conversion.tile_to_ascend.place_tiles import FRACTAL_ROWS, c0, fractal_shape
from tilec.passes.registry import emit_error
from tilec.targets.ascend import AscendTarget

_LOOPS = frozenset({"scf.for", "tile.pipelined"})
_ACCUMULATE = frozenset({"tile.gemm", "ascend.mmad"})
_VIEWS = frozenset({"memref.reinterpret_cast", "memref.subview"})
_MMAD_TYPES = {"f16": "f32", "bf16": "f32", "f32": "f32", "i8": "i32", "f8E4M3FN": "f32",
               "f8E5M2": "f32"}
TURNS = "ascend.l0_turns"
"""On the L0A and L0B buffers that the K steps of one gemm take turns on: how
many (they overlap loads and mmads on their own, see `tile-ascend-multi-buffer`)."""


def _nested(op: ir.Operation):
    for region in op.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner.operation
                yield from _nested(inner.operation)


def is_clear(op: ir.Operation, acc: ir.Value) -> bool:
    """A `tile.clear` of `acc`, or a zero `tile.fill` (not yet canonicalized)."""
    if op.name == "tile.clear":
        return op.operands[0] == acc
    return op.name == "tile.fill" and op.operands[0] == acc and is_zero_constant(op.operands[1])


def _root(value: ir.Value) -> ir.Value:
    """The buffer a view (the fractal view of a tile, a part of it) is of."""
    owner = value.owner
    while isinstance(owner, ir.Operation | ir.OpView) and owner.name in _VIEWS:
        value = owner.operands[0]
        owner = value.owner
    return value


def _accumulates(op: ir.Operation, acc: ir.Value) -> bool:
    return op.name in _ACCUMULATE and _root(op.operands[2]) == acc


def _contains(op: ir.Operation, acc: ir.Value, test) -> bool:
    return test(op, acc) or any(test(inner, acc) for inner in _nested(op))


@dataclass(frozen=True)
class Wrap:
    """A loop between a clear and the gemm, and what its iterations after the
    first start with: the zeros of a clear that ran after the gemm in the
    previous iteration (`after`: () always, else when one of these conditions,
    values of the loop's body, held then), or the gemm's sum (`after` None)."""

    loop: ir.Operation
    after: tuple[ir.Value, ...] | None


@dataclass(frozen=True)
class Cleared:
    """When an accumulator holds the zeros of a clear (`cleared_since`)."""

    wraps: tuple[Wrap, ...]
    """The loops between the clear and the gemm, innermost first."""
    before: bool
    """Whether a clear comes before the loops (else only their `after`s clear)."""


ALWAYS = Cleared((), True)
"""Init condition of an mmad that always follows a clear: no loop to test."""


def cleared_since(op: ir.Operation, acc: ir.Value) -> Cleared | None:
    """Whether the accumulator `acc` may still hold the zeros of a clear when
    `op` runs: None when it holds a sum (or nothing defined), else the loops
    between the clear and `op`: on their first iteration it holds the zeros of
    the clear before them, on a later one those of a clear after `op` in the
    previous iteration (`Wrap.after`); `ALWAYS` when there is no such loop."""
    wraps: list[Wrap] = []
    conditional: ir.Operation | None = None
    # An scf.if inside a loop whose iterations do not all end with a clear: one
    # may skip the gemm, and which mmad first writes the zeros is known at run time.
    skipped: ir.Operation | None = None

    def found(before: bool) -> Cleared | None:
        if not before and all(wrap.after is None for wrap in wraps):
            return None
        if skipped is not None:
            raise emit_error(skipped, "a tile.gemm under a condition in a loop after the clear "
                                      "of its accumulator is not supported in l0c: leave the "
                                      "accumulator a fragment (the vector cores then add each "
                                      "product onto it)")
        return Cleared(tuple(wraps), before)

    position = op
    while True:
        before = []
        for candidate in position.block.operations:
            if candidate.operation == position:
                break
            before.append(candidate.operation)
        for prev in reversed(before):
            if is_clear(prev, acc):
                return found(True)
            if any(is_clear(inner, acc) for inner in _nested(prev)):
                raise emit_error(prev, "cannot tell which tile.gemm first writes the "
                                       "accumulator cleared in here: clear it in the block of "
                                       "the gemm or in a block around it")
            if _contains(prev, acc, _accumulates):
                return found(False)
        parent = position.parent
        if parent is None:
            return found(False)
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent.name in _LOOPS:
            after = _cleared_after(position, acc)
            if conditional is not None and after != ():
                skipped = skipped or conditional
            wraps.append(Wrap(parent, after))
        elif parent.name == "scf.if":
            conditional = parent
        else:
            return found(False)
        position = parent


def _cleared_after(position: ir.Operation, acc: ir.Value) -> tuple[ir.Value, ...] | None:
    """`Wrap.after` of the loop whose body holds `position`, the op that is or holds the gemm:
    the clears of `acc` after `position` up to the end of the body, the last
    of which ends an iteration with zeros (2x accumulation: the product of a
    K tile is added to a second accumulator on the vector cores, and the
    first one is cleared, every iteration or every few)."""
    ops = [o.operation for o in position.block.operations]
    conditions: list[ir.Value] = []
    for later in reversed(ops[ops.index(position) + 1:]):
        if is_clear(later, acc):
            return ()
        condition = _clearing_condition(later, acc)
        if condition is not None:
            conditions.append(condition)
        elif any(is_clear(inner, acc) for inner in _nested(later)):
            raise emit_error(later, "a clear of the accumulator in here, after its tile.gemm "
                                    "in the loop, is not supported: clear it in the loop's "
                                    "body or under an `if` there")
        elif _contains(later, acc, _accumulates):
            break
    return tuple(conditions) or None


def _clearing_condition(op: ir.Operation, acc: ir.Value) -> ir.Value | None:
    """The condition of `op` when it is an `scf.if` whose then-block ends the
    work on `acc` with its clear and whose else-block leaves `acc` alone."""
    if op.name != "scf.if":
        return None
    ops = [o.operation for o in op.regions[0].blocks[0].operations]
    otherwise = [o.operation for block in op.regions[1].blocks for o in block.operations]
    if any(_contains(inner, acc, is_clear) or _contains(inner, acc, _accumulates)
           for inner in otherwise):
        return None
    clears = [i for i, inner in enumerate(ops) if is_clear(inner, acc)]
    if not clears or any(_contains(inner, acc, _accumulates) or any(
            is_clear(deep, acc) for deep in _nested(inner)) for inner in ops[clears[-1] + 1:]):
        return None
    return op.operands[0]


_PURE = ("arith.", "index.", "affine.apply", "ascend.block_idx", "ascend.block_num",
         "ascend.sub_block_idx")
"""Ops that a condition of an earlier iteration may be recomputed with."""


def _at_previous_iteration(value: ir.Value, loop: ir.Operation) -> ir.Value:
    """`value`, computed in the body of `loop`, as the previous iteration
    computed it: its ops cloned at the insertion point with the induction
    variable one step back."""
    iv = loop.regions[0].blocks[0].arguments[0]
    body = loop.regions[0]
    mapping = {iv: arith.subi(iv, loop.operands[2])}

    def clone(v: ir.Value) -> ir.Value:
        if v in mapping:
            return mapping[v]
        owner = v.owner
        if not isinstance(owner, ir.Operation | ir.OpView) or not _inside(owner.operation, body):
            return v
        owner = owner.operation
        if owner.regions or not owner.name.startswith(_PURE):
            raise emit_error(owner, "the condition of the clear after the tile.gemm must be "
                                    f"computed from the loop counter, not by '{owner.name}'")
        operands = [clone(operand) for operand in owner.operands]
        copy = owner.clone(ip=ir.InsertionPoint.current)
        for index, operand in enumerate(operands):
            copy.operands[index] = operand
        for result, cloned in zip(owner.results, copy.results, strict=True):
            mapping[result] = cloned
        return mapping[v]

    return clone(value)


def _inside(op: ir.Operation, region: ir.Region) -> bool:
    parent = op.parent
    while parent is not None:
        parent = parent.operation if hasattr(parent, "operation") else parent
        if any(r == region for r in parent.regions):
            return True
        parent = parent.parent
    return False


def init_condition(cleared: Cleared) -> ir.Value | bool:
    """When the first mmad of a gemm overwrites its accumulator, built at the
    insertion point: True (always) or an i1. Each loop, from the outermost,
    holds the clear's zeros on its first iteration when the loops around it
    did, on later ones when its `after` says so."""
    held: ir.Value | bool = cleared.before
    for wrap in reversed(cleared.wraps):
        loop = wrap.loop
        if wrap.after is None:
            later: ir.Value | bool = False
        elif not wrap.after:
            later = True
        else:
            later = functools.reduce(arith.ori, [_at_previous_iteration(c, loop)
                                                 for c in wrap.after])
        if held is later:  # the same on every iteration
            continue
        first = arith.cmpi(arith.CmpIPredicate.eq, loop.regions[0].blocks[0].arguments[0],
                           loop.operands[0])
        held = _select(first, held, later)
    return held


def _select(test: ir.Value, then: ir.Value | bool, other: ir.Value | bool) -> ir.Value | bool:
    """`test ? then : other` on i1 values or Python bools, folded where it can be."""
    if isinstance(then, bool) and isinstance(other, bool):
        return then if then == other else test if then else _not(test)
    if then is True:
        return arith.ori(test, other)
    if then is False:
        return arith.andi(_not(test), other)
    if other is True:
        return arith.ori(_not(test), then)
    if other is False:
        return arith.andi(test, then)
    return arith.select(test, then, other)


def _not(value: ir.Value) -> ir.Value:
    return arith.xori(value, arith.constant(ir.IntegerType.get_signless(1), 1))


_TRANSPOSING_LAYOUT = {"dav-c220": L1_ZZ, "dav-c310": L1_TRANSPOSED}
"""The L1 layout of a 32-bit operand that needs transposing, per architecture
(see the module docstring)."""


def fractal_view(tile: ir.Value) -> ir.Value:
    """The tile `tile` as its fractal buffer (a 4-D memref in its own memory
    space): the tile itself once the alloc lowering gave it that shape, else
    a view of its bytes in that shape (an L1 tile's in its `l1_layout`)."""
    type_ = ir.MemRefType(tile.type)
    if type_.rank == 4:
        return tile
    space = str(buffers.memory_space(type_))
    shape = (l1_shape(tile) if space == "l1"
             else fractal_shape(space, *type_.shape, type_.element_type))
    strides = [math.prod(shape[d + 1 :]) for d in range(4)]
    result = ir.MemRefType.get(shape, type_.element_type, None, type_.memory_space)
    return memref.reinterpret_cast(result, tile, [], [], [], [0], shape, strides)


def new_buffer(space: str, rows: int, cols: int, element: ir.Type, anchor: ir.Operation,
               turns: int = 1):
    """A fractal buffer of `space` for a rows x cols matrix, allocated once
    per kernel, at the start of the function around `anchor` (as tiles are);
    one of `turns` that K steps take turns on."""
    type_ = ascend.memref_type(fractal_shape(space, rows, cols, element), element, space)
    with buffers.function_entry(anchor), ir.Location.unknown():
        buffer = memref.alloc(type_, [], [])
        if turns > 1:
            buffer.owner.attributes[TURNS] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), turns)
        return buffer


def _ceil(value: int, by: int) -> int:
    return -(-value // by)


def matrix_shape(value: ir.Value, op: ir.Operation) -> tuple[int, int]:
    """Rows and columns of a 2-D tile (its logical shape); a tile of another
    rank is an error at `op`, the cube op that uses it."""
    type_ = ir.MemRefType(value.type)
    if type_.rank != 2:
        raise emit_error(op, f"a cube tile is a matrix: this {space_of(value)} tile is "
                             f"{'x'.join(map(str, type_.shape)) or 'a scalar'} (rank "
                             f"{type_.rank}), not rows x cols")
    rows, cols = type_.shape
    return rows, cols


def space_of(value: ir.Value) -> str:
    return str(buffers.memory_space(ir.MemRefType(value.type)))


@dataclass(frozen=True)
class GemmPlan:
    m: int
    n: int
    k: int
    k_step: int
    """Depth of one L0 load and mmad: a multiple of the fractal rows of both
    operands' L1 layouts, at most `k`."""
    slots: int
    """L0A/L0B buffer pairs the K steps take turns on (1 or 2)."""
    init: Cleared | None
    """`cleared_since` of the gemm: when its first mmad overwrites C."""


_FLAGS = (("transpose_a", True), ("transpose_b", False))
"""Per operand position: its transpose flag, and whether the flag set means the operand
is transposed on its way to L0 (A's fractals are transposed by `transpose_a`, B's unless
`transpose_b`)."""


def _only_gemm_operand(tile: ir.Value, gemm: ir.Operation, position: int, flag: str) -> bool:
    """Whether `tile` is written only by copies from GM and read only as operand
    `position` of gemms with the same transpose flag (so its layout serves all)."""
    for use in tile.uses:
        user = use.owner.operation
        if user.name == "tile.gemm":
            if use.operand_number != position or \
                    (flag in user.attributes) != (flag in gemm.attributes):
                return False
        elif user.name == "tile.copy":
            if user.operands[0] == tile or not buffers.is_global(user.operands[0]):
                return False
        else:
            return False
    return True


def _needs_transposing_layout(op: ir.Operation, position: int, layout: str | None) -> bool:
    """Whether operand `position` of gemm `op` is an L1 tile (a `tile.alloc`) that needs
    transposing on its way to L0 (A with `transpose_a`, B without `transpose_b`) where no
    load transposes it, so that it needs the transposing layout `layout`: a 32-bit tile,
    or on the 950 an 8-bit A (its transposing load of 8-bit pairs reaches L0B only)."""
    value = op.operands[position]
    flag, transposed = _FLAGS[position]
    type_ = ir.MemRefType(value.type)
    width = irb.bit_width(type_.element_type)
    if (flag in op.attributes) != transposed or not (
            width == 32 or (width == 8 and position == 0 and layout == L1_TRANSPOSED)):
        return False
    if str(buffers.memory_space(type_)) != "l1" or layout is None:
        return False
    owner = value.owner
    return isinstance(owner, ir.Operation | ir.OpView) and owner.name == "tile.alloc"


def _transposing_operand(op: ir.Operation, position: int, layout: str | None) -> bool:
    """Whether operand `position` of gemm `op` needs the transposing layout `layout` and
    can take it: only copies from GM write it."""
    return _needs_transposing_layout(op, position, layout) and _only_gemm_operand(
        op.operands[position], op, position, _FLAGS[position][0])


def own_copies_for_transposed_reads(func: ir.Operation, target: AscendTarget) -> None:
    """`_own_copy_for_transposed_reads` for every operand of every gemm of `func`, before
    any op is lowered (a lowered gemm reads its tiles through views)."""
    layout = _TRANSPOSING_LAYOUT.get(target.profile.arch)
    for gemm in irb.collect(func, "tile.gemm"):
        for position in (0, 1):
            _own_copy_for_transposed_reads(gemm, position, layout)


def _own_copy_for_transposed_reads(op: ir.Operation, position: int, layout: str | None) -> None:
    """Operand `position` of gemm `op` needs the transposing layout, which no other
    layout serves, while other gemms read the same tile the way Nz serves (MLA's
    latent cache: Kᵀ for the scores, V for the output). The gemms that read it as
    `op` does get a tile of their own in L1, which each copy from GM into the tile
    writes too, right after it: the same bytes, one more DMA per copy."""
    value = op.operands[position]
    if not _needs_transposing_layout(op, position, layout) or \
            _only_gemm_operand(value, op, position, _FLAGS[position][0]):
        return
    flag = _FLAGS[position][0]
    writers, readers = [], []
    for use in value.uses:
        user = use.owner.operation
        if user.name == "tile.copy" and user.operands[0] != value and \
                buffers.is_global(user.operands[0]):
            writers.append(user)
        elif user.name == "tile.gemm":
            if use.operand_number == position and (flag in user.attributes) == \
                    (flag in op.attributes):
                readers.append((user, use.operand_number))
        else:
            return
    alloc = value.owner.operation
    own = alloc.clone(ip=ir.InsertionPoint(alloc)).results[0]
    for writer in writers:
        copy = writer.clone(ip=ir.InsertionPoint(writer))
        # the clone goes first, then the original moves before it: program order kept
        writer.move_before(copy)
        for index, operand in enumerate(copy.operands):
            if operand == value:
                copy.operands[index] = own
    for reader, index in readers:
        reader.operands[index] = own


def choose_l1_layouts(op: ir.Operation, target: AscendTarget) -> None:
    """Marks each L1 operand of gemm `op` that no load transposes (32-bit ones, and the
    950's 8-bit A) with the layout of its architecture, where only copies from GM
    write it. Zz pads a
    tile's columns to whole 16 x 16 squares, which its loads move, and so the K
    of L0B, past what the mmad reads (Zn keeps it at the end); the K of a Zz A
    sets L0A's row pitch, so where it is not whole squares the mmad runs K to
    the squares' edge, over zeros, which only a Zz B (of this gemm alone) has
    too (see the module docstring)."""
    profile = target.profile
    layout = _TRANSPOSING_LAYOUT.get(profile.arch)
    chosen: list[str | None] = [layout if _transposing_operand(op, position, layout) else None
                                for position in (0, 1)]
    a = op.operands[0]
    if chosen[0] and layout == L1_ZZ and ir.MemRefType(a.type).shape[0] % FRACTAL_ROWS:
        if not chosen[1] and _pads_k(op):
            chosen[1] = L1_SQUARES
        chosen[0] = layout if chosen[1] and _gemms(a) == 1 else None
    for value, marked in zip(op.operands[:2], chosen, strict=True):
        if marked:
            value.owner.attributes[L1_LAYOUT] = ir.StringAttr.get(marked)


def _gemms(tile: ir.Value) -> int:
    return sum(use.owner.operation.name == "tile.gemm" for use in tile.uses)


def _pads_k(op: ir.Operation) -> bool:
    """Whether Bᵀ (`transpose_b`, N x K, 32-bit) of gemm `op` can hold K up to whole
    16 x 16 squares of zeros in L1 (`squares`), as a Zz A with a ragged K needs of
    it: a tile of this gemm alone that only copies from GM write."""
    b = op.operands[1]
    owner = b.owner
    return ("transpose_b" in op.attributes and irb.bit_width(
        ir.MemRefType(b.type).element_type) == 32 and space_of(b) == "l1"
            and isinstance(owner, ir.Operation | ir.OpView) and owner.name == "tile.alloc"
            and _gemms(b) == 1 and _only_gemm_operand(b, op, 1, "transpose_b"))


def _k_step(op: ir.Operation, m: int, n: int, k: int, element: ir.Type,
            target: AscendTarget) -> tuple[int, int]:
    """The K step and the number of L0A/L0B buffer pairs the steps take turns on.

    One step when all of K fits L0A (M x K) and L0B (K x N) twice: a pipelined
    loop around the gemm gives its buffers slots of their own. A deeper K (an
    L1 slab of several steps) is cut into the deepest steps of which two fit
    each L0, so that MTE1 loads step i + 1 while the cube multiplies step i;
    where not even two of the shallowest steps fit, into the deepest steps
    that fit once."""
    profile = target.profile
    itemsize = irb.bit_width(element) // 8
    # A step starts on a fractal boundary of A's and B's L1 layouts, which
    # cut K by 16 rows or by C0 columns depending on the transposes.
    granule = math.lcm(FRACTAL_ROWS, c0(element))
    rows_a = _ceil(m, FRACTAL_ROWS) * FRACTAL_ROWS
    cols_b = _ceil(n, FRACTAL_ROWS) * FRACTAL_ROWS
    l0a = profile.usable_bytes("l0a") // (rows_a * itemsize)
    l0b = profile.usable_bytes("l0b") // (cols_b * itemsize)
    fits = min(l0a, l0b) // granule * granule
    if fits == 0:
        raise emit_error(op, f"tile.gemm operands of {m}x{n} ({element}) do not fit the cube: "
                             f"one {granule}-deep step needs {rows_a * granule * itemsize} bytes "
                             f"of L0A and {cols_b * granule * itemsize} of L0B, the "
                             f"{profile.name} has {profile.usable_bytes('l0a')} and "
                             f"{profile.usable_bytes('l0b')}")
    half = min(l0a, l0b) // 2 // granule * granule
    if half >= k or (fits >= k and half == 0):
        return k, 1
    slots = 2 if half else 1
    fits = half or fits
    steps = _ceil(k, fits)
    # Even steps: the last one is not a sliver.
    return _ceil(_ceil(k, steps), granule) * granule, slots


def _squares(extent: int) -> int:
    """`extent` up to whole 16 x 16 squares (of a Zz load)."""
    return _ceil(extent, FRACTAL_ROWS) * FRACTAL_ROWS


def _chunk(l1: ir.Value, k_dim: int, per_block: int, start: int, size: int) -> ir.Value:
    """The part of an L1 operand (Nz) that holds K rows/columns [start, start + size):
    K runs along fractal dim `k_dim` (0: C0 columns, 1: 16 rows) in `per_block`."""
    shape = ir.MemRefType(l1.type).shape
    offsets = [0, 0, 0, 0]
    sizes = list(shape)
    offsets[k_dim] = start // per_block
    sizes[k_dim] = -(-size // per_block)
    return buffers.view(l1, offsets, sizes)


def _prefix(buffer: ir.Value, dims: list[int]) -> ir.Value:
    """The leading `dims` fractals of the first two dims of a fractal buffer."""
    shape = ir.MemRefType(buffer.type).shape
    return buffers.view(buffer, [0, 0, 0, 0], [*dims, *shape[2:]])


@register_lowering
class GemmToMmad(TileOpLowering[GemmPlan, AscendTarget]):
    """tile.gemm on L1/L0C tiles as L0A/L0B loads and ascend.mmad per K step."""

    target = "ascend"
    op_names = ("tile.gemm",)
    name = "ascend-cube-gemm"
    phase = Phase.GEMMS

    def applies(self, op: ir.Operation, target: AscendTarget) -> str | None:
        a, b, c = list(op.operands)
        operands = ((a, "A", ("l1", "l0a")), (b, "B", ("l1", "l0b")), (c, "C", ("l0c",)))
        for value, what, spaces in operands:
            space = str(buffers.memory_space(ir.MemRefType(value.type)))
            if space not in spaces:
                return f"{what} is in {space}, not {' or '.join(spaces)}"
        return None

    def infer(self, op: ir.Operation, target: AscendTarget) -> GemmPlan:
        a, b, c = list(op.operands)
        element = ir.MemRefType(a.type).element_type
        out = ir.MemRefType(c.type).element_type
        profile = target.profile
        name = str(element)
        if profile.macs_per_cycle(name) is None or _MMAD_TYPES.get(name) != str(out):
            legal = ", ".join(f"{i} -> {o}" for i, o in _MMAD_TYPES.items()
                              if profile.macs_per_cycle(i) is not None)
            raise emit_error(op, f"the cube of the {profile.name} profile has no {name} -> "
                                 f"{out} mode (it has {legal})")
        rows_a, cols_a = matrix_shape(a, op)
        rows_b, cols_b = matrix_shape(b, op)
        m, k = (cols_a, rows_a) if "transpose_a" in op.attributes else (rows_a, cols_a)
        n = rows_b if "transpose_b" in op.attributes else cols_b
        acc_bytes = math.prod(fractal_shape("l0c", m, n, out)) * irb.bit_width(out) // 8
        if acc_bytes > profile.usable_bytes("l0c"):
            raise emit_error(op, f"the {m}x{n} accumulator needs {acc_bytes} bytes of L0C, "
                                 f"the {profile.name} has {profile.usable_bytes('l0c')}")
        init = ALWAYS if "clear_accum" in op.attributes else cleared_since(op, c)
        step, slots = _k_step(op, m, n, k, element, target)
        for value, where, flag in ((a, "l0a", "transpose_a"), (b, "l0b", "transpose_b")):
            if str(buffers.memory_space(ir.MemRefType(value.type))) == where:
                if flag in op.attributes:
                    raise emit_error(op, f"an operand in {where} is multiplied as it is: "
                                         f"{flag} needs it in l1")
                if step < k:
                    raise emit_error(op, f"an operand in {where} holds all {k} of K, which "
                                         f"the L0 buffer of the other operand cannot")
                # A hand-placed L0 operand holds all of K: one step.
                step, slots = k, 1
        return GemmPlan(m, n, k, step, slots, init)

    def lower(self, op: ir.Operation, plan: GemmPlan, target: AscendTarget) -> None:
        a, b, c = list(op.operands)
        element = ir.MemRefType(a.type).element_type
        k0 = c0(element)
        trans_a, trans_b = "transpose_a" in op.attributes, "transpose_b" in op.attributes
        in_l0 = [str(buffers.memory_space(ir.MemRefType(v.type))) in ("l0a", "l0b")
                 for v in (a, b)]
        choose_l1_layouts(op, target)
        layouts = [l1_layout(a), l1_layout(b)]
        # An operand in L1 as the Nz of its transpose is loaded as if it were stored
        # the other way round: A as A, B as Bᵀ.
        if layouts[0] == L1_TRANSPOSED:
            trans_a = False
        if layouts[1] == L1_TRANSPOSED:
            trans_b = True
        zz_a, zz_b = (True if layout == L1_ZZ else None for layout in layouts)
        squares_b = layouts[1] == L1_SQUARES
        # A Zz load moves whole 16 x 16 squares: L0B holds K to a square's edge, and
        # with a Zz A (where both have zeros there: a Zz B, or a Bᵀ whose L1 tile
        # holds K to the squares' edge) the mmad runs K that far.
        pad = _squares if zz_a else lambda extent: extent
        with ir.InsertionPoint(op), op.location:
            a_l1, b_l1, acc = fractal_view(a), fractal_view(b), fractal_view(c)
        l0a = [a_l1] if in_l0[0] else [
            new_buffer("l0a", plan.m, pad(plan.k_step), element, op, plan.slots)
            for _ in range(plan.slots)]
        l0b = [b_l1] if in_l0[1] else [
            new_buffer("l0b", _squares(plan.k_step) if zz_b or squares_b else plan.k_step,
                       plan.n, element, op, plan.slots) for _ in range(plan.slots)]
        with ir.InsertionPoint(op), op.location:
            # Where K runs in each L1 layout: A (M x K) Nz has K in C0 columns
            # (dim 0), its transpose (K x M) in 16-row blocks (dim 1); B the other way.
            # Zz (K x M or K x N) has K in 16-row blocks along dim 0.
            a_k = (0, FRACTAL_ROWS) if zz_a else (1, FRACTAL_ROWS) if trans_a else (0, k0)
            b_k = (0, FRACTAL_ROWS) if zz_b else (0, k0) if trans_b else (1, FRACTAL_ROWS)
            for index, start in enumerate(range(0, plan.k, plan.k_step)):
                size = min(plan.k_step, plan.k - start)
                whole = start == 0 and size == plan.k
                src_a = a_l1 if whole else _chunk(a_l1, *a_k, start, size)
                depth = pad(size)
                src_b = b_l1 if whole else _chunk(b_l1, *b_k, start,
                                                  depth if squares_b else size)
                load_a = [_squares(plan.m), depth] if zz_a else [plan.m, size]
                load_b = ([_squares(size), _squares(plan.n)] if zz_b
                          else [depth if squares_b else size, plan.n])
                # What the loads write and (of L0B, a part of it) what the mmad reads.
                # The steps take turns on the L0 buffers: step i + 1 loads while step i
                # multiplies.
                slot_a, slot_b = l0a[index % len(l0a)], l0b[index % len(l0b)]
                dst_a = _prefix(slot_a, fractal_shape("l0a", plan.m, depth, element)[:2])
                into_b = _prefix(slot_b, fractal_shape("l0b", *load_b, element)[:2])
                dst_b = _prefix(slot_b, fractal_shape("l0b", depth, plan.n, element)[:2])
                if not in_l0[0]:
                    ascend.load_l0a(src_a, dst_a, load_a, transpose=trans_a or None, zz=zz_a)
                if not in_l0[1]:
                    ascend.load_l0b(src_b, into_b, load_b, transpose=trans_b or None, zz=zz_b)
                sizes = [plan.m, plan.n, depth]
                init = init_condition(plan.init) if start == 0 and plan.init is not None \
                    else False
                if isinstance(init, bool):
                    ascend.mmad(dst_a, dst_b, acc, sizes, init=init or None)
                else:
                    branch = scf.IfOp(init, has_else=True)
                    with ir.InsertionPoint(branch.then_block):
                        ascend.mmad(dst_a, dst_b, acc, sizes, init=True)
                        scf.YieldOp([])
                    with ir.InsertionPoint(branch.else_block):
                        ascend.mmad(dst_a, dst_b, acc, sizes)
                        scf.YieldOp([])
        op.erase()
