"""One kernel's AscendC source: the buffers and the entry, the body in IR order, the
host launcher; `emit_ascendc` for every kernel of a module."""

from __future__ import annotations

from dataclasses import dataclass, field

from mlir import ir

from tilec.backends.ascend.ascendc.copies import Copies
from tilec.backends.ascend.ascendc.cube import FIXPIPE_TO_UB_DEFINITION, Cube
from tilec.backends.ascend.ascendc.scalar_math import (
    SCALAR_MATH,
    ScalarMath,
    scalar_math_scratch,
)
from tilec.backends.ascend.ascendc.statements import Statements
from tilec.backends.ascend.ascendc.sync import Sync
from tilec.backends.ascend.ascendc.tables import (
    ARCH,
    BLOCK_BYTES,
    BYTES,
    CTYPE,
    KERNEL_TYPE,
    POSITION,
    SCALAR_CTYPE,
)
from tilec.backends.ascend.ascendc.text import (
    Tensor,
    align,
    element_name,
    ident,
    keyword,
    row_major_strides,
)
from tilec.backends.ascend.ascendc.vector import Vector
from tilec.diagnostics import CompileError, error
from tilec.targets.ascend import attributes as ascend_attr

_INFIX = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.divsi": "/",
          "arith.divui": "/", "arith.floordivsi": "/", "arith.remsi": "%", "arith.remui": "%"}
_MIN_MAX = {"arith.minsi": "min", "arith.minui": "min", "arith.maxsi": "max",
            "arith.maxui": "max"}
"""The size expressions of global scratch (`global_scratch`) as C++."""


@dataclass
class AscendCSource:
    """One kernel's AscendC source and its host launcher."""

    name: str
    kernel: str
    launcher: str
    markers: list[str] = field(default_factory=list)
    """`ascend.<op>` of every marker, in order."""

    def text(self) -> str:
        return self.kernel + "\n" + self.launcher


class Emitter(Statements, Sync, Copies, Cube, Vector, ScalarMath):
    """The AscendC source of one `ascend.kernel` function."""

    def plan(self) -> None:
        """Buffer sizes per memory, and the UB scratch the multi-call ops need."""
        ends: dict[str, int] = {}
        scratch = 0

        def visit(op: ir.Operation) -> ir.WalkResult:
            nonlocal scratch
            name = op.name
            missing = _type_without_ctype(
                [*op.operands, *op.results,
                 *(a for r in op.regions for b in r.blocks for a in b.arguments)])
            if missing is not None:
                problems.append(error(f"AscendC has no type for {missing}", op.location))
                return ir.WalkResult.INTERRUPT
            if name == "memref.alloc":
                t = ir.MemRefType(op.results[0].type)
                element, space = self.memref_info(t)
                if ascend_attr.OFFSET not in op.attributes:
                    problems.append(error("on-chip buffer without a planned offset (run "
                                          "tile-ascend-plan-memory before emitting AscendC)",
                                          op.location))
                    return ir.WalkResult.INTERRUPT
                try:
                    offset = ascend_attr.integer(op, ascend_attr.OFFSET)
                except ascend_attr.InvalidAttribute as invalid:
                    problems.append(invalid)
                    return ir.WalkResult.INTERRUPT
                size = BYTES[element]
                for d in t.shape:
                    size *= d
                ends[space] = max(ends.get(space, 0), offset + size)
            elif name == "ascend.vreduce":
                if keyword(op.attributes["kind"]) == "sum":
                    sums.append(op.location)
                src = ir.MemRefType(op.operands[1].type)
                count = src.shape[-1] if src.rank else 1
                scratch = max(scratch, align(count * BYTES[element_name(src.element_type)],
                                              BLOCK_BYTES))
            elif name in ("ascend.set_flag", "ascend.wait_flag"):
                pipes = frozenset((keyword(op.attributes["src"]), keyword(op.attributes["dst"])))
                self.flag_events.setdefault(pipes, set()).add(
                    ir.IntegerAttr(op.attributes["event"]).value)
            elif name in SCALAR_MATH:  # one element (and a temporary buffer) of the scratch
                scratch = max(scratch, scalar_math_scratch(op))
            elif name == "ascend.vbrcb":
                dst = ir.MemRefType(op.operands[0].type)
                rows = 1
                for d in dst.shape[:-1]:
                    rows *= d
                scratch = max(scratch, align(rows, 8) * BLOCK_BYTES)
            return ir.WalkResult.ADVANCE

        problems: list[CompileError] = []
        sums: list[ir.Location] = []
        missing = _type_without_ctype(list(self.func.regions[0].blocks[0].arguments))
        if missing is not None:
            raise error(f"AscendC has no type for the kernel argument type {missing}",
                        self.func.location)
        self.func.walk(visit)
        self.reduce_sum_at = sums[0] if sums else None
        if problems:  # raised here: an exception inside walk() loses its diagnostics
            raise problems[0]
        if scratch:
            self.scratch_offset = align(ends.get("ub", 0), BLOCK_BYTES)
            self.scratch_bytes = scratch
            ends["ub"] = self.scratch_offset + scratch
            self.check_ub(ends["ub"], f"reduction/broadcast/scalar-math scratch ({scratch} "
                                      f"bytes at {self.scratch_offset})")
        self.ends = {space: align(end, BLOCK_BYTES) for space, end in ends.items()}
        self.staging_offset = self.ends.get("ub", 0)

    def reserve_events(self) -> None:
        """The 910b's ReduceSum orders itself by V -> S, S -> V and S -> MTE3 flags on the
        first event id its TPipe has not allocated, which a flag of the IR may hold:
        allocating the ids the IR's flags between those pipes use leaves it a free one."""
        if self.arch != 2201 or self.reduce_sum_at is None:
            return
        for src, dst in (("V", "S"), ("S", "V"), ("S", "MTE3")):
            used = self.flag_events.get(frozenset((src.lower(), dst.lower())), set())
            count = max(used) + 1 if used else 0
            if count >= self.profile.flag_event_ids:
                raise error(f"ReduceSum needs an {src} -> {dst} event id above those the "
                            f"kernel's flags use (up to {count - 1}), and none is left",
                            self.reduce_sum_at)
            if count:
                self.line(f"// ReduceSum's own {src} -> {dst} flag takes event {count}: "
                          f"0..{count - 1} are the kernel's")
            for _ in range(count):
                self.line(f"pipe.AllocEventID<HardEvent::{src}_{dst}>();")

    def buffer(self, space: str, size: int) -> None:
        """The TBuf of a memory and the byte tensor every tile is a view of."""
        self.line(f"TBuf<TPosition::{POSITION[space]}> {space}_buf;")
        self.line(f"pipe.InitBuffer({space}_buf, {size});")
        self.line(f"LocalTensor<uint8_t> {space} = {space}_buf.Get<uint8_t>();")

    def check_ub(self, end: int, what: str) -> None:
        capacity = ascend_attr.usable_bytes(self.profile, "ub", self.func)
        if end > capacity:
            raise error(f"the AscendC {what} does not fit the {capacity} bytes of UB",
                        self.func.location)

    def signature(self) -> None:
        func_type = ir.FunctionType(ir.TypeAttr(self.func.attributes["function_type"]).value)
        block = self.func.regions[0].blocks[0]
        arg_attrs = (ir.ArrayAttr(self.func.attributes["arg_attrs"])
                     if "arg_attrs" in self.func.attributes else None)
        symbols: dict[str, str] = {}
        self.gm_decls: list[str] = []
        self.workspace_rows: dict[str, int] = {}
        self.workspace_bytes: dict[str, tuple[int, list[int], int]] = {}
        attr_list = [ir.DictAttr(a) for a in arg_attrs] if arg_attrs is not None else []
        # a kernel that hands several tiles between its cores has a workspace per tile
        workspaces = [i for i, a in enumerate(attr_list) if ascend_attr.WORKSPACE in a]
        for index, (arg, t) in enumerate(zip(block.arguments, func_type.inputs, strict=True)):
            attrs = attr_list[index] if attr_list else None
            tile_name = (ascend_attr.text(self.func, "tile.name", attrs)
                         if attrs is not None and "tile.name" in attrs
                         else ("workspace" if len(workspaces) == 1
                               else f"workspace_{workspaces.index(index)}")
                         if index in workspaces else f"arg{index}")
            name = ident(tile_name)
            if isinstance(t, ir.MemRefType):
                mt = ir.MemRefType(t)
                element, _ = self.memref_info(mt)
                dims = (list(ir.ArrayAttr(attrs["tile.dims"]))
                        if attrs is not None and "tile.dims" in attrs else [])
                shape: list[str] = []
                for d, size in enumerate(mt.shape):
                    if size != ir.ShapedType.get_dynamic_size():
                        shape.append(str(size))
                        continue
                    symbol = (ir.StringAttr(dims[d]).value if d < len(dims)
                              else f"{tile_name}_dim{d}")
                    param = ident(symbol)
                    if param not in symbols:
                        symbols[param] = param
                        self.params.append(("int64_t", param))
                    if attrs is not None and ascend_attr.WORKSPACE in attrs and d == 0:
                        rows = ascend_attr.integer(self.func, ascend_attr.WORKSPACE, attrs)
                        self.workspace_rows[param] = rows
                        self.workspace_bytes[name] = (rows, mt.shape[1:], BYTES[element])
                    shape.append(param)
                self.params.insert(len([p for p in self.params if p[0] == "GM_ADDR"]),
                                   ("GM_ADDR", name))
                ctype = CTYPE[element]
                gm = f"{name}_gm"
                self.gm_decls.append(f"GlobalTensor<{ctype}> {gm};")
                self.gm_decls.append(f"{gm}.SetGlobalBuffer((__gm__ {ctype}*){name});")
                strides = row_major_strides(shape)
                self.tensors[arg] = Tensor(gm, "0", shape, strides, element, "gm",
                                            list(mt.shape))
            else:
                self.params.append((SCALAR_CTYPE[str(t)], name))
                self.names[arg] = name

    def emit(self) -> AscendCSource:
        self.plan()
        self.signature()
        body_start = len(self.lines)
        for line in self.gm_decls:
            self.line(line)
        self.line("TPipe pipe;")
        self.reserve_events()
        for space in ("l1", "l0a", "l0b", "l0c"):
            if space in self.ends:
                self.buffer(space, self.ends[space])
        ub_at = len(self.lines)
        self.block(self.func.regions[0].blocks[0])
        # the UB staging area's size is known once the copies and stores that need it
        # have been written
        end = self.staging_offset + self.staging_bytes
        self.check_ub(end, f"staging area of the copies of rows under 32 bytes and the "
                           f"scalar stores into GM ({self.staging_bytes} bytes at "
                           f"{self.staging_offset})")
        if end:
            body_lines = self.lines[ub_at:]
            del self.lines[ub_at:]
            capacity = ascend_attr.usable_bytes(self.profile, "ub", self.func)
            self.buffer("ub", max(end, min(self.compact_reach, capacity)))
            self.lines += body_lines
        body = self.lines[body_start:]
        name = ident(ir.StringAttr(self.func.attributes["sym_name"]).value)
        params = ", ".join(f"{t} {n}" for t, n in self.params)
        head = [
            f"// AscendC kernel emitted by tilec from the ascend IR (profile {self.profile_name},",
            f"// __NPU_ARCH__ {self.arch}). A comment [n] ascend.<op> marks the calls of one op.",
            '#include "kernel_operator.h"',
            "",
            "using namespace AscendC;",
            "",
            *(FIXPIPE_TO_UB_DEFINITION if self.uses_fixpipe_to_ub else ()),
            f'extern "C" __global__ __aicore__ void {name}({params})',
            "{",
            f"    KERNEL_TASK_TYPE_DEFAULT({KERNEL_TYPE[self.kind]});",
        ]
        kernel = "\n".join([*head, *body, "}", ""])
        return AscendCSource(name, kernel, self.launcher(name), self.markers)

    def launcher(self, name: str) -> str:
        params = ", ".join(f"{t} {n}" for t, n in self.params)
        sizes, notes = self.scratch_sizes()
        host = ", ".join(("uint8_t* " + n) if t == "GM_ADDR" else f"{t} {n}"
                         for t, n in self.params if n not in self.workspace_rows
                         and n not in sizes)
        args = ", ".join(f"static_cast<int64_t>(blockDim) * {self.workspace_rows[n]}"
                         if n in self.workspace_rows else n for _, n in self.params)
        for ws, (rows, inner, size) in self.workspace_bytes.items():
            row_bytes = size
            for d in inner:
                row_bytes *= d
            notes.append(f"// {ws}: a GM buffer of blockDim * {rows * row_bytes} bytes (zeroed), "
                         "the cube-to-vector exchange of each AI core.")
        cores = self.profile.aic_cores * (self.profile.aiv_per_aic if self.kind == "aiv" else 1)
        if ascend_attr.GRID in self.func.attributes:
            cores = min(cores, ascend_attr.integer(self.func, ascend_attr.GRID))
        return "\n".join([
            "// ---- host launcher (README: Building the AscendC output)",
            "#ifndef ASCENDC_CPU_DEBUG",
            '#include "acl/acl.h"',
            f'extern "C" __global__ __aicore__ void {name}({params});',
            f"// The grid-stride loops make any blockDim correct; {cores} uses every core the",
            "// kernel can fill on this profile.",
            f"constexpr uint32_t {name}_default_block_dim = {cores};",
            *notes,
            f"void launch_{name}(uint32_t blockDim, aclrtStream stream"
            f"{', ' if host else ''}{host})",
            "{",
            *(f"    int64_t {n} = {size};" for n, size in sizes.items()),
            f"    {name}<<<blockDim, nullptr, stream>>>({args});",
            "}",
            "#endif",
            "",
        ])

    def scratch_sizes(self) -> tuple[dict[str, str], list[str]]:
        """For the global scratch arguments (`ascend.scratch`): the launcher's
        values of the dims no other argument has (computed from the host's
        arguments, not passed by the host), and a note per scratch saying
        how many bytes the host allocates for it."""
        arguments = list(self.func.regions[0].blocks[0].arguments)
        if "arg_attrs" not in self.func.attributes:
            return {}, []
        scratch = [(arguments[i], ir.ArrayAttr(ir.DictAttr(a)[ascend_attr.SCRATCH]))
                   for i, a in enumerate(ir.ArrayAttr(self.func.attributes["arg_attrs"]))
                   if ascend_attr.SCRATCH in ir.DictAttr(a)]
        shared = {d for arg, tensor in self.tensors.items()
                  if not any(arg == s for s, _ in scratch) for d in tensor.shape}

        def cpp(expr: ir.Attribute) -> str:
            if isinstance(expr, ir.IntegerAttr):
                return str(ir.IntegerAttr(expr).value)
            items = list(ir.ArrayAttr(expr))
            kind = ir.StringAttr(items[0]).value
            numbers = [ir.IntegerAttr(i).value for i in items[1:]] if kind in ("arg", "dim") else []
            if kind == "arg":
                return self.names[arguments[numbers[0]]]
            if kind == "dim":
                return self.tensors[arguments[numbers[0]]].shape[numbers[1]]
            operands = [cpp(item) for item in items[1:]]
            if len(operands) == 1:  # an integer cast
                return operands[0]
            a, b = operands
            if kind in ("arith.ceildivsi", "arith.ceildivui"):
                return f"(({a} + {b} - 1) / {b})"
            if kind in _MIN_MAX:
                return f"std::{_MIN_MAX[kind]}<int64_t>({a}, {b})"
            return f"({a} {_INFIX[kind]} {b})"  # sizes are never negative: / and % floor

        sizes: dict[str, str] = {}
        notes = []
        for arg, dims in scratch:
            tensor = self.tensors[arg]
            for name, dim in zip(tensor.shape, dims, strict=True):
                if not name.isdigit() and name not in shared:
                    sizes[name] = cpp(dim)
            nbytes = " * ".join([*(sizes.get(d, d) for d in tensor.shape),
                                 str(BYTES[tensor.element])])
            notes.append(f"// {tensor.base.removesuffix('_gm')}: a GM buffer of {nbytes} bytes "
                         "(not initialized, as on cpu), the global")
            notes.append("// scratch (T.alloc_global) that the kernels of the function share.")
        return sizes, notes


def kernel_functions(module: ir.Module) -> list[ir.Operation]:
    """The functions of `module` that carry `ascend.kernel`."""
    return [op.operation for op in module.body.operations
            if op.operation.name == "func.func" and ascend_attr.KERNEL in op.operation.attributes]


def emit_ascendc(module: ir.Module, profile: str = "910b") -> list[AscendCSource]:
    """AscendC for every `ascend.kernel` function of `module` (final ascend IR)."""
    if profile not in ARCH:
        raise error(f"unknown ascend profile '{profile}' (expected one of {', '.join(ARCH)})")
    functions = kernel_functions(module)
    if not functions:
        raise error("no function with `ascend.kernel` to emit as AscendC (run tile-to-ascend "
                    "first)", module.operation.location)
    return [Emitter(func, profile).emit() for func in functions]


def ascendc_text(module: ir.Module, profile: str = "910b") -> str:
    """Every kernel's source and launcher, one after another."""
    return "\n".join(source.text() for source in emit_ascendc(module, profile))


def _type_without_ctype(values: list[ir.Value]) -> str | None:
    """The first element or scalar type among `values`' that AscendC code cannot
    name (SCALAR_CTYPE), e.g. f64: every table lookup of the emitter then succeeds."""
    for value in values:
        t = value.type
        if isinstance(t, ir.MemRefType):
            t = ir.MemRefType(t).element_type
        elif not isinstance(t, ir.IntegerType | ir.FloatType | ir.IndexType):
            continue
        if str(t) not in SCALAR_CTYPE:
            return str(t)
    return None
