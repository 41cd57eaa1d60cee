"""The ascend vector lowering of tile.parallel: vector ops over whole UB tiles.

The body is scalar code for one point of the index space; on the vector
unit every value that depends on the point becomes a UB tile of the
region's shape and every op on such values one vector instruction over the
whole tile (`ascend.vbin`, `vbins` with a scalar operand, `vunary`,
`vcast`, `vcmp` + `vsel`). Values that do not depend on the point (loop
counters, scalars) stay scalar code in front of the region. A load whose
indices are the point's coordinates plus offsets is a view of the tile
(`memref.subview`, no copy) or, from global memory, a DMA into a temporary
(zero outside the tensor); a row or column vector used across the other
coordinates is broadcast (`ascend.vbrcb` for a per-row value, copies for a
per-column one). A store writes the tile, or the value is computed straight
into it when nothing later reads the old contents; to global memory it is a
DMA, which drops what falls outside the tensor; a scalar `tile.atomic_add`
into GM at the point's coordinates (a split-K GEMM's epilogue) is such a
store that adds: one atomic DMA of the region (`SetAtomicAdd`), where a
scalar loop would make one DMA per element. An element-wise op (vbin,
vbins, vunary) whose operand's scratch tile dies with it writes that tile in
place, and a select of two scalars duplicates the second into its
destination, so a chain costs one temporary, not one per link (what lets
attention's 128x128 tiles fit the UB). Coordinates used as numbers
(`t * 128 + j < N`) come from an i32 iota made once per function (per AIV
region of a mix kernel). `math.exp2` is `exp` of the value times ln 2 (the
vector unit has no exp2; `exp2(x * c)` is `exp(x * (c ln 2))`, one multiply
of the tile rather than two), and an and/or of masks that only selects use
becomes nested selects (the vector unit has no logic on masks), as
attention's causal and sequence-end mask needs. An `arith.bitcast` between
types of one width reads the same UB bytes as the other type (`byte_views`):
the tile of its operand is a view of a byte buffer, and its result another
(a loaded user tile is first copied into one), which is how the 910b decodes
fp8 with integer vector code (tile-ascend-widen-fp8).

A compare of a coordinate plus uniform terms (`q0 + i >= k0 + j`) that one
scalar test in front of the region can show holds at every point
(`decided_compares.holds_everywhere`) versions the region: an `scf.if` runs
a copy with the compare folded to true where the test passes (for a causal
mask applied to the scores, no work at all below the diagonal) and the
full region elsewhere. A 2-D region whose coordinates become large index
tiles runs in strips of rows (`_strip_rows`), each a region of its own, so
its temporaries are a strip's size: a 64x128 mask needs 512-byte ones
rather than 32 KiB ones.

A body the vector unit cannot express (loads at data-dependent indices,
gathers, `scf` control flow, ops without a vector form) is lowered as it is
on the cpu: a loop nest of scalar loads and stores that the S pipe runs;
global accesses in it must already be guarded (`tile-guard-accesses`).

Before:

    tile.parallel (%i, %j) in (16, 128) {
      %x = memref.load %x_tile[%i, %j] : memref<16x128xf32, #tile.scope<ub>>
      %m = memref.load %row_max[%i] : memref<16xf32, #tile.scope<ub>>
      %d = arith.subf %x, %m : f32
      %e = math.exp %d : f32
      memref.store %e, %x_tile[%i, %j] : memref<16x128xf32, #tile.scope<ub>>
    }

After:

    ascend.vbrcb %wide, %row_max : memref<16x128xf32, ...>, memref<16xf32, ...>
    ascend.vbin sub %x_tile, %x_tile, %wide : memref<16x128xf32, #tile.scope<ub>>
    ascend.vunary exp %x_tile, %x_tile : memref<16x128xf32, #tile.scope<ub>>
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, memref, scf
from mlir.dialects import math as math_dialect

from tilec.dialects import ascend
from tilec.dialects import tile as tile_dialect
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.lowering import Phase, TileOpLowering, register_lowering
from tilec.passes.conversion.tile_to_ascend.analysis.decided_compares import (
    fold_decided_compares,
    holds_everywhere,
    uniform_compares,
)
from tilec.passes.conversion.tile_to_ascend.ops import (
    buffers,
    byte_views,
)
from tilec.passes.conversion.tile_to_ascend.ops.vector_atomic_add import atomic_add_supported
from tilec.passes.conversion.tile_to_ascend.ops.vector_copy import at_copy_rank
from tilec.passes.conversion.tile_to_ascend.plan_memory import buffer_bytes
from tilec.targets import TargetDescription
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.call_dtypes import (
    VBIN,
    VBINS,
    VUNARY,
    duplicate_problem,
    vector_call_problem,
)
from tilec.targets.ascend.profiles import get_profile

_VBIN = ascend.VBinKind
_BINARY = {
    "arith.addf": _VBIN.add, "arith.subf": _VBIN.sub, "arith.mulf": _VBIN.mul,
    "arith.divf": _VBIN.div, "arith.maximumf": _VBIN.max, "arith.minimumf": _VBIN.min,
    "arith.maxnumf": _VBIN.max, "arith.minnumf": _VBIN.min, "arith.addi": _VBIN.add,
    "arith.subi": _VBIN.sub, "arith.muli": _VBIN.mul, "arith.divsi": _VBIN.div,
    "arith.maxsi": _VBIN.max, "arith.minsi": _VBIN.min,
}  # fmt: skip
# Binary kinds with a scalar form, which commute.
_WITH_SCALAR = {
    _VBIN.add: ascend.VBinsKind.adds, _VBIN.mul: ascend.VBinsKind.muls,
    _VBIN.max: ascend.VBinsKind.maxs, _VBIN.min: ascend.VBinsKind.mins,
}  # fmt: skip
_UNARY = {
    "arith.negf": ascend.VUnaryKind.neg, "math.exp": ascend.VUnaryKind.exp,
    "math.log": ascend.VUnaryKind.ln, "math.absf": ascend.VUnaryKind.abs,
    "math.absi": ascend.VUnaryKind.abs, "math.sqrt": ascend.VUnaryKind.sqrt,
    "math.rsqrt": ascend.VUnaryKind.rsqrt,
}  # fmt: skip
# A scalar operand of a subtraction is added negated.
_SCALAR_SUB = {_VBIN.sub: ascend.VBinsKind.adds}
_CALLS = {"math.exp2": ("Muls", "Exp"), "math.fma": ("Mul", "Add", "Adds"), "arith.negf": ("Muls",),
          **{name: (VUNARY[str(kind)],) for name, kind in _UNARY.items()}}
"""The AscendC calls of the ops that are not one vbin (or its scalar form)."""
_LOGIC = ("arith.andi", "arith.ori")
_CASTS = {
    "arith.extf",
    "arith.truncf",
    "arith.sitofp",
    "arith.fptosi",
    "arith.extsi",
    "arith.trunci",
    "arith.index_cast",
}
_CMP = ascend.CmpKind
_CMPF = {
    arith.CmpFPredicate.OLT: _CMP.lt,
    arith.CmpFPredicate.OLE: _CMP.le,
    arith.CmpFPredicate.OGT: _CMP.gt,
    arith.CmpFPredicate.OGE: _CMP.ge,
    arith.CmpFPredicate.OEQ: _CMP.eq,
    arith.CmpFPredicate.UNE: _CMP.ne,
}
_CMPI = {
    arith.CmpIPredicate.slt: _CMP.lt,
    arith.CmpIPredicate.sle: _CMP.le,
    arith.CmpIPredicate.sgt: _CMP.gt,
    arith.CmpIPredicate.sge: _CMP.ge,
    arith.CmpIPredicate.eq: _CMP.eq,
    arith.CmpIPredicate.ne: _CMP.ne,
}
_WRITES = ("memref.store", "tile.atomic_add")
"""The body's writes: a scalar atomic add at the point's coordinates is a store that adds."""
_INDEX_ELEMENT = 32
"""Coordinates used as numbers are i32 tiles."""


@dataclass(frozen=True)
class _Coordinate:
    """A coordinate of the point plus a uniform offset: `iv[dim] + offset`."""

    dim: int
    offsets: tuple[ir.Value, ...] = ()


@dataclass(frozen=True)
class _Access:
    """How a load or store indexes its buffer: per buffer dim, a coordinate
    or a uniform index; `dims` are the point's dims it follows, in order."""

    buffer: ir.Value
    indices: list[_Coordinate | ir.Value]

    @property
    def dims(self) -> list[int]:
        return [i.dim for i in self.indices if isinstance(i, _Coordinate)]


def _index_element() -> ir.Type:
    return ir.IntegerType.get_signless(_INDEX_ELEMENT)


def _tile_element(type_: ir.Type) -> ir.Type:
    return _index_element() if isinstance(type_, ir.IndexType) else type_


class _Analysis:
    """Which values of a parallel body depend on the point, and whether each
    op has a vector form; `problem` is why not when one has none."""

    def __init__(self, op: ir.Operation, profile: str):
        self.op = op
        self.profile = profile
        """The profile whose vector calls (`call_dtypes`) must take the body's types."""
        body = op.regions[0].blocks[0]
        self.extents = list(ir.DenseI64ArrayAttr(op.attributes["extents"]))
        self.ops = [o.operation for o in list(body.operations)[:-1]]
        self.coordinates: dict[ir.Value, _Coordinate] = {
            arg: _Coordinate(d) for d, arg in enumerate(body.arguments)
        }
        self.tiles: set[ir.Value] = set(body.arguments)
        self.accesses: dict[ir.Operation, _Access] = {}
        self.stored: set[ir.Value] = set()
        self.problem: str | None = None
        for inner in self.ops:
            if inner.name in _WRITES:
                self.stored.add(inner.operands[1])
        for inner in self.ops:
            self.problem = self._visit(inner)
            if self.problem is not None:
                break

    def is_tile(self, value: ir.Value) -> bool:
        return value in self.tiles

    def _visit(self, op: ir.Operation) -> str | None:
        name = op.name
        if op.regions and any(r.blocks for r in op.regions):
            return f"'{name}' has regions"
        operands = list(op.operands)
        if name in ("memref.load", "memref.store"):
            return self._access(op)
        if name == "tile.atomic_add":
            return self._atomic_add(op)
        dependent = any(self.is_tile(v) for v in operands)
        if not dependent:
            if not (name.startswith(("arith.", "math.")) or name == "memref.dim"):
                return f"'{name}' is not pure scalar code"
            return None
        results = list(op.results)
        if name == "arith.addi":
            coordinate = self._coordinate_sum(operands)
            if coordinate is not None:
                self.coordinates[results[0]] = coordinate
                self.tiles.add(results[0])
                return None
        problem = self._tile_op(op, operands)
        if problem is None:
            self.tiles.update(results)
        return problem

    def _coordinate_sum(self, operands: list[ir.Value]) -> _Coordinate | None:
        a, b = operands
        if a in self.coordinates and not self.is_tile(b):
            c = self.coordinates[a]
            return _Coordinate(c.dim, (*c.offsets, b))
        if b in self.coordinates and not self.is_tile(a):
            c = self.coordinates[b]
            return _Coordinate(c.dim, (*c.offsets, a))
        return None

    def _tile_op(self, op: ir.Operation, operands: list[ir.Value]) -> str | None:
        name = op.name
        for value in operands:
            coordinate = self.coordinates.get(value)
            if coordinate is not None and not _broadcastable([coordinate.dim], len(self.extents)):
                return "a coordinate of an inner dimension used as a number"
        types = [v.type for v in (*operands, *op.results)]
        if name in _LOGIC and irb.is_bool(op.results[0].type):
            if _only_conditions(op.results[0]):
                return None
            return f"'{name}' of bools that is not only the condition of selects"
        if any(irb.is_bool(t) for t in types) and name not in (
            "arith.cmpf",
            "arith.cmpi",
            "arith.select",
        ):
            return f"'{name}' on bools has no vector form here"
        if name == "arith.select":
            if irb.is_bool(op.results[0].type):
                return "a select of bools has no vector form here"
            return self._calls_problem(op, ("Select",))
        if name in ("arith.cmpf", "arith.cmpi"):
            predicate = ir.IntegerAttr(op.attributes["predicate"]).value
            table = _CMPF if name == "arith.cmpf" else _CMPI
            if not any(int(k) == predicate for k in table):
                return f"'{name}' predicate {predicate} has no vector form"
            form = _compare_form(self.profile, operands[0].type)
            if form is None:
                return self._calls_problem(op, ("Compare",), _tile_element(operands[0].type))
            return None
        if name in _CASTS:
            return None
        if name == "arith.bitcast":
            if byte_views.reinterpretable(operands[0].type, op.results[0].type):
                return None
            return "a bitcast of a tile between element types of different widths"
        if name in _BINARY or name in _UNARY or name in ("math.fma", "math.exp2"):
            return self._calls_problem(op, _CALLS.get(name) or (
                VBIN[str(_BINARY[name])], *(VBINS[str(k)] for k in (
                    _WITH_SCALAR.get(_BINARY[name]), _SCALAR_SUB.get(_BINARY[name])) if k)))
        return f"'{name}' has no vector form"

    def _calls_problem(self, op: ir.Operation, calls: tuple[str, ...],
                       element: ir.Type | None = None) -> str | None:
        """Why the vector calls an op becomes (and the Duplicate that broadcasts a scalar
        operand) do not take its element type on this profile, or None."""
        element = _tile_element(op.results[0].type if element is None else element)
        name = str(element)
        count = math.prod(self.extents)
        for call in calls:
            problem = vector_call_problem(self.profile, call, name)
            if problem is not None:
                return problem
        return duplicate_problem(self.profile, name, count)

    def _atomic_add(self, op: ir.Operation) -> str | None:
        """A scalar atomic add into GM at the point's coordinates: a store that adds, one
        atomic DMA of the whole region (every point adds into its own element)."""
        value, buffer = op.operands[0], op.operands[1]
        if isinstance(value.type, ir.MemRefType):
            return "an atomic add of a tile at each point"
        if not buffers.is_global(buffer):
            return "an atomic add into an on-chip buffer"
        if not atomic_add_supported(ir.MemRefType(buffer.type).element_type):
            return "an atomic add of an element type the DMA does not add"
        return self._access(op)

    def _access(self, op: ir.Operation) -> str | None:
        is_store = op.name in _WRITES
        buffer, *indices = list(op.operands)[1:] if is_store else list(op.operands)
        if buffers.is_cube(buffer):
            return "an element access of a cube buffer"
        forms: list[_Coordinate | ir.Value] = []
        for index in indices:
            if index in self.coordinates:
                forms.append(self.coordinates[index])
            elif self.is_tile(index):
                return "an index that depends on the point other than by an offset"
            else:
                forms.append(index)
        access = _Access(buffer, forms)
        dims = access.dims
        if dims and isinstance(ir.MemRefType(buffer.type).element_type, ir.IndexType):
            return "an access of a tile of indices"
        if not dims:
            if is_store:
                return "a store of the same element from every point"
            if buffer in self.stored:
                return "a load of one element of a buffer the region stores to"
            return None
        if dims != sorted(set(dims)):
            return "an access that transposes the point's coordinates"
        if is_store and dims != list(range(len(self.extents))):
            return "a store that does not follow every coordinate of the point"
        if not _broadcastable(dims, len(self.extents)):
            return "a load broadcast along inner dimensions"
        self.accesses[op] = access
        if not is_store:
            self.tiles.add(op.results[0])
        return None


def _only_conditions(value: ir.Value) -> bool:
    """Whether every use of a bool is the condition of an arith.select, directly
    or through more ands and ors (which the selects then nest)."""
    for use in value.uses:
        owner = use.owner.operation if hasattr(use.owner, "operation") else use.owner
        if owner.name == "arith.select" and use.operand_number == 0:
            continue
        if owner.name in _LOGIC and _only_conditions(owner.results[0]):
            continue
        return False
    return True


def _broadcastable(dims: list[int], rank: int) -> bool:
    """Loads that follow a leading or a trailing run of the coordinates."""
    return dims == list(range(len(dims))) or dims == list(range(rank - len(dims), rank))


class _Emitter:
    """Builds the vector code of one parallel region in front of it."""

    def __init__(self, analysis: _Analysis):
        self.a = analysis
        self.op = analysis.op
        self.extents = analysis.extents
        self.scratch = buffers.Scratch(self.op)
        self.byte_scratch = byte_views.ByteScratch(self.op)
        self.values: dict[ir.Value, ir.Value] = {}
        """The UB tile (or view) holding each point-dependent value."""
        self.owned: set[ir.Value] = set()
        """Scratch tiles this region took (given back after their last use)."""
        self.aliases: dict[ir.Value, ir.Value] = {}
        """Loaded values that are views of a user tile: the tile."""
        self.transient: list[ir.Value] = []
        """Scratch tiles of one op's operands (scalars duplicated)."""
        self.in_place: set[ir.Operation] = set()
        """Stores whose value was computed straight into their tile."""
        self.last_use: dict[ir.Value, int] = {}
        for n, inner in enumerate(analysis.ops):
            for operand in inner.operands:
                self.last_use[operand] = n
        self.logic: dict[ir.Value, tuple[str, ir.Value, ir.Value]] = {}
        """Ands and ors of masks: the selects they are conditions of nest them."""
        for inner in reversed(analysis.ops):
            if inner.name in _LOGIC and irb.is_bool(inner.results[0].type):
                for operand in inner.operands:
                    self.last_use[operand] = max(self.last_use.get(operand, -1),
                                                 self.last_use.get(inner.results[0], -1))
            if inner.name == "arith.bitcast":  # a view of its operand's bytes
                operand = inner.operands[0]
                self.last_use[operand] = max(self.last_use.get(operand, -1),
                                             self.last_use.get(inner.results[0], -1))

    # -- tiles ---------------------------------------------------------------

    def _new(self, element: ir.Type, backed: bool = False) -> ir.Value:
        """A scratch tile this region owns; `backed`: one a bitcast can view."""
        if backed:
            buffer = self.byte_scratch.take(self.extents, _tile_element(element))
        else:
            buffer = self.scratch.take(self.extents, _tile_element(element))
        self.owned.add(buffer)
        return buffer

    def _release_dead(self, n: int) -> None:
        for value, tile in list(self.values.items()):
            if self.last_use.get(value, -1) <= n and tile in self.owned:
                del self.values[value]
                if tile not in self.values.values():
                    self.owned.discard(tile)
                    if byte_views.is_backed(tile):
                        self.byte_scratch.give_back(tile)
                    else:
                        self.scratch.give_back(tile)

    def tile_of(self, value: ir.Value) -> ir.Value:
        """The UB tile of a point-dependent value (a coordinate becomes an iota)."""
        if value not in self.values:
            self.values[value] = self._coordinate_tile(self.a.coordinates[value])
        return self.values[value]

    def operand(self, value: ir.Value, element: ir.Type) -> ir.Value:
        """`value` as a tile: point-dependent ones as they are, scalars duplicated."""
        if self.a.is_tile(value):
            return self.tile_of(value)
        tile = self.scratch.take(self.extents, _tile_element(element))
        self.transient.append(tile)
        ascend.vdup(tile, self._scalar(value, element))
        return tile

    def _scalar(self, value: ir.Value, element: ir.Type) -> ir.Value:
        if isinstance(value.type, ir.IndexType):
            return arith.index_cast(_tile_element(value.type), value)
        return value

    def _coordinate_tile(self, coordinate: _Coordinate) -> ir.Value:
        element = _index_element()
        tile = self._new(element)
        _broadcast(self._iota(coordinate.dim), [coordinate.dim], tile, self.extents)
        offset = None
        for term in coordinate.offsets:
            offset = term if offset is None else arith.addi(offset, term)
        if offset is not None:
            ascend.vbins(ascend.VBinsKind.adds, tile, tile, arith.index_cast(element, offset))
        return tile

    def _iota(self, dim: int) -> ir.Value:
        """`[0, 1, ..., extent)` in i32, written once per function (per AIV
        region of a mix kernel: the AIC has no UB) by the S pipe."""
        extent = self.extents[dim]
        type_ = buffers.ub_type([extent], _index_element())
        func = irb.enclosing(self.op, {"func.func"})
        region = irb.enclosing(self.op, {"scf.execute_region"})
        if region is not None and ascend_attr.CORE_REGION in region.attributes:
            func = region
        for inner in func.regions[0].blocks[0].operations:
            if (
                inner.name == "memref.alloc"
                and buffers.IOTA in inner.attributes
                and ir.IntegerAttr(inner.attributes[buffers.IOTA]).value == extent
            ):
                return inner.results[0]
        entry = func.regions[0].blocks[0]
        with ir.InsertionPoint.at_block_begin(entry), ir.Location.unknown():
            iota = memref.alloc(type_, [], [])
            iota.owner.attributes[buffers.IOTA] = ir.IntegerAttr.get(
                ir.IntegerType.get_signless(64), extent
            )
            with irb.loop(0, extent) as i:
                memref.store(arith.index_cast(_index_element(), i), iota, [i])
        return iota

    # -- ops -----------------------------------------------------------------

    def emit(self) -> None:
        for n, op in enumerate(self.a.ops):
            if op.name in _WRITES:
                self._store(op, n)
            elif op.name == "memref.load" and op in self.a.accesses:
                self._load(op)
            elif not any(self.a.is_tile(r) for r in op.results):
                op.move_before(self.op)
            elif op.results[0] not in self.a.coordinates:
                self._compute(op, n)
            for tile in self.transient:
                self.scratch.give_back(tile)
            self.transient.clear()
            self._release_dead(n)

    def _destination(self, op: ir.Operation, n: int) -> ir.Value:
        """Where `op`'s tile result goes: straight into the tile its only use
        stores it to when nothing after `op` reads that tile, else scratch."""
        result = op.results[0]
        uses = [u.owner.operation for u in result.uses]
        element = _tile_element(result.type)
        store = uses[0] if len(uses) == 1 else None
        if store is not None and store.name == "memref.store" and store in self.a.accesses:
            access = self.a.accesses[store]
            target = access.buffer
            if not buffers.is_global(target) and not self._read_after(target, n, store):
                view = self._view(access)
                self.values[result] = view
                self.in_place.add(store)
                return view
        if any(irb.use_owner(use).name == "arith.bitcast" for use in result.uses):
            tile = self._new(element, backed=True)
        else:
            tile = self._dead_operand(op, n) or self._new(element)
        self.values[result] = tile
        return tile

    def _dead_operand(self, op: ir.Operation, n: int) -> ir.Value | None:
        """A scratch tile of `op`'s operands that nothing reads after `op`, of
        the result's type, for an element-wise op to write in place (dst ==
        src is legal for vbin, vbins and vunary: each element is read before
        it is written); None for ops without that form or when none is free.
        A chain (sub, muls, exp) then needs one temporary, not one per link."""
        if op.name not in _BINARY and op.name not in _UNARY and op.name != "math.exp2":
            return None
        element = _tile_element(op.results[0].type)
        for operand in op.operands:
            tile = self.values.get(operand)
            if tile is None or tile not in self.owned or self.last_use.get(operand, -1) > n:
                continue
            type_ = ir.MemRefType(tile.type)
            if type_.shape != self.extents or type_.element_type != element:
                continue
            if any(t == tile and self.last_use.get(v, -1) > n for v, t in self.values.items()):
                continue  # another live value shares the tile (a cast to its own type)
            return tile
        return None

    def _read_after(self, buffer: ir.Value, n: int, store: ir.Operation) -> bool:
        """Whether some op after position `n` reads `buffer` (through a view
        or a load), other than `store`'s own write."""
        for inner in self.a.ops[n + 1 :]:
            if inner == store:
                continue
            if inner.name == "memref.load" and inner.operands[0] == buffer:
                return True
            if any(self._views(v, buffer) for v in inner.operands):
                return True
        return False

    def _region(self, access: _Access) -> tuple[list[ir.Value], list[int], list[int]]:
        """Offsets and sizes of the buffer region an access covers, and its unit dims."""
        offsets, sizes, drop = [], [], []
        for dim, index in enumerate(access.indices):
            if isinstance(index, _Coordinate):
                offset = irb.index(0)
                for term in index.offsets:
                    offset = irb.add(offset, term)
                offsets.append(offset)
                sizes.append(self.extents[index.dim])
            else:
                offsets.append(index)
                sizes.append(1)
                drop.append(dim)
        return offsets, sizes, drop

    def _views(self, value: ir.Value, buffer: ir.Value) -> bool:
        """Whether `value` is a loaded view of `buffer`."""
        tile = self.aliases.get(value)
        return tile is not None and tile == buffer

    def _view(self, access: _Access) -> ir.Value:
        offsets, sizes, drop = self._region(access)
        return buffers.view(access.buffer, offsets, sizes, drop)

    def _load(self, op: ir.Operation) -> None:
        access = self.a.accesses[op]
        dims = access.dims
        element = op.results[0].type
        result = op.results[0]
        if buffers.is_global(access.buffer):
            source = self.scratch.take([self.extents[d] for d in dims], element)
            offsets, sizes, _ = self._region(access)
            full = at_copy_rank(source, [irb.index(0)] * len(dims), sizes)
            ascend.copy(access.buffer, offsets, full.buffer, full.offsets, sizes)
            self.transient.append(source)
        else:
            source = self._view(access)
            if len(dims) < len(self.extents) and not _one_run(source):
                source = self._gathered(source, element)
        if len(dims) == len(self.extents):
            if source in self.transient:
                self.transient.remove(source)
                self.owned.add(source)
            else:
                self.aliases[result] = access.buffer
            self.values[result] = source
            return
        tile = self._new(element)
        _broadcast(source, dims, tile, self.extents)
        self.values[result] = tile

    def _gathered(self, view: ir.Value, element: ir.Type) -> ir.Value:
        """The elements of a strided `view` (a column of a wider tile) in a scratch tile of
        their own, copied on the scalar unit: Brcb and the copies that broadcast read their
        source as one run of elements (kernel_operator_vec_brcb_intf.h: 8 consecutive
        elements a repeat)."""
        shape = list(ir.MemRefType(view.type).shape)
        tile = self.scratch.take(shape, element)
        self.transient.append(tile)
        with irb.loop_nest(shape) as ivs:
            memref.store(memref.load(view, ivs), tile, ivs)
        return tile

    def _store(self, op: ir.Operation, n: int) -> None:
        if op in self.in_place:
            return
        value = op.operands[0]
        access = self.a.accesses[op]
        self._protect_aliases(access.buffer, n)
        zeros = [irb.index(0)] * len(self.extents)
        if buffers.is_global(access.buffer):
            source = self.operand(value, value.type)
            offsets, sizes, _ = self._region(access)
            full = at_copy_rank(source, zeros, sizes)
            ascend.copy(full.buffer, full.offsets, access.buffer, offsets, sizes,
                        atomic_add=op.name == "tile.atomic_add")
            return
        target = self._view(access)
        if not self.a.is_tile(value):
            ascend.vdup(target, value)
            return
        ascend.copy(self.tile_of(value), zeros, target, zeros, self.extents)

    def _protect_aliases(self, buffer: ir.Value, n: int) -> None:
        """Copies the loaded views of `buffer` that are still needed after a
        store at position `n` overwrites it."""
        for value, tile in list(self.values.items()):
            if self._views(value, buffer) and self.last_use.get(value, -1) > n:
                copy = self._new(ir.MemRefType(tile.type).element_type)
                zeros = [irb.index(0)] * len(self.extents)
                ascend.copy(tile, zeros, copy, zeros, self.extents)
                self.values[value] = copy
                del self.aliases[value]

    def _compute(self, op: ir.Operation, n: int) -> None:
        name = op.name
        operands = list(op.operands)
        result = op.results[0]
        element = _tile_element(result.type)
        if name in ("arith.cmpf", "arith.cmpi"):
            compare_element = _tile_element(operands[0].type)
            a = self.operand(operands[0], compare_element)
            b = self.operand(operands[1], compare_element)
            predicate = ir.IntegerAttr(op.attributes["predicate"]).value
            table = _CMPF if name == "arith.cmpf" else _CMPI
            kind = next(v for k, v in table.items() if int(k) == predicate)
            form = _compare_form(self.a.profile, operands[0].type)
            if form == _BY_DIFFERENCE:
                a, b = self._difference_and_zero(a, b)
            elif form is not None:
                a, b = self._widened(a, form), self._widened(b, form)
            ascend.vcmp(kind, self._destination(op, n), a, b)
            return
        if name in _LOGIC and irb.is_bool(result.type):
            self.logic[result] = (name, operands[0], operands[1])
            return
        if name == "arith.select":
            dst = self._destination(op, n)
            a = self.operand(operands[1], element)
            if self.a.is_tile(operands[1]) or self.a.is_tile(operands[2]):
                b = self.operand(operands[2], element)
            else:
                # Two scalars (attention's 0 and -inf): b is duplicated into
                # dst itself, which only the last vsel writes (dst == src is
                # legal, per element) after every vsel read it: a full
                # tile fewer. `a` is a fresh tile, so it cannot alias dst.
                b = dst
                ascend.vdup(dst, self._scalar(operands[2], element))
            self._select(dst, operands[0], a, b)
            return
        if name == "math.exp2":
            # 2^x = e^(x ln 2): the vector unit has exp only.
            dst = self._destination(op, n)
            ln2 = irb.constant(element, math.log(2.0))
            ascend.vbins(ascend.VBinsKind.muls, dst, self.tile_of(operands[0]), ln2)
            ascend.vunary(ascend.VUnaryKind.exp, dst, dst)
            return
        if name in _UNARY:
            ascend.vunary(_UNARY[name], self._destination(op, n), self.tile_of(operands[0]))
            return
        if name in _CASTS:
            source = self.tile_of(operands[0])
            if ir.MemRefType(source.type).element_type == element:
                self.values[result] = source
                return
            buffers.cast(self._destination(op, n), source, self.scratch)
            return
        if name == "arith.bitcast":
            self.values[result] = self._reinterpreted(self.tile_of(operands[0]), element)
            return
        if name == "math.fma":
            product = self.scratch.take(self.extents, element)
            self.transient.append(product)
            self._binary(_VBIN.mul, product, operands[0], operands[1], element)
            sum_ = self._destination(op, n)
            self._binary_tiles(_VBIN.add, sum_, product, operands[2], element)
            return
        self._binary(_BINARY[name], self._destination(op, n), operands[0], operands[1], element)

    def _reinterpreted(self, tile: ir.Value, element: ir.Type) -> ir.Value:
        """`tile`'s bytes as `element`: a view where they are byte-backed, else a view of
        a byte-backed copy (a user's tile, loaded: one V-pipe copy)."""
        view = byte_views.reinterpreted(tile, element)
        if view is not None:
            return view
        copy = self.byte_scratch.take(self.extents, ir.MemRefType(tile.type).element_type)
        zeros = [irb.index(0)] * len(self.extents)
        ascend.copy(tile, zeros, copy, zeros, self.extents)
        view = byte_views.reinterpreted(copy, element)
        self.owned.add(view)
        return view

    def _widened(self, tile: ir.Value, element: ir.Type) -> ir.Value:
        wide = self.scratch.take(self.extents, element)
        buffers.cast(wide, tile, self.scratch)
        self.transient.append(wide)
        return wide

    def _difference_and_zero(self, a: ir.Value, b: ir.Value) -> tuple[ir.Value, ir.Value]:
        """a - b in i32, converted to f32, and an f32 zero tile: compared instead of a
        and b on a profile whose Compare takes no i32 (`_compare_form`)."""
        difference = self.scratch.take(self.extents, _index_element())
        ascend.vbin(_VBIN.sub, difference, a, b)
        f32 = ir.F32Type.get()
        wide = self.scratch.take(self.extents, f32)
        buffers.cast(wide, difference, self.scratch)
        zero = self.scratch.take(self.extents, f32)
        ascend.vdup(zero, irb.zero(f32))
        self.transient.extend((difference, wide, zero))
        return wide, zero

    def _select(self, dst: ir.Value, condition: ir.Value, a: ir.Value, b: ir.Value) -> None:
        """`dst = condition ? a : b`; an and or an or of masks as nested selects."""
        logic = self.logic.get(condition)
        if logic is None:
            ascend.vsel(dst, self.operand(condition, irb.i1()), a, b)
            return
        name, first, second = logic
        inner = self.scratch.take(self.extents, ir.MemRefType(dst.type).element_type)
        self.transient.append(inner)
        self._select(inner, second, a, b)
        if name == "arith.andi":
            self._select(dst, first, inner, b)  # first && second ? a : b
        else:
            self._select(dst, first, a, inner)  # first || second ? a : b

    def _binary(self, kind, dst: ir.Value, a: ir.Value, b: ir.Value, element: ir.Type) -> None:
        a_tile, b_tile = self.a.is_tile(a), self.a.is_tile(b)
        scalar_kind = _WITH_SCALAR.get(kind)
        if a_tile and not b_tile and scalar_kind is not None:
            ascend.vbins(scalar_kind, dst, self.tile_of(a), self._scalar(b, element))
        elif b_tile and not a_tile and scalar_kind is not None:
            ascend.vbins(scalar_kind, dst, self.tile_of(b), self._scalar(a, element))
        elif a_tile and not b_tile and kind == _VBIN.sub:
            negated = _negate(self._scalar(b, element))
            ascend.vbins(ascend.VBinsKind.adds, dst, self.tile_of(a), negated)
        else:
            ascend.vbin(kind, dst, self.operand(a, element), self.operand(b, element))

    def _binary_tiles(self, kind, dst: ir.Value, a: ir.Value, b: ir.Value, element) -> None:
        if self.a.is_tile(b):
            ascend.vbin(kind, dst, a, self.tile_of(b))
        else:
            ascend.vbins(_WITH_SCALAR[kind], dst, a, self._scalar(b, element))


_BY_DIFFERENCE = "difference"
_EXACT_WIDENING = {"i8": "f16", "ui8": "f16", "i16": "f32"}
"""Integers every value of which the float type holds exactly (Cast takes these pairs
on every profile: dav_c220/kernel_operator_vec_vconv_impl.h L970-990)."""


def _compare_form(profile: str, operand: ir.Type) -> str | ir.Type | None:
    """How a compare of `operand` values runs where Compare does not take their type
    (the 910b's takes f16 and f32 only, `call_dtypes`): index values (i32 tiles) as the
    sign of their difference in f32, exact while the difference fits in i32, which the
    i32 coordinates already assume (a nonzero integer never rounds to zero or changes
    sign as an f32); 8- and 16-bit integers in the float type that holds them exactly.
    None: directly, or not at all (other i32 values, whose difference could overflow,
    stay scalar code)."""
    element = str(_tile_element(operand))
    if vector_call_problem(profile, "Compare", element) is None:
        return None
    if isinstance(operand, ir.IndexType) and vector_call_problem(profile, "Compare", "f32") \
            is None:
        return _BY_DIFFERENCE
    wide = _EXACT_WIDENING.get(element)
    if wide is not None and vector_call_problem(profile, "Compare", wide) is None:
        return ir.F16Type.get() if wide == "f16" else ir.F32Type.get()
    return None


def _negate(value: ir.Value) -> ir.Value:
    if irb.is_float(value.type):
        return arith.negf(value)
    return arith.subi(irb.zero(value.type), value)


def _broadcast(source: ir.Value, dims: list[int], tile: ir.Value, extents: list[int]) -> None:
    """`tile[p] = source[p[dims]]` for a leading or trailing run `dims`."""
    rank = len(extents)
    zero = irb.index(0)
    if len(dims) == rank:
        # Nothing to broadcast (a 1-D iteration's coordinate): a copy, since the
        # tile is written on afterwards and `source` may be the shared iota.
        ascend.copy(source, [zero] * rank, tile, [zero] * rank, extents)
        return
    if dims == list(range(len(dims))):
        wide = _collapsed(tile, [list(range(len(dims))), list(range(len(dims), rank))])
        narrow = _collapsed(source, [list(range(len(dims)))])
        ascend.vbrcb(wide, narrow)
        return
    outer = math.prod(extents[: rank - len(dims)])
    inner = math.prod(extents[rank - len(dims) :])
    rows = _collapsed(tile, [list(range(rank - len(dims))), list(range(rank - len(dims), rank))])
    row = _collapsed(source, [list(range(len(dims)))])
    ascend.copy(row, [zero], buffers.view(rows, [0, 0], [1, inner], (0,)), [zero], [inner])
    filled = 1
    while filled < outer:
        count = min(filled, outer - filled)
        ascend.copy(rows, [zero, zero], rows, [irb.index(filled), zero], [count, inner])
        filled += count


def _one_run(view: ir.Value) -> bool:
    """Whether the elements of `view` are consecutive in its buffer."""
    type_ = ir.MemRefType(view.type)
    strides, _ = type_.get_strides_and_offset()
    expected = 1
    for size, stride in zip(reversed(type_.shape), reversed(strides), strict=True):
        if size != 1 and stride != expected:
            return False
        expected *= size
    return True


def _collapsed(buffer: ir.Value, groups: list[list[int]]) -> ir.Value:
    """`buffer` with each group of dims merged (itself when nothing merges)."""
    type_ = ir.MemRefType(buffer.type)
    if all(len(g) == 1 for g in groups):
        return buffer
    shape = [math.prod(type_.shape[d] for d in g) for g in groups]
    i64 = ir.IntegerType.get_signless(64)
    reassociation = ir.ArrayAttr.get(
        [ir.ArrayAttr.get([ir.IntegerAttr.get(i64, d) for d in g]) for g in groups]
    )
    result = ir.MemRefType.get(shape, type_.element_type, None, type_.memory_space)
    return memref.collapse_shape(result, buffer, reassociation)


@register_lowering
class ParallelToVectorOps(TileOpLowering[_Analysis | None, AscendTarget]):
    """tile.parallel as vector ops over UB tiles, or scalar loops when its body
    has no vector form."""

    target = "ascend"
    op_names = ("tile.parallel",)
    name = "ascend-vector-parallel"
    phase = Phase.REGIONS

    def infer(self, op: ir.Operation, target: AscendTarget) -> _Analysis | None:
        """The region's analysis, None when it has no vector form (scalar loops)."""
        analysis = _Analysis(op, target.variant)
        return None if analysis.problem is not None else analysis

    def lower(self, op: ir.Operation, plan: _Analysis | None, target: AscendTarget) -> None:
        folded = fold_decided_compares(op)
        if _fold_exp2_scales(op) or folded:  # fewer ops: the body is analysed again
            plan = self.infer(op, target)
        if plan is None:
            irb.parallel_as_loops(op)
            return
        _hoist_uniform_code(op)
        compares = uniform_compares(op)
        if not compares:
            _lower_region(op, target)
            return
        # Where one scalar test shows the compares hold at every point (a
        # causal mask's key tiles below the diagonal) a copy of the region
        # runs with them folded; the full region runs elsewhere.
        with ir.InsertionPoint(op), op.location:
            branch = scf.IfOp(holds_everywhere(op, compares), has_else=True)
            with ir.InsertionPoint(branch.then_block):
                everywhere = scf.YieldOp([])
            with ir.InsertionPoint(branch.else_block):
                somewhere = scf.YieldOp([])
        decided = op.clone(ip=ir.InsertionPoint(everywhere)).operation
        op.move_before(somewhere)
        fold_decided_compares(decided, [position for position, _, _ in compares])
        _fold_exp2_scales(decided)
        _lower_region(decided, target)
        _lower_region(op, target)


def _lower_region(op: ir.Operation, target: TargetDescription) -> None:
    """Vector ops for `op` (rows at a time when its coordinates become index
    tiles, `_strip_rows`), or scalar loops; erases it."""
    analysis = _Analysis(op, target.variant)
    if analysis.problem is not None:
        irb.parallel_as_loops(op)
        return
    rows = _strip_height(analysis)
    if rows:
        op = _strip_rows(op, rows)
        analysis = _Analysis(op, target.variant)
    with ir.InsertionPoint(op), op.location:
        _Emitter(analysis).emit()
    op.erase()


def _hoist_uniform_code(op: ir.Operation) -> None:
    """Moves the body's pure code that does not depend on the point in front
    of the region (where the emitter would put it), so tests of it can be
    built there."""
    body = op.regions[0].blocks[0]
    point = set(body.arguments)
    for inner in [o.operation for o in body.operations][:-1]:
        pure = inner.name.startswith(("arith.", "math.")) or inner.name == "memref.dim"
        if pure and not any(v in point for v in inner.operands):
            inner.move_before(op)
        else:
            point.update(inner.results)


_STRIP_ELEMENTS = 128
_INDEX_TEMPORARIES = 6
"""A region whose coordinates become index tiles runs in strips of at most
`_STRIP_ELEMENTS` elements (512 B of i32) when `_INDEX_TEMPORARIES` tiles of
its size (the coordinates, their difference, the compare's operands, the
select's constant) do not fit the UB beside the tiles the kernel holds:
attention's 128x128 tiles leave the 950's AIVs 3.5 KiB for them (the
910b's 12), where a 64x128 mask would take 192 KiB. Strips cost a vector
instruction's start-up per row, so a region that fits runs whole."""
_VIEW_STRIP_ELEMENTS = 256
"""A region with bitcasts (the 910b's fp8 decode, tile-ascend-widen-fp8: a dozen
temporaries, 15 bytes an element) that does not fit whole runs in strips of at most
this many elements: DeepGEMM's fp8_gemm_nt with per-column scales leaves the 910b's
AIVs 4 KiB beside its 64x128 tiles (512 elements would need 1.8 KiB more than the UB
has); a 64x128 operand whole would need 120 KiB."""


def _strip_height(analysis: _Analysis) -> int:
    """Rows per strip when the region's coordinates become index tiles, or it has
    bitcasts, and it does not fit whole: the most that fit `_STRIP_ELEMENTS` (or
    `_VIEW_STRIP_ELEMENTS`) and keep every view of a strip 32-byte aligned; 0 for no
    strips."""
    extents = analysis.extents
    if len(extents) != 2 or math.prod(extents) <= _STRIP_ELEMENTS:
        return 0
    numbers = any(v in analysis.coordinates for inner in analysis.ops
                  if inner.name not in ("memref.load", *_WRITES)
                  and inner.results[0] not in analysis.coordinates for v in inner.operands)
    views = any(inner.name == "arith.bitcast" for inner in analysis.ops)
    if not (numbers or views) or _fits_whole(analysis):
        return 0
    limit = _STRIP_ELEMENTS if numbers else _VIEW_STRIP_ELEMENTS
    steps = []  # the bytes one row of the region moves each access's view
    for access in analysis.accesses.values():
        type_ = ir.MemRefType(access.buffer.type)
        strides, _ = type_.get_strides_and_offset()
        for dim, index in enumerate(access.indices):
            if not isinstance(index, _Coordinate) or index.dim != 0:
                continue
            if strides[dim] == ir.ShapedType.get_dynamic_stride_or_offset():
                return 0
            steps.append(strides[dim] * irb.bit_width(type_.element_type) // 8)
    for rows in range(min(extents[0] - 1, limit // extents[1]), 0, -1):
        if extents[0] % rows == 0 and all(rows * step % buffers.BLOCK_BYTES == 0 for step in steps):
            return rows
    return 0


def _fits_whole(analysis: _Analysis) -> bool:
    """Whether `_INDEX_TEMPORARIES` i32 tiles of the region's shape fit the UB
    beside the buffers its core's kernel has so far (tiles, and the scratch of
    the regions lowered before, which may be live at once)."""
    owner = buffers.entry_block(analysis.op).owner
    held = 0
    for alloc in irb.collect(owner.operation, {"tile.alloc", "memref.alloc"}):
        type_ = ir.MemRefType(alloc.results[0].type)
        if type_.has_static_shape and buffers.memory_space(type_) is ascend.MemSpace.ub:
            held += buffer_bytes(type_)
    need = _INDEX_TEMPORARIES * math.prod(analysis.extents) * _INDEX_ELEMENT // 8
    return held + need <= get_profile(analysis.profile).usable_bytes("ub")


def _strip_rows(op: ir.Operation, rows: int) -> ir.Operation:
    """`op` as a loop over strips of `rows` rows, each a region of its own whose
    row coordinate is the strip's plus its own; the new region."""
    body = op.regions[0].blocks[0]
    extents = list(ir.DenseI64ArrayAttr(op.attributes["extents"]))
    with ir.InsertionPoint(op), op.location, irb.loop(0, extents[0], rows) as first:
        strip = tile_dialect.ParallelOp([rows, *extents[1:]])
        block = strip.regions[0].blocks.append(*[a.type for a in body.arguments])
        with ir.InsertionPoint(block):
            row = arith.addi(block.arguments[0], first)
            end = tile_dialect.YieldOp()
    body.arguments[0].replace_all_uses_with(row)
    for old, new in zip(list(body.arguments)[1:], list(block.arguments)[1:], strict=True):
        old.replace_all_uses_with(new)
    irb.move_body(body, end.operation)
    op.erase()
    return strip.operation


def _fold_exp2_scales(op: ir.Operation) -> bool:
    """`exp2(x * c)` with a scalar `c` as `exp(x * (c ln 2))`: one multiply of
    the tile instead of two (the vector unit has no exp2, see `_compute`);
    whether any changed. `c ln 2` is computed once in front of the region."""
    body = op.regions[0].blocks[0]
    inside = {o.operation for o in body.operations}
    changed = False
    for inner in [o.operation for o in body.operations]:
        if inner.name != "math.exp2":
            continue
        product = inner.operands[0]
        mul = product.owner.operation if isinstance(product, ir.OpResult) else None
        if mul is None or mul.name != "arith.mulf" or mul not in inside \
                or len(list(product.uses)) != 1:
            continue
        tiles = [v for v in mul.operands
                 if (isinstance(v, ir.BlockArgument) and v.owner == body)
                 or (isinstance(v, ir.OpResult) and v.owner.operation in inside)]
        if len(tiles) != 1:
            continue
        (tile_value,) = tiles
        scalar = next(v for v in mul.operands if v != tile_value)
        with ir.InsertionPoint(op), op.location:
            scaled = arith.mulf(scalar, irb.constant(scalar.type, math.log(2.0)))
        with ir.InsertionPoint(inner), inner.location:
            exp = math_dialect.exp(arith.mulf(tile_value, scaled))
        inner.results[0].replace_all_uses_with(exp)
        inner.erase()
        mul.erase()
        changed = True
    return changed
