"""Integer compares in a tile.parallel body that the bounds of the loops decide.

Attention masks the keys past the end of the sequence with
`k * block_N + j < seq_len`; when seq_len is a multiple of block_N the
compare is true at every point of every iteration of the key loop, yet as
vector code it is an iota, an add, a duplicate of the bound, a compare and
a select over the whole score tile on every iteration -- a quarter of the
vector work of the loop. Interval arithmetic over the index expressions
(constants, +, -, *, min, max, casts, divisions by constants, the
counters of the enclosing `scf.for` and `tile.pipelined` loops, the coordinates of the point)
bounds both sides, narrowed by the `a < b`-style conditions of the
`scf.if`s whose then-region holds the body (the software-pipelined key
loop computes key tile `k + 1` under `k + 1 < tiles`); a compare whose
outcome the bounds fix becomes a constant, and the selects and ands/ors it
feeds fold with it, before the body is lowered. A counter is bounded by its
loop's bounds alone (not its step), so a compare is folded only when it
holds at every point the loops can reach.

What the bounds leave open may still be decided per region at run time: a
compare of a coordinate plus terms uniform over the region (`bx * 128 + i
>= k * 128 + j`, causal attention's mask) holds at every point when one
scalar compare of the sides' extremes does (`bx * 128 >= k * 128 + 127`).
`uniform_compares` finds them and `holds_everywhere` builds that test; the
vector lowering runs a copy of the region with them folded to true
(`fold_decided_compares(..., assumed=...)`) when it passes -- for a causal
mask, every key tile but the diagonal ones.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir
from mlir.dialects import arith

from tilec.passes.conversion import ir_builders as irb

Bounds = tuple[int | None, int | None]
"""Smallest and largest value (None: unbounded on that side)."""

_UNKNOWN: Bounds = (None, None)
_MAX_DEPTH = 32
_I1 = 1
_LOOPS = ("scf.for", "tile.pipelined")
"""Loops whose first block argument counts from operand 0 to below operand 1."""


def _owner(value: ir.Value) -> ir.Operation | None:
    owner = value.owner
    return getattr(owner, "operation", None) if not isinstance(owner, ir.Block) else None


def _add(a: Bounds, b: Bounds) -> Bounds:
    lo = None if a[0] is None or b[0] is None else a[0] + b[0]
    hi = None if a[1] is None or b[1] is None else a[1] + b[1]
    return lo, hi


def _neg(a: Bounds) -> Bounds:
    return (None if a[1] is None else -a[1], None if a[0] is None else -a[0])


def _mul(a: Bounds, b: Bounds) -> Bounds:
    if None in a or None in b:
        return _UNKNOWN
    products = [x * y for x in a for y in b]  # type: ignore[operator]
    return min(products), max(products)


def _min(a: Bounds, b: Bounds) -> Bounds:
    lo = None if a[0] is None or b[0] is None else min(a[0], b[0])
    his = [h for h in (a[1], b[1]) if h is not None]
    return lo, min(his) if his else None


def _max(a: Bounds, b: Bounds) -> Bounds:
    los = [v for v in (a[0], b[0]) if v is not None]
    hi = None if a[1] is None or b[1] is None else max(a[1], b[1])
    return max(los) if los else None, hi


def _fits(value: ir.Value, bounds: Bounds) -> Bounds:
    """`bounds` when the value's type holds them without wrapping."""
    type_ = value.type
    if isinstance(type_, ir.IndexType):
        return bounds
    if not isinstance(type_, ir.IntegerType) or type_.width < 2:
        return _UNKNOWN
    limit = 1 << (type_.width - 1)
    lo, hi = bounds
    if lo is None or hi is None or lo < -limit or hi >= limit:
        return _UNKNOWN
    return bounds


def _intersect(a: Bounds, b: Bounds) -> Bounds:
    lo = a[0] if b[0] is None else b[0] if a[0] is None else max(a[0], b[0])
    hi = a[1] if b[1] is None else b[1] if a[1] is None else min(a[1], b[1])
    return lo, hi


class _Bounds:
    def __init__(self, coordinates: dict[ir.Value, int]):
        self.coordinates = coordinates
        """Each coordinate of the point and its extent."""
        self.memo: dict[ir.Value, Bounds] = {}
        self.guards: dict[ir.Value, Bounds] = {}
        """What the enclosing `scf.if` conditions say about a value."""

    def of(self, value: ir.Value, depth: int = 0) -> Bounds:
        if value in self.memo:
            return self.memo[value]
        bounds = _UNKNOWN if depth > _MAX_DEPTH else self._compute(value, depth)
        bounds = _intersect(bounds, self.guards.get(value, _UNKNOWN))
        self.memo[value] = bounds
        return bounds

    def assume(self, op: ir.Operation) -> None:
        """Narrows the bounds with the conditions of the `scf.if`s that hold `op` in
        their then-region (signed compares of the condition's operands)."""
        p = arith.CmpIPredicate
        conditions = []
        inner, parent = op, op.parent
        while parent is not None and parent.name != "func.func":
            if parent.name == "scf.if" and inner.block.region == parent.regions[0]:
                conditions.append(_owner(parent.operands[0]))
            inner, parent = parent, parent.parent
        for condition in conditions:
            if condition is None or condition.name != "arith.cmpi":
                continue
            predicate = ir.IntegerAttr(condition.attributes["predicate"]).value
            a, b = condition.operands
            strict = {int(p.slt): (a, b, 1), int(p.sle): (a, b, 0), int(p.sgt): (b, a, 1),
                      int(p.sge): (b, a, 0)}.get(predicate)
            if strict is None:
                continue
            small, large, gap = strict
            self.memo.clear()
            hi = self.of(large)[1]
            lo = self.of(small)[0]
            self.guards[small] = _intersect(self.guards.get(small, _UNKNOWN),
                                            (None, None if hi is None else hi - gap))
            self.guards[large] = _intersect(self.guards.get(large, _UNKNOWN),
                                            (None if lo is None else lo + gap, None))
        self.memo.clear()

    def _compute(self, value: ir.Value, depth: int) -> Bounds:
        if value in self.coordinates:
            return 0, self.coordinates[value] - 1
        if isinstance(value.owner, ir.Block):
            return self._counter(value, depth)
        op = _owner(value)
        if op is None:
            return _UNKNOWN
        name = op.name
        operands = [self.of(v, depth + 1) for v in op.operands] if name != "arith.constant" \
            else []
        if name == "arith.constant":
            attr = op.attributes["value"]
            if not isinstance(attr, ir.IntegerAttr) or value.type == ir.IntegerType.get_signless(
                    _I1):
                return _UNKNOWN
            constant = ir.IntegerAttr(attr).value
            return constant, constant
        if name == "arith.addi":
            return _fits(value, _add(*operands))
        if name == "arith.subi":
            return _fits(value, _add(operands[0], _neg(operands[1])))
        if name == "arith.muli":
            return _fits(value, _mul(*operands))
        if name == "arith.minsi":
            return _min(*operands)
        if name == "arith.maxsi":
            return _max(*operands)
        if name in ("arith.index_cast", "arith.extsi"):
            return _fits(value, operands[0])
        if name in ("arith.ceildivsi", "arith.floordivsi", "arith.divsi"):
            return self._divide(name, *operands)
        return _UNKNOWN

    def _divide(self, name: str, a: Bounds, b: Bounds) -> Bounds:
        """Division by a positive constant is monotone."""
        if b[0] is None or b[0] != b[1] or b[0] <= 0:
            return _UNKNOWN
        d = b[0]

        def div(x: int | None) -> int | None:
            if x is None:
                return None
            if name == "arith.ceildivsi":
                return -(-x // d)
            if name == "arith.floordivsi":
                return x // d
            return int(x / d)  # divsi rounds toward zero

        return div(a[0]), div(a[1])

    def _counter(self, value: ir.Value, depth: int) -> Bounds:
        """The counter of a loop: from its lower bound to below its upper bound."""
        block = value.owner
        parent = block.owner.operation if block.owner is not None else None
        if parent is None or parent.name not in _LOOPS or ir.BlockArgument(value).arg_number:
            return _UNKNOWN
        lower, upper = (self.of(v, depth + 1) for v in list(parent.operands)[:2])
        return lower[0], None if upper[1] is None else upper[1] - 1


def _decide(predicate: int, a: Bounds, b: Bounds) -> bool | None:
    """The compare's outcome at every point, or None when the bounds do not fix it."""
    p = arith.CmpIPredicate
    unsigned = predicate in (int(p.ult), int(p.ule), int(p.ugt), int(p.uge))
    if unsigned and (a[0] is None or b[0] is None or a[0] < 0 or b[0] < 0):
        return None

    def below(x: Bounds, y: Bounds, strict: bool) -> bool | None:
        if x[1] is not None and y[0] is not None and (x[1] < y[0] if strict else x[1] <= y[0]):
            return True
        if x[0] is not None and y[1] is not None and (x[0] >= y[1] if strict else x[0] > y[1]):
            return False
        return None

    if predicate in (int(p.slt), int(p.ult)):
        return below(a, b, True)
    if predicate in (int(p.sle), int(p.ule)):
        return below(a, b, False)
    if predicate in (int(p.sgt), int(p.ugt)):
        return below(b, a, True)
    if predicate in (int(p.sge), int(p.uge)):
        return below(b, a, False)
    if predicate in (int(p.eq), int(p.ne)):
        if below(a, b, True) or below(b, a, True):
            return predicate == int(p.ne)
        if a[0] is not None and a[0] == a[1] == b[0] == b[1]:
            return predicate == int(p.eq)
    return None


def fold_decided_compares(parallel: ir.Operation, assumed: Sequence[int] = ()) -> bool:
    """Folds the compares of `parallel`'s body that its loops decide, and the
    selects and ands/ors of masks they feed; whether anything changed. The
    compares at positions `assumed` of the body are taken to hold (a region
    run only where `holds_everywhere` passed). A store of what the point
    loaded from the same element (a select folded to its own input) goes."""
    body = parallel.regions[0].blocks[0]
    extents = list(ir.DenseI64ArrayAttr(parallel.attributes["extents"]))
    bounds = _Bounds(dict(zip(body.arguments, extents, strict=True)))
    bounds.assume(parallel)
    known: dict[ir.Value, bool] = {}
    changed = False
    ops = [o.operation for o in body.operations]
    for position in assumed:
        known[ops[position].results[0]] = True
    for op in ops:
        name = op.name
        if name == "arith.cmpi" and op.results[0] not in known:
            outcome = _decide(ir.IntegerAttr(op.attributes["predicate"]).value,
                              bounds.of(op.operands[0]), bounds.of(op.operands[1]))
            if outcome is not None:
                known[op.results[0]] = outcome
        elif name in ("arith.andi", "arith.ori") and op.results[0].type == ir.IntegerType. \
                get_signless(_I1):
            changed |= _fold_logic(op, known)
        elif name == "arith.select" and op.operands[0] in known:
            chosen = op.operands[1] if known[op.operands[0]] else op.operands[2]
            op.results[0].replace_all_uses_with(chosen)
            op.erase()
            changed = True
        elif name == "memref.store" and _stores_own_load(op):
            op.erase()
            changed = True
    if changed:  # the index arithmetic only the folded compares used
        for op in reversed([o.operation for o in body.operations]):
            if op.name.startswith("arith.") and op.results and not any(
                    list(r.uses) for r in op.results):
                op.erase()
    return changed


def _fold_logic(op: ir.Operation, known: dict[ir.Value, bool]) -> bool:
    """`true & x` is x, `false & x` false (and the same for or); both known: the result."""
    a, b = op.operands
    absorbing = op.name == "arith.ori"  # true absorbs an or, false an and
    for fixed, other in ((a, b), (b, a)):
        if fixed not in known:
            continue
        if known[fixed] == absorbing:
            known[op.results[0]] = absorbing
            return False
        if other in known:
            known[op.results[0]] = known[other]
            return False
        op.results[0].replace_all_uses_with(other)
        op.erase()
        return True
    return False


def _stores_own_load(store: ir.Operation) -> bool:
    """`memref.store (memref.load %b[idx]), %b[idx]`: no write at all."""
    value, buffer, *indices = store.operands
    load = _owner(value)
    return (load is not None and load.name == "memref.load" and load.operands[0] == buffer
            and list(load.operands)[1:] == indices)


Form = tuple[int | None, tuple[ir.Value, ...]]
"""A coordinate of the point (its dim; None for none) plus uniform terms."""
UniformCompare = tuple[int, Form, Form]
"""A compare of the body (its position) and its two sides."""
_DECIDABLE = ("slt", "sle", "sgt", "sge")


def uniform_compares(parallel: ir.Operation) -> list[UniformCompare]:
    """The signed index compares of `parallel`'s body whose sides are each a
    coordinate plus terms defined in front of the region, or such terms
    alone, at least one side a coordinate; the uniform code of the body must
    already be in front of it (the vector lowering hoists it)."""
    body = parallel.regions[0].blocks[0]
    inside = {o.operation for o in body.operations}
    dims = {arg: d for d, arg in enumerate(body.arguments)}

    def form(value: ir.Value) -> Form | None:
        if value in dims:
            return dims[value], ()
        op = _owner(value)
        if op is None or op not in inside:
            return (None, (value,)) if isinstance(value.type, ir.IndexType) else None
        if op.name != "arith.addi":
            return None
        a, b = (form(v) for v in op.operands)
        if a is None or b is None or (a[0] is not None and b[0] is not None):
            return None
        return a[0] if a[0] is not None else b[0], a[1] + b[1]

    found = []
    p = arith.CmpIPredicate
    decidable = {int(getattr(p, name)) for name in _DECIDABLE}
    for position, op in enumerate(o.operation for o in body.operations):
        if op.name != "arith.cmpi" or ir.IntegerAttr(op.attributes["predicate"]).value \
                not in decidable:
            continue
        sides = [form(v) for v in op.operands]
        if None in sides or all(side[0] is None for side in sides):  # type: ignore[index]
            continue
        found.append((position, sides[0], sides[1]))  # type: ignore[arg-type]
    return found


def holds_everywhere(parallel: ir.Operation, compares: list[UniformCompare]) -> ir.Value:
    """An i1 built at the insertion point (in front of `parallel`): every
    compare of `compares` holds at every point of the region -- the smallest
    value of one side against the largest of the other."""
    extents = list(ir.DenseI64ArrayAttr(parallel.attributes["extents"]))
    body = parallel.regions[0].blocks[0]
    p = arith.CmpIPredicate
    ops = list(body.operations)
    tests = []
    for position, a, b in compares:
        predicate = ir.IntegerAttr(ops[position].attributes["predicate"]).value
        # a < b everywhere: a's largest < b's smallest; a > b: a's smallest > b's largest.
        below = predicate in (int(p.slt), int(p.sle))
        tests.append(arith.cmpi(predicate, _extreme(a, extents, largest=below),
                                _extreme(b, extents, largest=not below)))
    result = tests[0]
    for test in tests[1:]:
        result = arith.andi(result, test)
    return result


def _extreme(form: Form, extents: list[int], largest: bool) -> ir.Value:
    dim, terms = form
    total: ir.Value | int = extents[dim] - 1 if largest and dim is not None else 0
    for term in terms:
        total = irb.add(term, total)
    return irb.index(total) if isinstance(total, int) else total
