"""The launches of a compiled cuda entry, as data: what the driver runs without host code.

The host function's `gpu.launch_func`s are recorded at compile time as a `LaunchPlan`:
per launch, the kernel's name, its grid as expressions over the entry's parameters
(and their shapes), the block size, the dynamic shared memory size and which entry
parameter, global workspace (`T.alloc_global`) or TMA descriptor each kernel argument
is. The plan is JSON in the kernel cache, and `evaluate` computes its expressions from
a call's arguments.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from mlir import ir

from tilec.backends.cuda.tensor_maps import TmaDescriptor
from tilec.diagnostics import error
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_cuda.ops.tma_copy import TMA_DESCRIPTOR

Expr = list
"""A host value as JSON: ["param", i], ["dim", i, d], ["const", v] or
[op name, attribute, operand expressions...]."""

_BINARY_OPS = {
    "arith.addi": lambda a, b: a + b,
    "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b,
    "arith.divsi": lambda a, b: int(a / b),
    "arith.divui": lambda a, b: a // b,
    "arith.ceildivsi": lambda a, b: -(-a // b),
    "arith.ceildivui": lambda a, b: -(-a // b),
    "arith.floordivsi": lambda a, b: a // b,
    "arith.remsi": lambda a, b: int(np.fmod(a, b)),
    "arith.remui": lambda a, b: a % b,
    "arith.minsi": min,
    "arith.minui": min,
    "arith.maxsi": max,
    "arith.maxui": max,
    "arith.addf": lambda a, b: a + b,
    "arith.subf": lambda a, b: a - b,
    "arith.mulf": lambda a, b: a * b,
    "arith.divf": lambda a, b: a / b,
}
_CASTS = {"arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui",
          "arith.trunci", "arith.sitofp", "arith.extf", "arith.truncf"}
# arith.cmpi predicates by number: eq ne slt sle sgt sge ult ule ugt uge.
_COMPARE = [lambda a, b: a == b, lambda a, b: a != b, lambda a, b: a < b,
            lambda a, b: a <= b, lambda a, b: a > b, lambda a, b: a >= b,
            lambda a, b: a < b, lambda a, b: a <= b, lambda a, b: a > b,
            lambda a, b: a >= b]


def host_expression(value: ir.Value, params: list[ir.Value],
                    workspaces: list[ir.Value] | None = None,
                    descriptors: list[TmaDescriptor] | None = None) -> Expr:
    """`value` of the host function as an expression over its parameters;
    a `memref.alloc` of the host (a global workspace) is ["workspace", i],
    its position in `workspaces`, a TMA tensor map (`tma_copy.py`)
    ["tma", i], its position in `descriptors`. ValueError names an op that
    is not plain integer arithmetic."""
    for i, param in enumerate(params):
        if value == param:
            return ["param", i]
    op = value.owner
    name = op.name
    if name == "arith.constant":
        attr = op.attributes["value"]
        if isinstance(attr, ir.IntegerAttr):
            return ["const", ir.IntegerAttr(attr).value]
        return ["const", ir.FloatAttr(attr).value]
    if name == "memref.cast":
        # A cast between static and dynamic shapes keeps the buffer.
        return host_expression(op.operands[0], params, workspaces)
    if name == "memref.alloc" and workspaces is not None:
        if value not in workspaces:
            workspaces.append(value)
        return ["workspace", workspaces.index(value)]
    if name == "builtin.unrealized_conversion_cast" and TMA_DESCRIPTOR in op.attributes:
        source = host_expression(op.operands[0], params)
        if descriptors is None or source[0] != "param":
            raise ValueError("a TMA tensor map of a value that is not a parameter")
        descriptor = TmaDescriptor.of(source[1], ir.DictAttr(op.attributes[TMA_DESCRIPTOR]))
        if descriptor not in descriptors:
            descriptors.append(descriptor)
        return ["tma", descriptors.index(descriptor)]
    if name == "memref.dim":
        source, dim = op.operands
        position = host_expression(source, params, workspaces)
        dim_expr = host_expression(dim, params, workspaces)
        if position[0] != "param" or dim_expr[0] != "const":
            raise ValueError("memref.dim of a value that is not a parameter")
        return ["dim", position[1], dim_expr[1]]
    operands = [host_expression(v, params, workspaces) for v in op.operands]
    if name in _BINARY_OPS or name in _CASTS or name == "arith.select":
        return [name, None, *operands]
    if name == "arith.cmpi":
        return [name, ir.IntegerAttr(op.attributes["predicate"]).value, *operands]
    raise ValueError(f"'{name}' computes a launch value on the host")


def evaluate(expr: Expr, args: Sequence[object]) -> int | float:
    kind = expr[0]
    if kind == "param":
        return args[expr[1]]  # type: ignore[return-value]
    if kind == "const":
        return expr[1]
    if kind == "dim":
        return int(np.shape(args[expr[1]])[expr[2]])
    values = [evaluate(e, args) for e in expr[2:]]
    if kind in _CASTS:
        return values[0]
    if kind == "arith.select":
        return values[1] if values[0] else values[2]
    if kind == "arith.cmpi":
        return int(_COMPARE[expr[1]](*values))
    return _BINARY_OPS[kind](*values)


@dataclass(frozen=True)
class Launch:
    """One `gpu.launch_func` of the entry."""

    kernel: str
    grid: tuple[Expr, Expr, Expr]
    block: tuple[int, int, int]
    shared_bytes: int
    args: tuple[Expr, ...]
    """Per kernel argument: ["param", i] or ["workspace", i] for a memref, ["tma", i] for
    a pointer to the plan's tensor map i, else an expression."""
    arg_types: tuple[str, ...]
    """Per kernel argument: "memref<rank>" or the scalar's MLIR type."""


@dataclass(frozen=True)
class LaunchPlan:
    """How to run an entry from its arguments: its launches in order, the
    global workspaces (`T.alloc_global`) they share, as (element, shape),
    and the TMA tensor maps the driver makes from the arguments."""

    launches: tuple[Launch, ...]
    workspaces: tuple[tuple[str, tuple[Expr, ...]], ...] = ()
    descriptors: tuple[TmaDescriptor, ...] = ()

    @property
    def kernel(self) -> str:
        """The first kernel's name."""
        return self.launches[0].kernel

    @property
    def grid(self) -> tuple[Expr, Expr, Expr]:
        return self.launches[0].grid

    @property
    def block(self) -> tuple[int, int, int]:
        return self.launches[0].block

    @property
    def shared_bytes(self) -> int:
        """The most dynamic shared memory one of the kernels uses."""
        return max(launch.shared_bytes for launch in self.launches)

    @staticmethod
    def from_module(module: ir.Module, entry: str) -> LaunchPlan:
        funcs = [op for op in module.body.operations
                 if op.operation.name == "func.func"
                 and ir.StringAttr(op.attributes["sym_name"]).value == entry]
        if not funcs:
            raise error(f"no host function '{entry}' after the cuda pipeline")
        func = funcs[0].operation
        found = irb.collect(func, "gpu.launch_func")
        if not found:
            raise error(f"'{entry}' launches no kernel", func.location)
        params = list(func.regions[0].blocks[0].arguments)
        workspaces: list[ir.Value] = []
        descriptors: list[TmaDescriptor] = []
        launches = tuple(_launch_of(op, params, workspaces, descriptors) for op in found)
        shapes = []
        for value in workspaces:
            type_ = ir.MemRefType(value.type)
            sizes = iter(value.owner.operands)
            shape = tuple(
                host_expression(next(sizes), params) if ir.ShapedType.is_dynamic_size(size)
                else ["const", size]
                for size in type_.shape
            )
            shapes.append((str(type_.element_type), shape))
        return LaunchPlan(launches, tuple(shapes), tuple(descriptors))

    def to_json(self) -> str:
        return json.dumps({"launches": [launch.__dict__ for launch in self.launches],
                           "workspaces": self.workspaces,
                           "descriptors": [d.to_json() for d in self.descriptors]})

    @staticmethod
    def from_json(text: str) -> LaunchPlan:
        data = json.loads(text)
        launches = tuple(
            Launch(d["kernel"], tuple(d["grid"]), tuple(d["block"]), d["shared_bytes"],
                   tuple(d["args"]), tuple(d["arg_types"]))
            for d in data["launches"]
        )
        return LaunchPlan(launches, tuple((e, tuple(s)) for e, s in data["workspaces"]),
                          tuple(TmaDescriptor.from_json(d) for d in data.get("descriptors", [])))


def _launch_of(launch: ir.Operation, params: list[ir.Value], workspaces: list[ir.Value],
               descriptors: list[TmaDescriptor]) -> Launch:
    view = launch.opview
    try:
        grid = tuple(host_expression(v, params)
                     for v in (view.gridSizeX, view.gridSizeY, view.gridSizeZ))
        block = tuple(evaluate(host_expression(v, params), [])
                      for v in (view.blockSizeX, view.blockSizeY, view.blockSizeZ))
        shared = view.dynamicSharedMemorySize
        shared_bytes = 0 if shared is None else int(evaluate(host_expression(shared, params), []))
        args = tuple(host_expression(v, params, workspaces, descriptors)
                     for v in view.kernelOperands)
    except (ValueError, KeyError) as exc:
        raise error(f"cannot launch this kernel from its arguments: {exc}",
                    launch.location) from None
    kinds = tuple(
        f"memref{ir.MemRefType(v.type).rank}" if isinstance(v.type, ir.MemRefType)
        else str(v.type)
        for v in view.kernelOperands
    )
    for expr, kind in zip(args, kinds, strict=True):
        if kind.startswith("memref") and expr[0] not in ("param", "workspace"):
            raise error("a kernel's memref argument must be an entry parameter or a workspace",
                        launch.location)
    # @module::@kernel: the kernel's own name is the last reference.
    kernel = str(launch.attributes["kernel"]).rsplit("@", 1)[-1].strip('"')
    return Launch(kernel, grid, block, shared_bytes, args, kinds)  # type: ignore[arg-type]
