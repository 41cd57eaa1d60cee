"""tile-guard-accesses: element loads and stores stay inside their tensor or tile.

`T.copy` pads reads past a tensor's edge and drops writes past it; this pass
gives every other element access (`memref.load`/`store` in `T.Parallel`,
`T.serial`, scalar code, gathers and scatters through indices loaded at run
time) the same meaning, on every target, whether it reads a global tensor or
a tile (`t[idx] = 7` with idx past the tile): a read outside gives 0, a write
outside is dropped.

Accesses whose indices are known inside by their ranges (constants, the
induction variables of `tile.parallel` regions and of `scf.for` loops with
constant bounds, and sums and constant multiples of those) need nothing: a
tile's `x[i, j]` in a `T.Parallel` over its shape is one. In a
`tile.parallel` region, an access whose every index is affine in the
region's induction variables (`bx * 64 + i`) is checked once for the whole
region: the region is versioned on "every such access of every iteration is
inside", and the fast copy has no per-element check, as interior tiles of a
copy have none. Every other access (data-dependent indices, accesses in
serial loops or outside a region) is guarded by itself.

Before:

    tile.parallel (%i) in (64) {
      %j = arith.addi %base, %i : index
      %x = memref.load %X[%j] : memref<?xf32>
      memref.store %x, %Y[%j] : memref<?xf32>
    }

After (schematically):

    %inside = <%base and %base + 63 are inside X and Y>
    scf.if %inside {
      tile.parallel (%i) in (64) { <the same loads and stores> }
    } else {
      tile.parallel (%i) in (64) {
        %ok = arith.cmpi ult, %j, %dim_x : index
        %x = scf.if %ok -> (f32) { memref.load ... } else { 0.0 }
        scf.if %ok2 { memref.store ... }
      }
    }
"""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir
from mlir.dialects import arith, memref, scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, register_pass

_ACCESSES = {"memref.load", "memref.store"}
_GUARDED = _ACCESSES | {"tile.atomic_add"}
# Index arithmetic that can be recomputed in front of a region. Divisions are
# not: in front of the region a zero divisor would trap where the region's
# own code may never divide.
_PURE_INDEX_OPS = {
    "arith.constant",
    "arith.addi",
    "arith.subi",
    "arith.muli",
    "arith.minsi",
    "arith.maxsi",
    "arith.index_cast",
    "memref.dim",
}


def _memref_and_indices(op: ir.Operation) -> tuple[ir.Value, list[ir.Value]]:
    operands = list(op.operands)
    start = 1 if op.name == "memref.store" else 0
    return operands[start], operands[start + 1 :]


def _needs_guard(op: ir.Operation) -> bool:
    if op.name == "tile.atomic_add":
        return isinstance(op.operands[1].type, ir.MemRefType)
    buffer, _ = _memref_and_indices(op)
    return isinstance(buffer.type, ir.MemRefType) and not _statically_inside(op)


def _statically_inside(op: ir.Operation) -> bool:
    buffer, indices = _memref_and_indices(op)
    shape = ir.MemRefType(buffer.type).shape
    for extent, index in zip(shape, indices, strict=True):
        bounds = _static_range(index)
        if ir.ShapedType.is_dynamic_size(extent) or bounds is None:
            return False
        if bounds[0] < 0 or bounds[1] >= extent:
            return False
    return True


def _static_range(value: ir.Value, depth: int = 0) -> tuple[int, int] | None:
    """The least and greatest value `value` takes, when the IR alone says so."""
    constant = irb.constant_int(value)
    if constant is not None:
        return constant, constant
    if depth > 16:
        return None
    owner = value.owner
    if isinstance(owner, ir.Block):
        return _induction_range(owner, value)
    owner = owner.operation
    if owner.name in ("arith.addi", "arith.subi"):
        a, b = (_static_range(v, depth + 1) for v in owner.operands)
        if a is None or b is None:
            return None
        if owner.name == "arith.addi":
            return a[0] + b[0], a[1] + b[1]
        return a[0] - b[1], a[1] - b[0]
    if owner.name == "arith.muli":
        a, b = (_static_range(v, depth + 1) for v in owner.operands)
        if a is None or b is None:
            return None
        products = [x * y for x in a for y in b]
        return min(products), max(products)
    return None


def _induction_range(block: ir.Block, value: ir.Value) -> tuple[int, int] | None:
    """The range of a `tile.parallel` or constant-bound `scf.for` induction variable."""
    parent = block.owner.operation
    position = list(block.arguments).index(value)
    if parent.name == "tile.parallel":
        extents = list(ir.DenseI64ArrayAttr(parent.attributes["extents"]))
        return (0, extents[position] - 1) if position < len(extents) else None
    if parent.name == "scf.for" and position == 0:
        low, high, step = (irb.constant_int(v) for v in list(parent.operands)[:3])
        if low is None or high is None or step is None or step <= 0 or high <= low:
            return None
        return low, low + (high - 1 - low) // step * step
    return None


def _defined_in(value: ir.Value, region_op: ir.Operation) -> bool:
    """Whether `value` is defined inside `region_op`'s regions."""
    owner = value.owner
    op = owner if isinstance(owner, ir.Operation | ir.OpView) else owner.owner
    while op is not None:
        op = op.operation
        if op == region_op:
            return True
        op = op.parent
    return False


@dataclass
class _Affine:
    """`constant + sum(coefficient * iv) + sum(base values)`, the bases
    computed from values that do not change inside the region."""

    constant: int = 0
    coefficients: dict[int, int] = field(default_factory=dict)
    bases: list[tuple[int, ir.Value]] = field(default_factory=list)

    def scaled(self, factor: int) -> _Affine:
        return _Affine(
            self.constant * factor,
            {k: c * factor for k, c in self.coefficients.items()},
            [(c * factor, v) for c, v in self.bases],
        )

    def plus(self, other: _Affine) -> _Affine:
        coefficients = dict(self.coefficients)
        for k, c in other.coefficients.items():
            coefficients[k] = coefficients.get(k, 0) + c
        return _Affine(self.constant + other.constant, coefficients, self.bases + other.bases)


class _Region:
    """One `tile.parallel` region: which index expressions are affine in its
    induction variables, and their bounds built in front of it."""

    def __init__(self, op: ir.Operation):
        self.op = op
        self.ivs = list(op.regions[0].blocks[0].arguments)
        self.extents = list(ir.DenseI64ArrayAttr(op.attributes["extents"]))
        self._hoisted: dict[ir.Value, ir.Value] = {}

    def invariant(self, value: ir.Value) -> bool:
        """Whether `value` can be recomputed in front of the region."""
        if not _defined_in(value, self.op):
            return True
        owner = value.owner
        if not isinstance(owner, ir.Operation | ir.OpView):
            return False  # a block argument of the region or of a loop in it
        owner = owner.operation
        return owner.name in _PURE_INDEX_OPS and all(self.invariant(v) for v in owner.operands)

    def affine(self, value: ir.Value) -> _Affine | None:
        for k, iv in enumerate(self.ivs):
            if value == iv:
                return _Affine(coefficients={k: 1})
        constant = irb.constant_int(value)
        if constant is not None:
            return _Affine(constant)
        if self.invariant(value):
            return _Affine(bases=[(1, value)])
        owner = value.owner
        if not isinstance(owner, ir.Operation | ir.OpView):
            return None
        owner = owner.operation
        if owner.name in ("arith.addi", "arith.subi"):
            a, b = (self.affine(v) for v in owner.operands)
            if a is None or b is None:
                return None
            return a.plus(b if owner.name == "arith.addi" else b.scaled(-1))
        if owner.name == "arith.muli":
            a, b = owner.operands
            for variable, factor in ((a, b), (b, a)):
                scale = irb.constant_int(factor)
                expression = self.affine(variable)
                if scale is not None and expression is not None:
                    return expression.scaled(scale)
        return None

    def hoist(self, value: ir.Value) -> ir.Value:
        """`value`, recomputed at the insertion point (in front of the region)."""
        if not _defined_in(value, self.op):
            return value
        if value not in self._hoisted:
            owner = value.owner.operation
            for operand in owner.operands:
                self.hoist(operand)
            clone = owner.clone()
            for i, operand in enumerate(owner.operands):
                clone.operands[i] = self._hoisted.get(operand, operand)
            self._hoisted[value] = clone.results[0]
        return self._hoisted[value]

    def bounds(self, expression: _Affine) -> tuple[ir.Value, ir.Value]:
        """The least and the greatest value of `expression` over the region."""
        low = high = expression.constant
        for k, c in expression.coefficients.items():
            end = c * (self.extents[k] - 1)
            low, high = low + min(0, end), high + max(0, end)
        base: ir.Value | None = None
        for coefficient, value in expression.bases:
            term = self.hoist(value)
            if coefficient != 1:
                term = arith.muli(term, irb.index(coefficient))
            base = term if base is None else arith.addi(base, term)
        if base is None:
            return irb.index(low), irb.index(high)
        return irb.add(base, low), irb.add(base, high)


def _inside(buffer: ir.Value, indices: list[ir.Value]) -> ir.Value:
    """Whether `indices` lie inside `buffer` (unsigned: negatives are out)."""
    inside: ir.Value | None = None
    for dim, position in enumerate(indices):
        check = arith.cmpi(arith.CmpIPredicate.ult, position, memref.dim(buffer, irb.index(dim)))
        inside = check if inside is None else arith.andi(inside, check)
    assert inside is not None
    return inside


class _Guards:
    """Guards accesses in program order and remembers, for each guarded load,
    whether it was inside: an index computed from a load that was outside
    (and so read 0) makes the access that uses it count as outside too."""

    def __init__(self) -> None:
        self._load_inside: dict[ir.Value, ir.Value] = {}

    def _feeding(self, values: list[ir.Value]) -> list[ir.Value]:
        """The inside-flags of the guarded loads that `values` are computed from."""
        found: list[ir.Value] = []
        pending, seen = list(values), set()
        while pending:
            value = pending.pop()
            if value in seen:
                continue
            seen.add(value)
            if value in self._load_inside:
                found.append(self._load_inside[value])
                continue
            owner = value.owner
            if isinstance(owner, ir.Operation | ir.OpView) and owner.name in _PURE_INDEX_OPS:
                pending.extend(owner.operands)
        return found

    def _condition(self, own: ir.Value | None, indices: list[ir.Value]) -> ir.Value | None:
        condition = own
        for flag in self._feeding(indices):
            condition = flag if condition is None else arith.andi(condition, flag)
        return condition

    def guard(self, op: ir.Operation) -> None:
        """Replaces one access by its checked form: a read outside gives 0, a
        write outside is dropped (tile.atomic_add drops writes past its
        destination itself; here only its indices' loads are checked)."""
        if op.name == "tile.atomic_add":
            buffer, indices, own = op.operands[1], list(op.operands)[2:], None
        else:
            buffer, indices = _memref_and_indices(op)
            own = None
        with ir.InsertionPoint(op), op.location:
            if op.name != "tile.atomic_add":
                own = _inside(buffer, indices)
            ok = self._condition(own, indices)
            if ok is None:
                return
            if not op.results:
                branch = scf.IfOp(ok)
                with ir.InsertionPoint(branch.then_block):
                    terminator = scf.YieldOp([])
                op.move_before(terminator)
                return
            result = op.results[0]
            branch = scf.IfOp(ok, [result.type], has_else=True)
            with ir.InsertionPoint(branch.else_block):
                scf.YieldOp([irb.zero(result.type)])
            with ir.InsertionPoint(branch.then_block):
                terminator = scf.YieldOp([result])
            result.replace_all_uses_except(branch.results[0], terminator.operation)
            op.move_before(terminator)
            self._load_inside[branch.results[0]] = ok


def _region_condition(region: _Region, accesses: list[ir.Operation]) -> ir.Value | None:
    """Built in front of the region: whether every affine access of every
    iteration is inside its tensor (None when there is none to check)."""
    condition: ir.Value | None = None
    for op in accesses:
        buffer, indices = _memref_and_indices(op)
        for dim, index in enumerate(indices):
            expression = region.affine(index)
            assert expression is not None
            low, high = region.bounds(expression)
            extent = memref.dim(buffer, irb.index(dim))
            for end in (low, high):
                check = arith.cmpi(arith.CmpIPredicate.ult, end, extent)
                condition = check if condition is None else arith.andi(condition, check)
    return condition


def _version(
    region: _Region, affine: list[ir.Operation], others: list[ir.Operation], guards: _Guards
) -> None:
    """`scf.if <all affine accesses inside> { fast copy } else { guarded }`;
    accesses that are not affine are guarded in both versions."""
    op = region.op
    with ir.InsertionPoint(op), op.location:
        condition = _region_condition(region, affine)
        branch = scf.IfOp(condition, has_else=True)
        with ir.InsertionPoint(branch.then_block):
            fast = op.clone()
            scf.YieldOp([])
        with ir.InsertionPoint(branch.else_block):
            terminator = scf.YieldOp([])
    op.move_before(terminator)
    fast_accesses = irb.collect(fast, _GUARDED)
    original = irb.collect(op, _GUARDED)
    for slow_op, fast_op in zip(original, fast_accesses, strict=True):
        if slow_op in others:
            guards.guard(fast_op)
    for access in original:
        if access in affine or access in others:
            guards.guard(access)


@register_pass
@dataclass(frozen=True)
class GuardAccessesPass(Pass):
    """Makes element accesses of tensors and tiles read 0 and drop writes outside them."""

    argument = "tile-guard-accesses"
    anchor = "func.func"
    summary = "Bound element accesses of tensors and tiles (reads outside give 0, writes drop)"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            checked = [access for access in irb.collect(op, _GUARDED) if _needs_guard(access)]
            by_region: dict[ir.Operation, list[ir.Operation]] = {}
            alone: list[ir.Operation] = []
            for access in checked:
                region = irb.enclosing(access, {"tile.parallel"})
                (by_region.setdefault(region, []) if region is not None else alone).append(access)
            guards = _Guards()
            for region_op, accesses in by_region.items():
                region = _Region(region_op)
                affine = [a for a in accesses if self._is_affine(region, a)]
                others = [a for a in accesses if a not in affine]
                if affine:
                    _version(region, affine, others, guards)
                else:
                    alone.extend(others)
            for access in alone:
                guards.guard(access)

    @staticmethod
    def _is_affine(region: _Region, access: ir.Operation) -> bool:
        if access.name == "tile.atomic_add":
            return False  # only its indices' loads are guarded
        buffer, indices = _memref_and_indices(access)
        return region.invariant(buffer) and all(region.affine(i) is not None for i in indices)
