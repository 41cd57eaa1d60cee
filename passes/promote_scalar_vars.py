"""tile-promote-scalar-vars: a one-element tile used as a scalar variable becomes SSA values.

`T.alloc_var` (and a one-element `T.alloc_local`) is a tile of one element
that scalar code stores into and loads from, under `if`s and in loops. On
the NPU a tile lives in a buffer of one kind of core (UB: the vector cores),
so in a kernel that needs the cube and the vector cores both, a loop bound
computed through such a variable (varlen attention's key count from
`cu_seqlens`, a grouped GEMM's offsets) was vector-side code the cube could
not see. As SSA values it is ordinary scalar code that both kinds of core
compute for themselves when it reads only kernel inputs. (Upstream's
`mem2reg` does not cross `scf` regions, which is where these variables are
written.)

A variable is promoted when every use is a `memref.load` or `memref.store`
of it, each in the kernel body or under `scf.if`/`scf.for`/`scf.while`, or
a load inside any other region (a `tile.parallel` reading it: the value is
simply captured). A store under `scf.if` makes the `if` yield the variable;
a store in a loop carries it as an iteration argument (a `while` on a
variable, as stream-K's walk over its iterations, through both of its
regions). A load before any store reads zero (the tile's contents were
undefined). Any other use (a copy, a view, a store in a `tile.parallel`)
leaves the variable a tile.

Before:

    %v = tile.alloc : memref<1xi32, #tile.scope<local>>
    memref.store %n, %v[%c0] : memref<1xi32, #tile.scope<local>>
    scf.if %empty {
      memref.store %c0_i32, %v[%c0] : memref<1xi32, #tile.scope<local>>
    }
    %k = memref.load %v[%c0] : memref<1xi32, #tile.scope<local>>

After:

    %k = scf.if %empty -> (i32) {
      scf.yield %c0_i32 : i32
    } else {
      scf.yield %n : i32
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import scf

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.registry import Pass, register_pass

_THROUGH = frozenset({"scf.if", "scf.for", "scf.while"})
"""Control flow a store may sit in: the value flows out as a result."""


def _uses_of(var: ir.Value) -> list[tuple[ir.Operation, int]] | None:
    """The (op, operand number) of every use of `var`, or None when one is not a
    scalar load or the address of a scalar store."""
    found = []
    for use in var.uses:
        user = irb.use_owner(use)
        if not (user.name == "memref.load" or (user.name == "memref.store"
                                                and use.operand_number == 1)):
            return None
        found.append((user, use.operand_number))
    return found


def _promotable(alloc: ir.Operation, kernel: ir.Operation) -> bool:
    type_ = ir.MemRefType(alloc.results[0].type)
    if not type_.has_static_shape or type_.rank > 1 or \
            (type_.rank == 1 and type_.shape[0] != 1):
        return False
    uses = _uses_of(alloc.results[0])
    if uses is None:
        return False
    for user, _ in uses:
        if user.name != "memref.store":
            continue
        parent = user.parent.operation
        while parent != kernel.operation:  # a store only under if/for up to the kernel
            if parent.name not in _THROUGH:
                return False
            parent = parent.parent.operation
    return True


def _contains_store(op: ir.Operation, var: ir.Value) -> bool:
    return any(user.name == "memref.store" and _inside(user, op)
               for user, _ in _uses_of(var) or [])


def _inside(op: ir.Operation, ancestor: ir.Operation) -> bool:
    parent = op.parent
    while parent is not None:
        if parent.operation == ancestor.operation:
            return True
        parent = parent.operation.parent
    return False


class _Promotion:
    """The walk that replaces the loads and stores of one variable."""

    def __init__(self, var: ir.Value):
        self.var = var
        self.element = ir.MemRefType(var.type).element_type

    def block(self, block: ir.Block, current: ir.Value | None) -> ir.Value | None:
        """Promotes the uses in `block`; the variable's value at its end."""
        for op in [o.operation for o in block.operations]:
            current = self.op(op, current)
        return current

    def op(self, op: ir.Operation, current: ir.Value | None) -> ir.Value | None:
        if op.name == "memref.store" and op.operands[1] == self.var:
            value = op.operands[0]
            op.erase()
            return value
        if op.name == "memref.load" and op.operands[0] == self.var:
            if current is None:
                with ir.InsertionPoint(op), op.location:
                    current = irb.zero(self.element)
            op.results[0].replace_all_uses_with(current)
            op.erase()
            return current
        if not op.regions:
            return current
        if not _contains_store(op, self.var):
            for region in op.regions:
                for inner in region.blocks:
                    self.block(inner, current)  # loads only: the value is captured
            return current
        if op.name == "scf.if":
            return self._if(op, current)
        return self._loop(op, current)

    def _initial(self, op: ir.Operation, current: ir.Value | None) -> ir.Value:
        if current is not None:
            return current
        with ir.InsertionPoint(op), op.location:
            return irb.zero(self.element)

    def _if(self, op: ir.Operation, current: ir.Value | None) -> ir.Value:
        current = self._initial(op, current)
        types = [r.type for r in op.results]
        with ir.InsertionPoint(op), op.location:
            branch = scf.IfOp(op.operands[0], [*types, self.element], has_else=True)
        for old, new in zip(op.regions, branch.regions, strict=True):
            if not old.blocks:  # no else: it keeps the value
                with ir.InsertionPoint(new.blocks[0]), op.location:
                    scf.YieldOp([current])
                continue
            source, target = old.blocks[0], new.blocks[0]
            for inner in [o.operation for o in source.operations]:
                target.append(inner.detach_from_parent())
            end = self.block(target, current)
            terminator = list(target.operations)[-1].operation
            with ir.InsertionPoint(terminator), terminator.location:
                scf.YieldOp([*terminator.operands, end])
            terminator.erase()
        for old, new in zip(op.results, branch.results, strict=False):
            old.replace_all_uses_with(new)
        op.erase()
        return branch.results[len(types)]

    def _loop(self, op: ir.Operation, current: ir.Value | None) -> ir.Value:
        """An `scf.for` or `scf.while` that stores the variable carries it: each
        block of the loop starts from its argument and hands its value at the
        end to the terminator (a while's condition forwards the value its
        test region leaves, which is also the loop's result)."""
        loop = irb.carry(op, self._initial(op, current))
        for region in loop.regions:
            block = region.blocks[0]
            end = self.block(block, block.arguments[len(block.arguments) - 1])
            terminator = list(block.operations)[-1].operation
            terminator.operands[len(terminator.operands) - 1] = end
        return loop.results[len(loop.results) - 1]

def promote(kernel: ir.Operation) -> int:
    """Promotes the scalar variables allocated in `kernel`'s body; how many."""
    body = kernel.regions[0].blocks[0]
    count = 0
    for alloc in [o.operation for o in body.operations if o.operation.name == "tile.alloc"]:
        if not _promotable(alloc, kernel):
            continue
        _Promotion(alloc.results[0]).block(body, None)
        alloc.erase()
        count += 1
    return count


@register_pass
@dataclass(frozen=True)
class PromoteScalarVarsPass(Pass):
    """Turns one-element tiles used as scalar variables into SSA values."""

    argument = "tile-promote-scalar-vars"
    anchor = "func.func"
    summary = "Turn one-element tiles used only by scalar loads and stores into SSA values"

    def run(self, op: ir.Operation) -> None:
        with op.context, op.location:
            for kernel in irb.collect(op, "tile.kernel"):
                promote(kernel)
