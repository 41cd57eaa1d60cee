"""tile-ascend-place-tiles: put every tile in an Ascend buffer, from how it is used.

The portable scopes (`shared`, `fragment`, `local`) say nothing about the
NPU's buffers, so the place of each `tile.alloc` is inferred from its uses
(through views), never from its name:

- an operand A or B of `tile.gemm` lives in L1, the accumulator C in L0C;
- a tile that is only written by one whole-tile copy from an L0C tile and
  only read by copies to global memory (TileLang's epilogue
  `T.copy(C_local, C_shared); T.copy(C_shared, C[...])`) is folded away:
  the copies out read the L0C tile, and become fixpipes (which cast);
- a ReLU of the accumulator in place (`tile.parallel` of `max(C, 0)`)
  right before its copies out is the fixpipe's too: the region goes and
  the copies carry `ascend.relu`, so the kernel stays on the cube;
- every other tile lives in UB (vector cores);
- a gemm that accumulates onto a tile vector work writes first (a mask,
  a loop-carried rescale) gets a fresh L0C accumulator whose result an
  element-wise add puts onto the (UB) tile (`fresh_accumulators`);
- a copy of an accumulator into a gemm operand goes through a UB tile of
  its own (see `_check_handoffs`);
- a gemm operand that vector work writes (filled element by element: a
  scaled, masked or gathered tile) lives in UB, and the gemms read an L1
  twin a whole-tile copy refreshes after each write (`_stage_up`): a mix
  kernel whose vector cores hand the tile up, as attention's P;
- a copy through a view of a tile that only adds unit dims (the DSL's
  view for a region whose tile dims are not its trailing ones) moves onto
  the tile, so cube tiles stay 2-D and the AIVs can split UB tiles by
  rows (`unit_dim_views`).

Tiles in an Ascend scope (`l1`, `l0a`, `l0b`, `l0c`, `ub`) stay where they
are. The memory spaces stay tile scopes; `cube_buffer_type` says which
fractal buffer a cube tile becomes when it is allocated. An accumulator
that vector work reads stays in L0C: the kernel needs the cube (AIC) and
the vector cores (AIV) both, and `tile-ascend-split-cores` makes it a mix
kernel; so does one copied into a gemm operand, through a UB tile of its
own (the vector cores' copy, which vector work may have rewritten, goes
back up to L1). A kernel that would need both kinds of core
otherwise (a UB tile beside a gemm whose accumulator vector work does not
read) is an error at the first op that needs the other kind of core.

Before:

    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %c = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    %s = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
    tile.gemm %a, %b, %c : ...
    tile.copy %c[%c0, %c0], %s[%c0, %c0] : ...
    tile.copy %s[%c0, %c0], %C[%i, %j] : ...

After:

    %a = tile.alloc : memref<64x32xf16, #tile.scope<l1>>
    %c = tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
    tile.gemm %a, %b, %c : ...
    tile.copy %c[%c0, %c0], %C[%i, %j] : ...
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from tilec.dialects import ascend, tile
from tilec.passes.canonicalize_ops import is_zero_constant
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.analysis.fresh_accumulators import (
    rewrite_fresh_accumulators,
)
from tilec.passes.conversion.tile_to_ascend.analysis.unit_dim_views import drop_unit_dim_views
from tilec.passes.conversion.tile_to_ascend.split_scopes import scopes_of
from tilec.passes.registry import Pass, emit_error, register_pass

CUBE_SPACES = frozenset({"l1", "l0a", "l0b", "l0c"})
ON_CHIP_SPACES = CUBE_SPACES | {"ub"}
_PORTABLE = frozenset({tile.Scope.shared, tile.Scope.fragment, tile.Scope.local})
# Ops that make another memref aliasing their first operand.
_VIEWS = frozenset(
    {
        "memref.subview",
        "memref.cast",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.reinterpret_cast",
        "memref.transpose",
        "memref.memory_space_cast",
    }
)
MIXED = "needs both cube and vector cores (mixed kernels are not supported yet)"
# Ops a ReLU epilogue's body may hold besides its load, max and store.
_RELU_FREE = frozenset({"tile.yield", "arith.constant"})
RELU = "ascend.relu"
"""Marks a copy out of an accumulator whose fixpipe applies a ReLU (folded
from the element-wise epilogue before it)."""
FRACTAL_ROWS = 16
FRACTAL_BYTES = 32


def _scope(value: ir.Value) -> tile.Scope:
    return tile.scope_of(ir.MemRefType(value.type))


def scope_name(value: ir.Value) -> str:
    """The memory scope of a memref value, as its name (`ub`, `l0c`, `global`...)."""
    return str(_scope(value))


def c0(element: ir.Type) -> int:
    """Elements per row of a 512-byte fractal (16 rows x 32 bytes)."""
    return FRACTAL_BYTES * 8 // irb.bit_width(element)


def _ceil(value: int, by: int) -> int:
    return -(-value // by)


def fractal_shape(space: str, rows: int, cols: int, element: ir.Type) -> list[int]:
    """The blocked shape of a rows x cols matrix in `space` (the dialect's
    layouts): Nz in L1, Zz in L0A, Zn in L0B, Nz of 16 x 16 fractals in L0C."""
    k0 = c0(element)
    if space == "l1":
        return [_ceil(cols, k0), _ceil(rows, FRACTAL_ROWS), FRACTAL_ROWS, k0]
    if space == "l0a":
        return [_ceil(rows, FRACTAL_ROWS), _ceil(cols, k0), FRACTAL_ROWS, k0]
    if space == "l0b":
        return [_ceil(rows, k0), _ceil(cols, FRACTAL_ROWS), FRACTAL_ROWS, k0]
    if space == "l0c":
        return [_ceil(cols, FRACTAL_ROWS), _ceil(rows, FRACTAL_ROWS), FRACTAL_ROWS, FRACTAL_ROWS]
    raise ValueError(f"{space} has no fractal layout")


def cube_buffer_type(tile_type: ir.Type) -> ir.MemRefType:
    """The on-chip buffer of a 2-D tile in a cube scope: its fractal shape in
    the Ascend memory space of the scope. The alloc lowering gives cube tiles
    this type; the cube lowerings build their views for it."""
    type_ = ir.MemRefType(tile_type)
    space = str(tile.scope_of(type_))
    rows, cols = type_.shape
    return ascend.memref_type(
        fractal_shape(space, rows, cols, type_.element_type), type_.element_type, space
    )


def with_space(type_: ir.Type, scope: str) -> ir.MemRefType:
    """`type_` with its memory space replaced by `#tile.scope<scope>`."""
    memref = ir.MemRefType(type_)
    return ir.MemRefType.get(
        memref.shape, memref.element_type, memref.layout, tile.scope_attr(scope)
    )


@dataclass
class _Tile:
    """What placement knows of one tile.alloc."""

    alloc: ir.Operation
    uses: list[tuple[ir.Operation, int]] = field(default_factory=list)
    """(op, operand number) of every use, through views."""
    views: list[ir.Operation] = field(default_factory=list)
    place: str | None = None
    relus: list[ir.Operation] = field(default_factory=list)
    """ReLU epilogues of an accumulator that its copies out do in the fixpipe."""
    mixed: bool = False
    """An accumulator that vector work reads: the kernel is a mix kernel."""
    through_ub: list[ir.Operation] = field(default_factory=list)
    """Copies of this accumulator into a cube tile, to go through UB."""
    staged_up: bool = False
    """A gemm operand that vector work writes: it lives in UB, and an L1 twin
    the gemms read is copied from it after each write (`_stage_up`)."""


def _users(value: ir.Value, found: _Tile) -> None:
    for use in value.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if owner.name in _VIEWS and use.operand_number == 0:
            found.views.append(owner)
            _users(owner.results[0], found)
        else:
            found.uses.append((owner, use.operand_number))


def _role(op: ir.Operation, number: int) -> str:
    """What one use asks of a tile: `l1`/`l0c` (a gemm operand), `copy`,
    `fill` (either core can), or `vector` (element-wise work)."""
    if op.name == "tile.gemm":
        return "l0c" if number == 2 else "l1"
    if op.name == "tile.copy":
        return "copy"
    if op.name in ("tile.fill", "tile.clear"):
        return "fill"
    return "vector"


def _kernel_of(op: ir.Operation) -> ir.Operation:
    return irb.enclosing(op, {"tile.kernel"}) or irb.enclosing(op, {"func.func"})


def copy_operands(copy: ir.Operation) -> list[list[ir.Value]]:
    """The operand groups of a tile.copy: [src], src offsets, [dst], dst offsets, [pad] or []."""
    counts = list(copy.attributes["operandSegmentSizes"])
    operands, groups, start = list(copy.operands), [], 0
    for count in counts:
        groups.append(operands[start : start + count])
        start += count
    return groups


def _copy_dst(copy: ir.Operation) -> ir.Value:
    return copy_operands(copy)[2][0]


def _is_whole_tile_copy(copy: ir.Operation, src: ir.Value, dst: ir.Value) -> bool:
    """A copy of every element of `src` onto the same position of `dst`."""
    src_type, dst_type = ir.MemRefType(src.type), ir.MemRefType(dst.type)
    _, src_offsets, _, dst_offsets, pad = copy_operands(copy)
    if src_type.shape != dst_type.shape or pad:
        return False
    if "sizes" in copy.attributes and list(copy.attributes["sizes"]) != src_type.shape:
        return False
    return all(irb.constant_int(o) == 0 for o in src_offsets + dst_offsets)


def _touches(op: ir.Operation, value: ir.Value) -> bool:
    if any(operand == value for operand in op.operands):
        return True
    return any(
        _touches(inner.operation, value)
        for region in op.regions
        for block in region.blocks
        for inner in block.operations
    )


@dataclass
class _Fold:
    """An epilogue tile to remove: `write` copies `source` (L0C) into it,
    `reads` copy it to global memory."""

    found: _Tile
    write: ir.Operation
    source: ir.Value
    reads: list[ir.Operation]


def _fold_of(found: _Tile, tiles: dict[ir.Value, _Tile]) -> _Fold | None:
    if found.views:
        return None
    value = found.alloc.results[0]
    writes = [op for op, n in found.uses if op.name == "tile.copy" and n != 0]
    reads = [op for op, n in found.uses if op.name == "tile.copy" and n == 0]
    if len(writes) != 1 or len(writes) + len(reads) != len(found.uses):
        return None
    write = writes[0]
    source = write.operands[0]
    owner = tiles.get(source)
    if owner is None or owner.place != "l0c" or not _is_whole_tile_copy(write, source, value):
        return None
    here = ir.MemRefType(value.type).element_type
    accumulator = ir.MemRefType(source.type).element_type
    for read in reads:
        out = _copy_dst(read)
        if _scope(out) is not tile.Scope.global_:
            return None
        # Storing the accumulator straight into the output rounds once; a
        # middle type unlike both would round twice.
        if here not in (accumulator, ir.MemRefType(out.type).element_type):
            return None
        if read.block != write.block or not write.is_before_in_block(read):
            return None
        between = list(write.block.operations)
        start = next(i for i, o in enumerate(between) if o.operation == write)
        stop = next(i for i, o in enumerate(between) if o.operation == read)
        if any(_touches(o.operation, source) for o in between[start + 1 : stop]):
            return None
    return _Fold(found, write, source, reads)


def _relu_of(op: ir.Operation, acc: ir.Value) -> ir.Operation | None:
    """The tile.parallel around `op` when it is `acc[i, j] = max(acc[i, j], 0)`
    over all of `acc` and nothing else (the fixpipe's relu), else None."""
    region = op.parent
    if region is None or region.name != "tile.parallel":
        return None
    region = region.operation if hasattr(region, "operation") else region
    parts = _rectified(region)
    return region if parts is not None and parts[0] == acc and parts[1] == acc else None


def _rectified(region: ir.Operation) -> tuple[ir.Value, ir.Value] | None:
    """(src, dst) when the tile.parallel `region` is `dst[i, j] = max(src[i, j], 0)`
    over all of src and dst and nothing else, else None."""
    body = region.regions[0].blocks[0]
    ivs = list(body.arguments)
    ops = [o.operation for o in body.operations if o.operation.name not in _RELU_FREE]
    names = [o.name for o in ops]
    if len(ops) != 3 or names[0] != "memref.load" or names[2] != "memref.store":
        return None
    load, top, store = ops
    if top.name not in ("arith.maximumf", "arith.maxnumf"):
        return None
    src, dst = load.operands[0], store.operands[1]
    extents = list(region.attributes["extents"])
    if any(extents != list(ir.MemRefType(v.type).shape) for v in (src, dst)):
        return None
    if list(load.operands) != [src, *ivs] or list(store.operands) != [top.results[0], dst, *ivs]:
        return None
    operands = list(top.operands)
    if load.results[0] not in operands:
        return None
    other = operands[1] if operands[0] == load.results[0] else operands[0]
    return (src, dst) if is_zero_constant(other) else None


def _fold_rectified_copies(func: ir.Operation) -> None:
    """`T.copy(acc, C, enable_relu=True)` traces as `r = max(acc, 0)` into a tile of its
    own that is then copied to global memory: those copies read the accumulator with
    the fixpipe's ReLU (`ascend.relu`) instead, and the tile and its region go, so the
    kernel stays on the cube (an expert kernel's `T.Scope("C")` must)."""
    accumulators = [gemm.operands[2] for gemm in irb.collect(func, "tile.gemm")]
    for region in irb.collect(func, "tile.parallel"):
        parts = _rectified(region)
        if parts is None or parts[0] == parts[1] or parts[0] not in accumulators:
            continue
        acc, out = parts
        owner = out.owner
        if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "tile.alloc":
            continue
        drop_unit_dim_views(out)  # the copies out read the tile itself
        later = _later_in_block(region)
        copies = [c for c in map(irb.use_owner, out.uses) if not _in([region], _parallel_of(c))]
        if not all(c.name == "tile.copy" and c.operands[0] == out
                   and _scope(_copy_dst(c)) is tile.Scope.global_ and _in(later, c)
                   and not any(_touches(o, acc) for o in later[:later.index(c)])
                   for c in copies):
            continue
        for copy in copies:
            copy.replace_uses_of_with(out, acc)
            copy.attributes[RELU] = ir.UnitAttr.get()
        region.erase()
        owner.operation.erase()


def _later_in_block(op: ir.Operation) -> list[ir.Operation]:
    ops = [o.operation for o in op.block.operations]
    return ops[next(i for i, o in enumerate(ops) if o == op) + 1 :]


def _relu_is_foldable(relu: ir.Operation, acc: ir.Value, folds: list[_Fold]) -> bool:
    """Whether the accumulator after `relu` is only read by copies out (the
    fixpipes that apply it) before it is cleared again."""
    folded = {fold.write: fold for fold in folds if fold.source == acc}
    readers = set()
    for later in _later_in_block(relu):
        if later in folded:
            readers.update(folded[later].reads)
            continue
        if later.name == "tile.copy" and later.operands[0] == acc:
            if _scope(_copy_dst(later)) is not tile.Scope.global_:
                return False
            continue
        if later not in readers and _touches(later, acc):
            return False
    parent = relu.parent
    if parent is not None and parent.name in ("tile.kernel", "func.func"):
        return True
    # In a loop, the next iteration must start with a clear of the accumulator.
    first = next((o.operation for o in relu.block.operations if _touches(o.operation, acc)), None)
    if first is None:
        return False
    return first.name == "tile.clear" or (
        first.name == "tile.gemm" and "clear_accum" in first.attributes
    )


def _place(tiles: dict[ir.Value, _Tile]) -> list[_Fold]:
    """Decides the place of every tile (analysis only); returns the epilogue
    tiles to fold. Raises PassFailure after reporting a mixed kernel."""
    for value, found in tiles.items():
        scope = tile.scope_of(ir.MemRefType(value.type))
        if scope not in _PORTABLE:
            found.place = str(scope)
            continue
        if any(op.name == "tile.gemm" and n == 2 for op, n in found.uses):
            for op, _ in found.uses:
                relu = _relu_of(op, value)
                if relu is not None and not _in(found.relus, relu):
                    found.relus.append(relu)
        roles = {_role(op, n) for op, n in found.uses if not _in(found.relus, _parallel_of(op))}
        if "l1" in roles and "l0c" in roles:
            op = next(op for op, n in found.uses if _role(op, n) == "l0c")
            raise emit_error(op, "a tile used as both an operand and the accumulator of tile.gemm "
                                 "has no place on the cube")
        cube = roles & {"l1", "l0c"}
        if cube == {"l0c"} and "vector" in roles:
            # Vector work on the accumulator: a mix kernel, split by
            # tile-ascend-split-cores (the tile goes through a GM workspace).
            found.mixed = True
        elif cube == {"l1"} and "vector" in roles and _gemms_read_it_whole(found, value):
            # Vector work writes a gemm operand (a tile filled element by element):
            # the tile is the vector cores', handed up to an L1 twin for the gemms.
            found.staged_up = found.mixed = True
            cube = set()
        elif cube and "vector" in roles:
            op = next(op for op, n in found.uses if _role(op, n) == "vector")
            what = "accumulator" if "l0c" in cube else "operand"
            raise emit_error(op, f"'{op.name}' works on a tile.gemm {what} on the vector cores: "
                                 f"the kernel {MIXED}")
        elif cube == {"l1"} and _copied_from_vector_work(found, value, tiles):
            # A copy hands a tile of the vector cores up to the gemms (dequantized
            # weights): a mix kernel, which tile-ascend-split-cores splits.
            found.mixed = True
        found.place = cube.pop() if cube else None
    folds = []
    for found in tiles.values():
        if found.place is None and found.staged_up:
            found.place = "ub"
        elif found.place is None:
            fold = _fold_of(found, tiles)
            if fold is not None:
                folds.append(fold)
                found.place = "folded"
            else:
                found.place = "ub"
    for value, found in tiles.items():
        for relu in list(found.relus):
            if found.mixed or not _relu_is_foldable(relu, value, folds):
                # Not the fixpipe's: the ReLU stays vector work of a mix kernel.
                found.relus.remove(relu)
                found.mixed = True
    _check_handoffs(tiles)
    _check_one_core_kind(tiles)
    return folds


def _check_handoffs(tiles: dict[ir.Value, _Tile]) -> None:
    """A mix kernel hands accumulators to the vector cores: one that vector
    work reads, or that is copied into a UB tile. An accumulator copied into
    a gemm operand (TileLang's `T.copy(acc_s, acc_s_cast)` for the next
    gemm) has no L0C -> L1 copy on tile IR, and vector work before it may
    have rewritten the tile (a softmax in place) where only the vector
    cores' copy has the new values: the copy goes through a UB tile of its
    own (`_through_ub`), which `tile-ascend-split-cores` hands down from
    L0C and back up to L1 as it does attention's P."""
    for found in tiles.values():
        if found.place != "l0c":
            continue
        for op, number in found.uses:
            dst = tiles.get(_copy_dst(op)) if op.name == "tile.copy" and number == 0 else None
            if dst is None:
                continue
            if dst.place == "ub":
                found.mixed = True
            elif dst.place in CUBE_SPACES:
                found.mixed = True
                found.through_ub.append(op)


def _through_ub(copy: ir.Operation) -> None:
    """`copy` (from an L0C tile into a cube tile) becomes a copy into a new
    UB tile shaped like its source and a copy of that tile on into the
    destination, with the same offsets on the L0C and cube sides."""
    (src,), src_offsets, (dst,), dst_offsets, _ = copy_operands(copy)
    type_ = ir.MemRefType(src.type)
    body = _kernel_of(copy).regions[0].blocks[0]
    with ir.InsertionPoint.at_block_begin(body), copy.location:
        staged = tile.alloc(tile.memref_type(type_.shape, type_.element_type, tile.Scope.ub))
        zeros = [irb.index(0) for _ in type_.shape]
    sizes = copy.attributes.get("sizes", None)
    with ir.InsertionPoint(copy), copy.location:
        tile.copy(src, src_offsets, staged, zeros, sizes=sizes)
        tile.copy(staged, zeros, dst, dst_offsets, sizes=sizes)
    copy.erase()


def _copied_from_vector_work(found: _Tile, value: ir.Value,
                             tiles: dict[ir.Value, _Tile]) -> bool:
    """Whether a whole-tile copy writes the tile from one that element-wise work uses
    (a tile of the vector cores)."""
    for op, _ in found.uses:
        if op.name != "tile.copy" or _copy_dst(op) != value:
            continue
        src = copy_operands(op)[0][0]
        source = tiles.get(src)
        if source is not None and _is_whole_tile_copy(op, src, value) and any(
                _role(use, n) == "vector" for use, n in source.uses):
            return True
    return False


def _gemms_read_it_whole(found: _Tile, value: ir.Value) -> bool:
    """Whether every gemm that uses the tile reads it as an operand, itself (no view)."""
    return all(op.operands[n] == value for op, n in found.uses if op.name == "tile.gemm")


def _writer_in_block(op: ir.Operation) -> ir.Operation:
    """The op a use inside a `tile.parallel` body belongs to: the outermost
    parallel around it (a store under an `if` in the body too: a copy of the
    whole tile there would run once per element)."""
    while (parallel := irb.enclosing(op, {"tile.parallel"})) is not None:
        op = parallel
    return op


def _stage_up(found: _Tile) -> None:
    """The tile (now UB) keeps its vector uses; the gemms read an L1 twin, which a
    whole-tile copy refreshes after every op that may write the tile (any use but a
    load or a copy out of it), as `tile-ascend-split-cores` hands attention's P up."""
    value = found.alloc.results[0]
    type_ = ir.MemRefType(value.type)
    with ir.InsertionPoint(found.alloc), found.alloc.location:
        twin = tile.alloc(tile.memref_type(type_.shape, type_.element_type, tile.Scope.l1))
        zeros = [irb.index(0) for _ in type_.shape]
    writers: list[ir.Operation] = []
    for op, number in found.uses:
        if op.name == "tile.gemm":
            op.operands[number] = twin
            continue
        if op.name == "memref.load" or (op.name == "tile.copy" and number == 0):
            continue
        writer = _writer_in_block(op)
        if not _in(writers, writer):
            writers.append(writer)
    for writer in writers:
        with ir.InsertionPoint.after(writer), writer.location:
            tile.copy(value, zeros, twin, zeros)


def _in(ops: list[ir.Operation], op: ir.Operation | None) -> bool:
    """`op in ops` (an Operation does not compare with None)."""
    return op is not None and any(o == op for o in ops)


def _parallel_of(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    if parent is None or parent.name != "tile.parallel":
        return None
    return parent.operation if hasattr(parent, "operation") else parent


def _check_one_core_kind(tiles: dict[ir.Value, _Tile]) -> None:
    kernels: dict[ir.Operation, dict[str, _Tile]] = {}
    # An expert kernel's T.Scope regions say which core runs what (split-scopes).
    mixed = [_kernel_of(found.alloc) for found in tiles.values()
             if found.mixed or scopes_of(_kernel_of(found.alloc))]
    for found in tiles.values():
        if _in(mixed, _kernel_of(found.alloc)):
            continue
        kind = "cube" if found.place in CUBE_SPACES else "vector" if found.place == "ub" else None
        if kind is not None:
            kernels.setdefault(_kernel_of(found.alloc), {}).setdefault(kind, found)
    for kinds in kernels.values():
        if len(kinds) == 2:
            vector = kinds["vector"]
            op = vector.uses[0][0] if vector.uses else vector.alloc
            raise emit_error(op, f"'{op.name}' needs a vector core (its tile lives in ub) but the "
                                 f"kernel also runs tile.gemm on the cube: it {MIXED}")


def _rewrite(tiles: dict[ir.Value, _Tile], folds: list[_Fold]) -> None:
    for fold in folds:
        value = fold.found.alloc.results[0]
        for read in fold.reads:
            read.replace_uses_of_with(value, fold.source)
        fold.write.erase()
        fold.found.alloc.erase()
    for value, found in tiles.items():
        for relu in found.relus:
            for later in _later_in_block(relu):
                if later.name == "tile.copy" and later.operands[0] == value:
                    later.attributes[RELU] = ir.UnitAttr.get()
            relu.erase()
    for found in tiles.values():
        for copy in found.through_ub:
            _through_ub(copy)
        if found.staged_up:
            _stage_up(found)
    for value, found in tiles.items():
        if found.place in ON_CHIP_SPACES and found.views:
            drop_unit_dim_views(value)
            remaining = _Tile(found.alloc)
            _users(value, remaining)
            found.views = remaining.views
    for value, found in tiles.items():
        if found.place in ON_CHIP_SPACES and str(_scope(value)) != found.place:
            value.set_type(with_space(value.type, found.place))
            for view in found.views:
                result = view.results[0]
                result.set_type(with_space(result.type, found.place))


@register_pass
@dataclass(frozen=True)
class AscendPlaceTilesPass(Pass):
    """Places every tile in L1, L0C or UB from how it is used."""

    argument = "tile-ascend-place-tiles"
    anchor = "func.func"
    summary = "Place tiles in Ascend buffers (L1, L0C, UB) from how they are used"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            rewrite_fresh_accumulators(op, {o: i for i, o in enumerate(irb.pre_order(op))})
            _fold_rectified_copies(op)
            # Uses in program order, so errors point at the first offending op.
            order = {o: i for i, o in enumerate(irb.pre_order(op))}
            tiles: dict[ir.Value, _Tile] = {}
            for alloc in irb.collect(op, "tile.alloc"):
                found = _Tile(alloc)
                _users(alloc.results[0], found)
                found.uses.sort(key=lambda use: order[use[0]])
                tiles[alloc.results[0]] = found
            folds = _place(tiles)
            _rewrite(tiles, folds)
