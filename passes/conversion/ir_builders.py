"""IR-building helpers every tile lowering needs, whatever its target.

Lowerings build upstream IR (arith, scf, memref, vector) at an insertion
point with the Python op builders; these helpers keep the repetitive parts
(index constants, loops, casts, vector chunks, bounds known statically) in
one place so a lowering reads as the loop structure it emits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from mlir import ir
from mlir.dialects import arith, scf, vector

# Ops that pass values or memrefs along (calls, control flow, allocation,
# views) without reading or writing their elements: a pass that changes how
# an element type is stored only retypes them.
ELEMENT_AGNOSTIC = frozenset(
    {
        "func.func",
        "func.call",
        "func.return",
        "scf.for",
        "scf.if",
        "scf.while",
        "scf.condition",
        "scf.yield",
        "cf.br",
        "cf.cond_br",
        "memref.alloc",
        "memref.alloca",
        "memref.dealloc",
        "memref.dim",
        "memref.copy",
        "memref.cast",
        "memref.subview",
        "memref.reinterpret_cast",
        "memref.collapse_shape",
        "memref.expand_shape",
        "memref.transpose",
        "memref.memory_space_cast",
        "memref.assume_alignment",
    }
)


def collect(root: ir.Operation, names: set[str] | str) -> list[ir.Operation]:
    """Every op named in `names` nested in `root`, in pre-order; collected
    before a pass mutates anything."""
    wanted = {names} if isinstance(names, str) else names
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in wanted:
            found.append(op.operation if hasattr(op, "operation") else op)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def every_op(root: ir.Operation) -> list[ir.Operation]:
    """`root` and every op nested in it, in post-order; collected before a
    pass mutates anything."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        found.append(op.operation)
        return ir.WalkResult.ADVANCE

    root.walk(visit)
    return found


def pre_order(root: ir.Operation) -> list[ir.Operation]:
    """`root` and every op nested in it, in pre-order (parents before what
    they hold); collected before a pass mutates anything."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> ir.WalkResult:
        found.append(op.operation)
        return ir.WalkResult.ADVANCE

    root.walk(visit, ir.WalkOrder.PRE_ORDER)
    return found


def use_owner(use: ir.OpOperand) -> ir.Operation:
    """The operation that holds `use` (not its OpView)."""
    owner = use.owner
    return owner.operation if hasattr(owner, "operation") else owner


def defined_values(op: ir.Operation) -> Iterator[ir.Value]:
    """The values `op` defines: its results and its regions' block arguments."""
    yield from op.results
    for region in op.regions:
        for block in region.blocks:
            yield from block.arguments


def retype(func: ir.Operation, mapped: Callable[[ir.Type], ir.Type]) -> None:
    """Gives every value in `func` (results, block arguments) and its
    signature the type `mapped` makes of its old one."""

    def visit(op: ir.Operation) -> ir.WalkResult:
        for value in defined_values(op):
            value.set_type(mapped(value.type))
        return ir.WalkResult.ADVANCE

    func.walk(visit)
    function_type = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get(
            [mapped(t) for t in function_type.inputs], [mapped(t) for t in function_type.results]
        )
    )


def index(value: int) -> ir.Value:
    return arith.constant(ir.IndexType.get(), value)


def as_index(value: ir.Value | int) -> ir.Value:
    """`value` as an index value (a constant for an int)."""
    return index(value) if isinstance(value, int) else value


def constant_int(value: ir.Value) -> int | None:
    """The value of an `arith.constant` of integer or index type, else None."""
    owner = value.owner
    if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "arith.constant":
        return None
    attr = owner.attributes["value"]
    return ir.IntegerAttr(attr).value if isinstance(attr, ir.IntegerAttr) else None


def lanes(vector_bytes: int, *element_types: ir.Type) -> int:
    """Vector width for element-wise code over these element types: one
    register of `vector_bytes` of the widest of them. Wider vectors would be
    split by LLVM and narrower ones waste lanes."""
    widest = max(bit_width(t) for t in element_types)
    return max(1, vector_bytes * 8 // widest)


def bit_width(type_: ir.Type) -> int:
    if isinstance(type_, ir.IndexType):
        return 64
    if isinstance(type_, ir.FloatType):
        return type_.width
    return ir.IntegerType(type_).width


def is_float(type_: ir.Type) -> bool:
    return isinstance(type_, ir.FloatType)


def element_type(type_: ir.Type) -> ir.Type:
    """The element type of a vector, or the scalar type itself."""
    return ir.VectorType(type_).element_type if isinstance(type_, ir.VectorType) else type_


def with_element(type_: ir.Type, element: ir.Type) -> ir.Type:
    """`type_` (scalar or vector) with its element type replaced."""
    if isinstance(type_, ir.VectorType):
        return ir.VectorType.get(ir.VectorType(type_).shape, element)
    return element


def is_bool(type_: ir.Type) -> bool:
    return isinstance(type_, ir.IntegerType) and ir.IntegerType(type_).width == 1


def i1() -> ir.Type:
    return ir.IntegerType.get_signless(1)


def byte_from_bool(value: ir.Value) -> ir.Value:
    """A bool (i1, scalar or vector) as the byte that stores it: 0 or 1."""
    return arith.extui(with_element(value.type, ir.IntegerType.get_signless(8)), value)


def bool_from_byte(value: ir.Value) -> ir.Value:
    """The bool a byte stores: any nonzero byte is true, as numpy reads one."""
    return arith.cmpi(arith.CmpIPredicate.ne, value, zero(value.type))


def convert(value: ir.Value, to: ir.Type) -> ir.Value:
    """`value` (scalar or vector) converted to element type `to` with arith
    cast semantics: float widths by ext/trunc, ints signed, index by cast;
    a bool is 0 or 1 in any other type, and a number is true when nonzero
    (NaN too), as numpy's `astype` converts."""
    src = element_type(value.type)
    if src == to:
        return value
    result = with_element(value.type, to)
    if is_bool(to):
        if is_float(src):
            return arith.cmpf(arith.CmpFPredicate.UNE, value, zero(value.type))
        return arith.cmpi(arith.CmpIPredicate.ne, value, zero(value.type))
    if is_bool(src):
        # Through its byte: a signed i1 would widen true to -1.
        return convert(byte_from_bool(value), to)
    if is_float(src) and is_float(to):
        if bit_width(to) == bit_width(src):
            # f16 <-> bf16, f8E4M3FN <-> f8E5M2: neither holds the other, but
            # f32 holds both, so this rounds once.
            return convert(convert(value, ir.F32Type.get()), to)
        op = arith.extf if bit_width(to) > bit_width(src) else arith.truncf
        return op(result, value)
    if is_float(src):
        if isinstance(to, ir.IndexType):
            return arith.index_cast(result, arith.fptosi(with_element(value.type, _i64()), value))
        return arith.fptosi(result, value)
    if is_float(to):
        if isinstance(src, ir.IndexType):
            value = arith.index_cast(with_element(value.type, _i64()), value)
        return arith.sitofp(result, value)
    if isinstance(src, ir.IndexType) or isinstance(to, ir.IndexType):
        return arith.index_cast(result, value)
    if bit_width(to) > bit_width(src):
        return arith.extsi(result, value)
    return arith.trunci(result, value)


def _i64() -> ir.Type:
    return ir.IntegerType.get_signless(64)


def constant(type_: ir.Type, value: int | float) -> ir.Value:
    """A constant scalar or splat vector of `type_` (int, index or float elements)."""
    elem = element_type(type_)
    attr = ir.FloatAttr.get(elem, value) if is_float(elem) else ir.IntegerAttr.get(elem, value)
    if isinstance(type_, ir.VectorType):
        return arith.constant(type_, ir.DenseElementsAttr.get_splat(type_, attr))
    return arith.constant(type_, attr)


def zero(type_: ir.Type) -> ir.Value:
    """A zero scalar or splat vector of `type_`."""
    return constant(type_, 0.0 if is_float(element_type(type_)) else 0)


def splat(value: ir.Value, width: int) -> ir.Value:
    return vector.broadcast(ir.VectorType.get([width], value.type), value)


@contextmanager
def loop(
    lower: ir.Value | int, upper: ir.Value | int, step: ir.Value | int = 1
) -> Iterator[ir.Value]:
    """An `scf.for` without loop-carried values; the body is built inside
    the `with` block at the loop's insertion point."""
    bounds = [index(b) if isinstance(b, int) else b for b in (lower, upper, step)]
    for_op = scf.ForOp(*bounds)
    with ir.InsertionPoint(for_op.body):
        yield for_op.induction_variable
        scf.YieldOp([])


@contextmanager
def loop_nest(uppers: Sequence[ir.Value | int]) -> Iterator[list[ir.Value]]:
    """Nested `scf.for` loops from 0 to each upper bound, outermost first.
    The bounds are made before the outermost loop, so inner loops do not
    re-create constants in every iteration's body."""
    bounds = [index(u) if isinstance(u, int) else u for u in uppers]
    with _nest(bounds, index(0), index(1)) as ivs:
        yield ivs


@contextmanager
def _nest(uppers: Sequence[ir.Value], zero: ir.Value, one: ir.Value) -> Iterator[list[ir.Value]]:
    if not uppers:
        yield []
        return
    with loop(zero, uppers[0], one) as iv, _nest(uppers[1:], zero, one) as inner:
        yield [iv, *inner]


def add(a: ir.Value | int, b: ir.Value | int) -> ir.Value:
    """`a + b` on indices, folding a zero constant away."""
    if isinstance(a, int):
        a = index(a)
    if isinstance(b, int):
        if b == 0:
            return a
        b = index(b)
    if constant_int(b) == 0:
        return a
    if constant_int(a) == 0:
        return b
    return arith.addi(a, b)


def for_each_chunk(
    extent: int, width: int, body: Callable[[ir.Value | int, int], None]
) -> None:
    """Calls `body(start, size)` over `[0, extent)` in chunks of `width`: the
    full chunks (in an `scf.for` when there are several, else straight-line),
    then one narrower tail chunk. A static tail needs no mask."""
    full = extent // width * width
    if full > width:
        with loop(0, full, width) as start:
            body(start, width)
    elif full:
        body(0, width)
    if extent > full:
        body(full, extent - full)


def statically_inside(
    buffer: ir.Value, dim: int, offset: ir.Value | int, size: int
) -> bool:
    """Whether `[offset, offset + size)` lies inside dim `dim` of `buffer` by
    the types and constants alone, so the access needs no bounds check."""
    extent = ir.MemRefType(buffer.type).shape[dim]
    start = offset if isinstance(offset, int) else constant_int(offset)
    if ir.ShapedType.is_dynamic_size(extent) or start is None:
        return False
    return start >= 0 and start + size <= extent


def clamped_count(limit: ir.Value, start: ir.Value, width: int) -> ir.Value:
    """How many of the `width` positions from `start` lie below `limit`:
    `min(max(limit - start, 0), width)`, the count of a vector mask."""
    remaining = arith.subi(limit, start)
    return arith.minsi(arith.maxsi(remaining, index(0)), index(width))


def mask(count: ir.Value, width: int, skip: ir.Value | None = None) -> ir.Value:
    """The lanes in [skip, count) of a `width`-lane vector (skip 0 if None)."""
    type_ = ir.VectorType.get([width], ir.IntegerType.get_signless(1))
    below = vector.create_mask(type_, [count])
    if skip is None:
        return below
    true = arith.constant(type_, ir.DenseElementsAttr.get_splat(type_, ir.BoolAttr.get(True)))
    return arith.andi(below, arith.xori(vector.create_mask(type_, [skip]), true))


def ancestors(op: ir.Operation) -> Iterator[ir.Operation]:
    """The ops that hold `op`, innermost first."""
    parent = op.parent
    while parent is not None:
        yield parent.operation
        parent = parent.parent


def enclosing(op: ir.Operation, names: set[str]) -> ir.Operation | None:
    """The nearest ancestor of `op` named in `names`."""
    parent = op.parent
    while parent is not None:
        if parent.name in names:
            return parent.operation if hasattr(parent, "operation") else parent
        parent = parent.parent
    return None


def scratch_insertion_point(op: ir.Operation) -> ir.InsertionPoint:
    """Where a lowering puts the scratch buffers `op` needs: the start of the
    enclosing kernel body (or function), so a buffer used in a loop is
    allocated once per block instead of growing the stack every iteration."""
    owner = enclosing(op, {"tile.kernel", "func.func"})
    block = owner.regions[0].blocks[0]
    return ir.InsertionPoint.at_block_begin(block)


def move_body(source: ir.Block, before: ir.Operation) -> None:
    """Moves every op of `source` but its terminator in front of `before`."""
    for op in list(source.operations)[:-1]:
        op.operation.move_before(before)


def pipelined_as_loop(op: ir.Operation) -> ir.Operation:
    """Replaces a `tile.pipelined` by the `scf.for` it means (same bounds and
    body, the stages left to the caller) and returns the loop."""
    body = op.regions[0].blocks[0]
    with ir.InsertionPoint(op), op.location:
        loop = scf.ForOp(*op.operands)
        with ir.InsertionPoint(loop.body):
            end = scf.YieldOp([])
    body.arguments[0].replace_all_uses_with(loop.induction_variable)
    move_body(body, end.operation)
    op.erase()
    return loop.operation


def parallel_as_loops(op: ir.Operation) -> None:
    """Replaces a `tile.parallel` by a serial loop nest over its extents, its body
    run element by element (the cpu's vectorizer widens it; on ascend the S pipe
    runs it)."""
    body = op.regions[0].blocks[0]
    extents = list(ir.DenseI64ArrayAttr(op.attributes["extents"]))
    with ir.InsertionPoint(op), op.location, loop_nest(extents) as ivs:
        anchor = index(0)
    for old, new in zip(body.arguments, ivs, strict=True):
        old.replace_all_uses_with(new)
    for inner in list(body.operations)[:-1]:
        inner.operation.move_before(anchor.owner)
    anchor.owner.erase()
    op.erase()


def carry(loop: ir.Operation, init: ir.Value) -> ir.Operation:
    """Replaces `loop` (an `scf.for` or `scf.while`) by one that carries one
    more value, `init` on entry, as its last block arguments, terminator
    operands and result; it passes the value on unchanged until the caller
    sets the terminators' last operands. The new loop, its body moved over."""
    element = init.type
    with ir.InsertionPoint(loop), loop.location:
        if loop.name == "scf.for":
            old = loop.opview
            new = scf.ForOp(old.lowerBound, old.upperBound, old.step, [*old.initArgs, init])
            blocks = [(old.body, new.body)]
        else:
            new = scf.WhileOp([*[r.type for r in loop.results], element],
                              [*loop.operands, init])
            blocks = []
            for old_region, new_region in zip(loop.regions, new.regions, strict=True):
                source = old_region.blocks[0]
                types = [*[a.type for a in source.arguments], element]
                blocks.append((source, new_region.blocks.append(
                    *types, arg_locs=[loop.location] * len(types))))
    for source, target in blocks:
        for before, after in zip(source.arguments, target.arguments, strict=False):
            before.replace_all_uses_with(after)
        for op in [o.operation for o in source.operations]:
            target.append(op.detach_from_parent())
        terminator = list(target.operations)[-1].operation
        passed = target.arguments[len(target.arguments) - 1]
        with ir.InsertionPoint(terminator), terminator.location:
            if terminator.name == "scf.condition":
                scf.ConditionOp(terminator.operands[0], [*list(terminator.operands)[1:], passed])
            else:
                scf.YieldOp([*terminator.operands, passed])
        terminator.erase()
    for name in loop.attributes:  # hints, marks of the passes
        new.attributes[name] = loop.attributes[name]
    for before, after in zip(loop.results, new.results, strict=False):
        before.replace_all_uses_with(after)
    loop.erase()
    return new.operation
