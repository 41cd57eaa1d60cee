"""Part of convert-tile-to-ascend: global scratch (`T.alloc_global`) as kernel arguments.

An NPU kernel cannot allocate GM: every GM buffer is an argument that the
host allocated before the launch. A `memref.alloc` in global memory at the
top of a kernel function (TileLang's split-KV or split-K scratch, shared
by the kernels of the function, which run one after the other) becomes a
trailing GM argument of the function with an `ascend.scratch` attribute:
the sizes of its dims as expressions over the call's arguments, so the
backend can allocate it per call (`scratch_sizes`). Its contents are
undefined, as on cpu and cuda (`malloc`, `cuMemAlloc`): the backend fills
it with all-ones bytes (NaN for floats) so a kernel that reads scratch it
did not write gets garbage instead of zeros that happen to be right.
Its `memref.dealloc` goes: the host frees it after the call.

A size expression is an integer (a constant), `["arg", i]` (the scalar
argument i), `["dim", i, d]` (dim d of the array argument i) or
`[op, operand...]` for the integer `arith` op `op`.

Before:

    func.func @k(%x: memref<?x16xf32>) attributes {tile.entry} {
      %n = memref.dim %x, %c0 : memref<?x16xf32>
      %s = memref.alloc(%n) : memref<?x16xf32>
      tile.kernel ... { tile.copy %t[...], %s[...] ... }
      memref.dealloc %s : memref<?x16xf32>
    }

After:

    func.func @k(%x: memref<?x16xf32>,
                 %s: memref<?x16xf32> {ascend.scratch = [["dim", 0, 0], 16], ...}) { ... }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from mlir import ir

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_ascend.ops.buffers import is_global
from tilec.passes.registry import emit_error
from tilec.targets.ascend import attributes as ascend_attr

_BINARY: dict[str, Callable[[int, int], int]] = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divui": lambda a, b: a // b,
    "arith.divsi": lambda a, b: abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1),
    "arith.floordivsi": lambda a, b: a // b,
    "arith.ceildivsi": lambda a, b: -(-a // b),
    "arith.ceildivui": lambda a, b: -(-a // b),
    "arith.remui": lambda a, b: a % b,
    "arith.remsi": lambda a, b: int(np.fmod(a, b)),
    "arith.minsi": min,
    "arith.minui": min,
    "arith.maxsi": max,
    "arith.maxui": max,
}
_CASTS = frozenset({"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"})


def _i64(value: int) -> ir.IntegerAttr:
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), value)


def append_argument(func: ir.Operation, type_: ir.Type, attrs: dict[str, ir.Attribute]
                    ) -> ir.Value:
    """A new last argument of `func` of `type_`, with the argument attributes `attrs`."""
    entry = func.regions[0].blocks[0]
    argument = entry.add_argument(type_, func.location)
    signature = ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value)
    func.attributes["function_type"] = ir.TypeAttr.get(
        ir.FunctionType.get([*signature.inputs, type_], signature.results))
    if "arg_attrs" in func.attributes:
        old = list(ir.ArrayAttr(func.attributes["arg_attrs"]))
    else:
        old = [ir.DictAttr.get({})] * len(signature.inputs)
    func.attributes["arg_attrs"] = ir.ArrayAttr.get([*old, ir.DictAttr.get(attrs)])
    return argument


def _size_expression(value: ir.Value, func: ir.Operation, alloc: ir.Operation) -> ir.Attribute:
    """`value` (a dim of the scratch) as an expression over `func`'s arguments."""
    arguments = list(func.regions[0].blocks[0].arguments)
    for i, argument in enumerate(arguments):
        if value == argument:
            return ir.ArrayAttr.get([ir.StringAttr.get("arg"), _i64(i)])
    constant = irb.constant_int(value)
    if constant is not None:
        return _i64(constant)
    op = value.owner
    if isinstance(op, ir.Operation | ir.OpView):
        name = op.name
        if name == "memref.dim":
            source, dim = op.operands
            d = irb.constant_int(dim)
            for i, argument in enumerate(arguments):
                if source == argument and d is not None:
                    return ir.ArrayAttr.get([ir.StringAttr.get("dim"), _i64(i), _i64(d)])
        elif name in _BINARY or name in _CASTS:
            return ir.ArrayAttr.get([ir.StringAttr.get(name),
                                     *(_size_expression(v, func, alloc) for v in op.operands)])
    raise emit_error(alloc, "convert-tile-to-ascend: the host allocates global scratch before the "
                            "launch, so its sizes must be integer arithmetic on the kernel's "
                            f"arguments and their dims, not {value}")


def scratch_sizes(expressions: ir.ArrayAttr, args: Sequence[object]) -> list[int]:
    """The dims of a scratch argument for a call with `args` (the kernel's arguments)."""

    def evaluate(expr: ir.Attribute) -> int:
        if isinstance(expr, ir.IntegerAttr):
            return ir.IntegerAttr(expr).value
        items = list(ir.ArrayAttr(expr))
        kind = ir.StringAttr(items[0]).value
        if kind == "arg":
            return int(args[ir.IntegerAttr(items[1]).value])  # type: ignore[call-overload]
        if kind == "dim":
            array = args[ir.IntegerAttr(items[1]).value]
            return int(np.shape(array)[ir.IntegerAttr(items[2]).value])
        operands = [evaluate(item) for item in items[1:]]
        return operands[0] if kind in _CASTS else _BINARY[kind](*operands)

    return [evaluate(expr) for expr in expressions]


def _dim_names(func: ir.Operation, sizes: list[ir.Attribute], shape: list[int], name: str
               ) -> list[ir.Attribute]:
    """`tile.dims` of a scratch argument: a dim that is a dim of an array
    argument takes that dim's name, so the AscendC kernel has one parameter
    for both."""
    arg_attrs = (list(ir.ArrayAttr(func.attributes["arg_attrs"]))
                 if "arg_attrs" in func.attributes else [])
    names = []
    for d, (size, static) in enumerate(zip(sizes, shape, strict=True)):
        text = f"{name}_dim{d}" if static == ir.ShapedType.get_dynamic_size() else str(static)
        if isinstance(size, ir.ArrayAttr) and ir.StringAttr(size[0]).value == "dim":
            i, dim = ir.IntegerAttr(size[1]).value, ir.IntegerAttr(size[2]).value
            attrs = ir.DictAttr(arg_attrs[i]) if i < len(arg_attrs) else None
            if attrs is not None and "tile.dims" in attrs:
                text = ir.StringAttr(ir.ArrayAttr(attrs["tile.dims"])[dim]).value
        names.append(ir.StringAttr.get(text))
    return names


def scratch_to_arguments(func: ir.Operation) -> None:
    """Every global `memref.alloc` of `func` as a trailing `ascend.scratch` argument."""
    entry = func.regions[0].blocks[0]
    allocs = [a for a in irb.collect(func, "memref.alloc") if is_global(a.results[0])]
    for n, alloc in enumerate(allocs):
        if alloc.block != entry:
            raise emit_error(alloc, "convert-tile-to-ascend: global scratch must be allocated at "
                                    "the top of the kernel function, outside its kernels")
        type_ = ir.MemRefType(alloc.results[0].type)
        dynamic = iter(alloc.operands)
        sizes = [_size_expression(next(dynamic), func, alloc)
                 if size == ir.ShapedType.get_dynamic_size() else _i64(size)
                 for size in type_.shape]
        name = f"scratch{n}"
        attrs = {ascend_attr.SCRATCH: ir.ArrayAttr.get(sizes), "tile.name": ir.StringAttr.get(name),
                 "tile.dims": ir.ArrayAttr.get(_dim_names(func, sizes, list(type_.shape), name))}
        argument = append_argument(func, type_, attrs)
        for use in [u.owner for u in alloc.results[0].uses]:
            if use.name == "memref.dealloc":
                use.erase()
        alloc.results[0].replace_all_uses_with(argument)
        alloc.erase()
