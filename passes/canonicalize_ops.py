"""tile-canonicalize-ops: canonical forms and folds of tile ops.

Lowerings then see one spelling of each idea: a zero fill is `tile.clear`,
and a clear that only feeds a gemm becomes the gemm's `clear_accum`, which
every target implements without a separate pass over the accumulator.

Before:

    %zero = arith.constant 0.0 : f32
    tile.fill %acc, %zero : memref<64x64xf32, #tile.scope<fragment>>, f32
    tile.gemm %a, %b, %acc : ...

After:

    tile.gemm %a, %b, %acc clear_accum : ...
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.rewrite import PatternRewriter, RewritePatternSet, apply_patterns_and_fold_greedily

from tilec.passes.registry import Pass, register_pass

# Pattern callbacks return a truthy value for "did not match" (bindings' rule).
NO_MATCH = True
_WRITES_WHOLE_TILE = ("tile.fill", "tile.clear")


def is_zero_constant(value: ir.Value) -> bool:
    """Whether `value` is an `arith.constant` zero (integer or float)."""
    owner = value.owner
    if not isinstance(owner, ir.Operation | ir.OpView) or owner.name != "arith.constant":
        return False
    attr = owner.attributes["value"]
    if isinstance(attr, ir.FloatAttr):
        return attr.value == 0.0 and not str(attr).startswith("-")
    if isinstance(attr, ir.IntegerAttr):
        return attr.value == 0
    return False


def _uses(op: ir.Operation, value: ir.Value) -> bool:
    """Whether `op` or any op nested in it has `value` as an operand."""
    if any(operand == value for operand in op.operands):
        return True
    return any(
        _uses(inner.operation, value)
        for region in op.regions
        for block in region.blocks
        for inner in block.operations
    )


def _has_views(value: ir.Value) -> bool:
    """Whether some op makes another memref that aliases `value`; accesses
    through the alias would be invisible to `_next_user`."""
    for use in value.uses:
        owner = use.owner
        results = owner.results if isinstance(owner, ir.Operation | ir.OpView) else []
        if any(isinstance(r.type, ir.MemRefType) for r in results):
            return True
    return False


def _next_user(op: ir.Operation, value: ir.Value) -> ir.Operation | None:
    """The first op after `op` in its block that touches `value`."""
    block_ops = list(op.block.operations)
    index = next(i for i, o in enumerate(block_ops) if o.operation == op)
    for candidate in block_ops[index + 1 :]:
        if _uses(candidate.operation, value):
            return candidate.operation
    return None


def zero_fill_to_clear(op: ir.OpView, rewriter: PatternRewriter):
    """`tile.fill %t, 0` is spelled `tile.clear %t`."""
    if not is_zero_constant(op.operands[1]):
        return NO_MATCH
    with rewriter.ip, op.location:
        ir.Operation.create("tile.clear", operands=[op.operands[0]])
    rewriter.erase_op(op.operation)
    return None


def fold_clear_into_gemm(op: ir.OpView, rewriter: PatternRewriter):
    """A clear whose next reader is a gemm accumulating into it becomes the
    gemm's `clear_accum`."""
    tile = op.operands[0]
    if _has_views(tile):
        return NO_MATCH
    user = _next_user(op.operation, tile)
    if user is None or user.name != "tile.gemm" or user.operands[2] != tile:
        return NO_MATCH
    if any(operand == tile for operand in list(user.operands)[:2]):
        return NO_MATCH
    user.attributes["clear_accum"] = ir.UnitAttr.get(user.context)
    rewriter.erase_op(op.operation)
    return None


def erase_overwritten_fill(op: ir.OpView, rewriter: PatternRewriter):
    """A fill or clear that is overwritten before anything reads the tile is dead."""
    if _has_views(op.operands[0]):
        return NO_MATCH
    user = _next_user(op.operation, op.operands[0])
    if user is None or user.name not in _WRITES_WHOLE_TILE:
        return NO_MATCH
    if user.operands[0] != op.operands[0]:
        return NO_MATCH
    rewriter.erase_op(op.operation)
    return None


@register_pass
@dataclass(frozen=True)
class CanonicalizeOpsPass(Pass):
    """Rewrites tile ops into their canonical forms, then folds."""

    argument = "tile-canonicalize-ops"
    anchor = "func.func"
    summary = "Canonicalize tile ops: zero fills to clears, clears into gemm accumulators"

    def run(self, op: ir.Operation) -> None:
        patterns = RewritePatternSet(op.context)
        patterns.add("tile.fill", zero_fill_to_clear)
        patterns.add("tile.fill", erase_overwritten_fill)
        patterns.add("tile.clear", erase_overwritten_fill)
        patterns.add("tile.clear", fold_clear_into_gemm)
        apply_patterns_and_fold_greedily(op, patterns.freeze())
