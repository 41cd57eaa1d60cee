"""AscendC C++ from the final, synchronized and memory-planned `ascend` IR.

`emit_ascendc(module, profile)` writes one kernel source for the documented
AscendC class API (`kernel_operator.h`): an `extern "C" __global__ __aicore__`
entry with `GM_ADDR` parameters (plus one `int64_t` per dynamic dimension and
one parameter per scalar argument), `KERNEL_TASK_TYPE_DEFAULT` for the core
kind, a `GlobalTensor` per GM argument, one `TPipe` with one `TBuf` per
on-chip memory, and every tile a `LocalTensor` view at its planned byte offset
(`ascend.offset`). Every ascend op becomes the API call(s) of the same data
movement, compute or synchronization, in IR order, under a marker comment
`// [n] ascend.<op>` (n counts ascend ops in pre-order) so that a test can map
the C++ back to the IR the simulator ran. scf/arith become C++ statements.

This is a direct printer, not MLIR's `emitc`: the Python bindings build emitc
ops but do not translate them (DESIGN.md §3; only a `mlir-translate
--mlir-to-cpp` subprocess would), and what AscendC needs would all be opaque
strings in emitc anyway: calls with template arguments (`emitc.call_opaque`),
parameter structs filled field by field, LocalTensor views, `if ASCEND_IS_AIV`
regions, and the per-op marker comments (`emitc.verbatim`). Printing directly
keeps the statements in IR order and the names readable.

Parameter structs are filled by field name; `STRUCTS` lists, per
architecture, every struct the emitter uses with its fields in declaration
order and their C types as the vendor headers declare them (the conformance
test compares this table with a copy of the headers).

Where the hardware needs more than one call for one op (a per-row reduction,
a broadcast that is Brcb then a block-stride copy), the calls stay on the op's
pipe (V), so the op's synchronization in the IR still covers them; on the 910b,
whose V pipe does not order dependent instructions, a `PipeBarrier<PIPE_V>`
separates them. The UB scratch those calls need sits after the last planned
UB tile. Profiles differ where the API does: the 950's L0A takes the Nz layout
L1 holds (one contiguous LoadData instead of one per fractal row), its
`Nd2NzParams`/`DataCopyExtParams`/`MmadParams` field types are the 3510 ones.
Not emitted yet (located errors): 8- and 32-bit operands that need a
transposing L1 -> L0 load, fixpipes into L1/UB, on-chip copies of rows that
are not whole 32-byte blocks (beyond the masked-Copy case), and scalar
transcendental math. Edge tiles: DataCopyPad/Nd2Nz move only the part of a
region inside the GM tensor and leave the rest of the tile as it was, where the
ascend IR (and the simulator) read zeros there.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mlir import ir

from tilec.diagnostics import CompileError, error
from tilec.targets.ascend_profiles import get_profile

ARCH = {"910b": 2201, "950": 3510}
"""`__NPU_ARCH__` of each profile."""

STRUCTS: dict[int, dict[str, tuple[tuple[str, str], ...]]] = {}
"""Per arch: parameter struct -> ((field, C type), ...) in declaration order."""

_COMMON = {
    "DataCopyParams": (("blockCount", "uint16_t"), ("blockLen", "uint16_t"),
                       ("srcStride", "uint16_t"), ("dstStride", "uint16_t")),
    "LoadData2DParams": (("startIndex", "uint16_t"), ("dstGap", "uint16_t"),
                         ("srcStride", "uint16_t"), ("ifTranspose", "bool"),
                         ("repeatTimes", "uint8_t"), ("sid", "uint8_t"), ("addrMode", "uint8_t")),
    "FixpipeParamsV220": (("nSize", "uint16_t"), ("mSize", "uint16_t"), ("srcStride", "uint16_t"),
                          ("dstStride", "uint32_t"), ("quantPre", "QuantMode_t"),
                          ("deqScalar", "uint64_t"), ("ndNum", "uint16_t"),
                          ("srcNdStride", "uint16_t"), ("dstNdStride", "uint16_t"),
                          ("reluEn", "bool"), ("unitFlag", "uint8_t"), ("isChannelSplit", "bool")),
    "BrcbRepeatParams": (("blockNumber", "uint32_t"), ("dstRepStride", "uint16_t"),
                         ("dstBlkStride", "uint16_t"), ("src0BlkStride", "uint8_t"),
                         ("src1BlkStride", "uint8_t"), ("src0RepStride", "uint8_t"),
                         ("src1RepStride", "uint8_t"), ("repeatStrideMode", "bool"),
                         ("strideSizeMode", "bool")),
    "CopyRepeatParams": (("dstStride", "uint16_t"), ("srcStride", "uint16_t"),
                         ("dstRepeatSize", "uint16_t"), ("srcRepeatSize", "uint16_t")),
}
_MMAD = (("m", "uint16_t"), ("n", "uint16_t"), ("k", "uint16_t"), ("isBias", "bool"),
         ("fmOffset", "int32_t"), ("enSsparse", "bool"), ("enWinogradA", "bool"),
         ("enWinogradB", "bool"), ("unitFlag", "uint8_t"), ("kDirectionAlign", "bool"),
         ("cmatrixSource", "bool"), ("cmatrixInitVal", "bool"))
STRUCTS[2201] = {
    **_COMMON,
    "DataCopyExtParams": (("blockCount", "uint16_t"), ("blockLen", "uint32_t"),
                          ("srcStride", "uint32_t"), ("dstStride", "uint32_t"),
                          ("rsv", "uint32_t")),
    "Nd2NzParams": tuple((name, "uint16_t") for name in (
        "ndNum", "nValue", "dValue", "srcNdMatrixStride", "srcDValue", "dstNzC0Stride",
        "dstNzNStride", "dstNzMatrixStride")),
    "MmadParams": _MMAD,
}
STRUCTS[3510] = {
    **_COMMON,
    "DataCopyExtParams": (("blockCount", "uint16_t"), ("blockLen", "uint32_t"),
                          ("srcStride", "int64_t"), ("dstStride", "int64_t"), ("rsv", "uint32_t")),
    "Nd2NzParams": (("ndNum", "uint16_t"), ("nValue", "uint16_t"), ("dValue", "uint32_t"),
                    ("srcNdMatrixStride", "uint64_t"), ("srcDValue", "uint64_t"),
                    ("dstNzC0Stride", "uint16_t"), ("dstNzNStride", "uint16_t"),
                    ("dstNzMatrixStride", "uint32_t")),
    "MmadParams": (*_MMAD, ("disableGemv", "bool")),
}

HARD_EVENTS = frozenset({
    "MTE2_MTE1", "MTE1_MTE2", "MTE1_M", "M_MTE1", "MTE2_V", "V_MTE2", "MTE3_V", "V_MTE3",
    "M_V", "V_M", "V_V", "MTE3_MTE1", "MTE1_MTE3", "MTE1_V", "MTE2_M", "M_MTE2", "V_MTE1",
    "M_FIX", "FIX_M", "MTE3_MTE2", "MTE2_MTE3", "S_V", "V_S", "S_MTE2", "MTE2_S", "S_MTE3",
    "MTE3_S", "MTE2_FIX", "FIX_MTE2", "FIX_S", "M_S", "FIX_MTE3", "MTE1_FIX", "FIX_MTE1",
    "FIX_FIX",
})
"""The `HardEvent` pairs of AscendC on 2201 and 3510: a flag between any other
two pipes has no name there."""

API_CALLS = {
    "ascend.copy": ("DataCopy", "DataCopyPad", "Copy", "SetAtomicAdd", "SetAtomicNone"),
    "ascend.copy_nd2nz": ("DataCopy",),
    "ascend.load_l0a": ("LoadData",),
    "ascend.load_l0b": ("LoadData",),
    "ascend.mmad": ("Mmad",),
    "ascend.fixpipe": ("Fixpipe",),
    "ascend.vbin": ("Add", "Sub", "Mul", "Div", "Max", "Min"),
    "ascend.vbins": ("Adds", "Muls", "Maxs", "Mins"),
    "ascend.vunary": ("Exp", "Ln", "Abs", "Sqrt", "Rsqrt", "Relu", "Reciprocal", "Muls"),
    "ascend.vdup": ("Duplicate",),
    "ascend.vcast": ("Cast",),
    "ascend.vreduce": ("ReduceSum", "ReduceMax", "ReduceMin", "PipeBarrier"),
    "ascend.vbrcb": ("Brcb", "Copy", "PipeBarrier"),
    "ascend.vcmp": ("Compare",),
    "ascend.vsel": ("Select",),
    "ascend.set_flag": ("SetFlag",),
    "ascend.wait_flag": ("WaitFlag",),
    "ascend.pipe_barrier": ("PipeBarrier",),
    "ascend.cross_core_set_flag": ("CrossCoreSetFlag",),
    "ascend.cross_core_wait_flag": ("CrossCoreWaitFlag",),
    "ascend.sync_all": ("SyncAll",),
    "ascend.block_idx": ("GetBlockIdx",),
    "ascend.block_num": ("GetBlockNum",),
    "ascend.sub_block_idx": ("GetSubBlockIdx",),
    "ascend.core": ("ASCEND_IS_AIC", "ASCEND_IS_AIV"),
}
"""The AscendC names each ascend op may be emitted as (PipeBarrier: between the
dependent calls of one op on the 910b)."""

_POSITION = {"l1": "A1", "l0a": "A2", "l0b": "B2", "l0c": "CO1", "ub": "VECCALC"}
_KERNEL_TYPE = {"aiv": "KERNEL_TYPE_AIV_ONLY", "aic": "KERNEL_TYPE_AIC_ONLY",
                "mix": "KERNEL_TYPE_MIX_AIC_1_2"}
_PIPE = {"s": "S", "v": "V", "m": "M", "mte1": "MTE1", "mte2": "MTE2", "mte3": "MTE3",
         "fix": "FIX", "all": "ALL"}
_CTYPE = {"f32": "float", "f16": "half", "bf16": "bfloat16_t", "i32": "int32_t", "i16": "int16_t",
          "i8": "int8_t", "i1": "uint8_t", "i64": "int64_t", "index": "int64_t",
          "f8E4M3FN": "fp8_e4m3fn_t", "f8E5M2": "fp8_e5m2_t", "ui8": "uint8_t"}
_SCALAR_CTYPE = {**_CTYPE, "i1": "bool"}
_BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i16": 2, "i8": 1, "i1": 1, "i64": 8,
          "f8E4M3FN": 1, "f8E5M2": 1, "ui8": 1}
_VBIN = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min"}
_VBINS = {"adds": "Adds", "muls": "Muls", "maxs": "Maxs", "mins": "Mins"}
_VUNARY = {"exp": "Exp", "ln": "Ln", "abs": "Abs", "sqrt": "Sqrt", "rsqrt": "Rsqrt",
           "relu": "Relu", "rec": "Reciprocal"}
_REDUCE = {"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"}
_CMP = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}
_ROUND = {"none": "CAST_NONE", "rint": "CAST_RINT", "floor": "CAST_FLOOR", "ceil": "CAST_CEIL",
          "round": "CAST_ROUND", "trunc": "CAST_TRUNC"}
_QUANT = {("f32", "f16"): "F322F16", ("f32", "bf16"): "F322BF16", ("f32", "f32"): "NoQuant",
          ("i32", "i32"): "NoQuant", ("i32", "f16"): "DEQF16"}
_INT_BINARY = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.divsi": "/",
               "arith.divui": "/", "arith.remsi": "%", "arith.remui": "%", "arith.andi": "&",
               "arith.ori": "|", "arith.xori": "^", "arith.addf": "+", "arith.subf": "-",
               "arith.mulf": "*", "arith.divf": "/", "arith.shli": "<<", "arith.shrsi": ">>",
               "arith.shrui": ">>"}
_MIN_MAX = {"arith.minsi": "<", "arith.minui": "<", "arith.maxsi": ">", "arith.maxui": ">",
            "arith.minimumf": "<", "arith.maximumf": ">", "arith.minnumf": "<",
            "arith.maxnumf": ">"}
_ICMP = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=", "ult": "<",
         "ule": "<=", "ugt": ">", "uge": ">="}
_FCMP = {"oeq": "==", "one": "!=", "olt": "<", "ole": "<=", "ogt": ">", "oge": ">=",
         "ueq": "==", "une": "!=", "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
_CASTS = ("arith.index_cast", "arith.index_castui", "arith.sitofp", "arith.uitofp",
          "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.extsi",
          "arith.extui", "arith.trunci")
_ICMP_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
_FCMP_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
                    "uge", "ult", "ule", "une", "uno", "true")
_REPEAT_BYTES = 256
_BLOCK_BYTES = 32
_FRACTAL_BYTES = 512


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


@dataclass
class _Tensor:
    """A memref value as C++: a tensor expression plus its logical layout."""

    base: str
    offset: str
    """Element offset of the view into `base` ("0" for the base itself)."""
    shape: list[str]
    strides: list[str]
    element: str
    space: str
    static_shape: list[int]

    def at(self, extra: str = "0") -> str:
        off = _add(self.offset, extra)
        return self.base if off == "0" else f"{self.base}[{off}]"


def _keyword(attr: ir.Attribute) -> str:
    """`add` of `#ascend.vbin_kind<add>`."""
    text = str(attr)
    match = re.search(r"<([^<>]+)>", text)
    return match.group(1) if match else text


def _add(a: str, b: str) -> str:
    if a == "0":
        return b
    if b == "0":
        return a
    return f"{a} + {b}"


def _mul(a: str, b: str) -> str:
    if a == "0" or b == "0":
        return "0"
    if a == "1":
        return b
    if b == "1":
        return a
    return f"({a}) * ({b})"


def _element_name(t: ir.Type) -> str:
    return str(t)


def _ceil(a: int, b: int) -> int:
    return -(-a // b)


_RESERVED = frozenset({
    "main", "auto", "bool", "break", "case", "char", "class", "const", "continue", "default",
    "delete", "do", "double", "else", "enum", "explicit", "extern", "false", "float", "for",
    "friend", "goto", "half", "if", "inline", "int", "long", "namespace", "new", "operator",
    "private", "protected", "public", "register", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "template", "this", "throw", "true", "try", "typedef",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "pipe",
    "ub", "l1", "l0a", "l0b", "l0c", "ub_buf", "l1_buf", "l0a_buf", "l0b_buf", "l0c_buf",
    "AscendC",
})
_GENERATED = re.compile(r"(v|t|i|n|p|r|l|w|pad|row|work|blocks|entry)\d+$")


def _ident(text: str) -> str:
    """A C++ name for a DSL name: never a keyword, `main`, or a name the emitter makes."""
    name = re.sub(r"\W", "_", text)
    if not name or name[0].isdigit():
        name = f"v_{name}"
    return f"{name}_" if name in _RESERVED or _GENERATED.match(name) else name


class _Emitter:
    def __init__(self, func: ir.Operation, profile: str) -> None:
        self.func = func
        self.profile = get_profile(profile)
        self.profile_name = profile
        self.arch = ARCH[profile]
        self.lines: list[str] = []
        self.indent = 1
        self.names: dict[ir.Value, str] = {}
        self.tensors: dict[ir.Value, _Tensor] = {}
        self.counter = 0
        self.ordinal = 0
        self.markers: list[str] = []
        self.params: list[tuple[str, str]] = []
        self.scratch_offset = 0
        self.scratch_bytes = 0
        self.alloc_offsets: dict[str, int] = {}
        self.views: set[str] = set()
        self.kind = _keyword(func.attributes["ascend.kernel"])

    # -- helpers --------------------------------------------------------------------------
    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def value(self, v: ir.Value) -> str:
        if v in self.names:
            return self.names[v]
        raise error("value used before its definition in the AscendC emitter",
                    v.owner.location if isinstance(v.owner, ir.Operation | ir.OpView)
                    else self.func.location)

    def tensor(self, v: ir.Value, op: ir.Operation) -> _Tensor:
        if v not in self.tensors:
            raise error("the AscendC emitter does not know this buffer", op.location)
        return self.tensors[v]

    def struct(self, name: str, values: dict[str, str], op: ir.Operation) -> str:
        """Declares a parameter struct filled by field name; returns its name."""
        fields = dict(STRUCTS[self.arch][name])
        var = self.fresh("p")
        self.line(f"{name} {var};")
        for key, text in values.items():
            if key not in fields:
                raise error(f"{name} has no field '{key}' on arch {self.arch}", op.location)
            self.line(f"{var}.{key} = {text};")
        return var

    def marker(self, op: ir.Operation, detail: str = "") -> None:
        name = op.name
        self.markers.append(name)
        self.line(f"// [{self.ordinal}] {name}{(' ' + detail) if detail else ''}")
        self.ordinal += 1

    # -- layout ---------------------------------------------------------------------------
    def _memref_info(self, t: ir.MemRefType) -> tuple[str, str]:
        space = _keyword(t.memory_space) if t.memory_space is not None else "gm"
        return _element_name(t.element_type), space

    def plan(self) -> None:
        """Buffer sizes per memory, and the UB scratch the multi-call ops need."""
        ends: dict[str, int] = {}
        scratch = 0

        def visit(op: ir.Operation) -> ir.WalkResult:
            nonlocal scratch
            name = op.name
            if name == "memref.alloc":
                t = ir.MemRefType(op.results[0].type)
                element, space = self._memref_info(t)
                if "ascend.offset" not in op.attributes:
                    problems.append(error("on-chip buffer without a planned offset (run "
                                          "tile-ascend-plan-memory before emitting AscendC)",
                                          op.location))
                    return ir.WalkResult.INTERRUPT
                offset = ir.IntegerAttr(op.attributes["ascend.offset"]).value
                size = _BYTES[element]
                for d in t.shape:
                    size *= d
                ends[space] = max(ends.get(space, 0), offset + size)
            elif name == "ascend.vreduce":
                src = ir.MemRefType(op.operands[1].type)
                count = src.shape[-1] if src.rank else 1
                scratch = max(scratch, _align(count * _BYTES[_element_name(src.element_type)],
                                              _BLOCK_BYTES))
            elif name == "ascend.vbrcb":
                dst = ir.MemRefType(op.operands[0].type)
                rows = 1
                for d in dst.shape[:-1]:
                    rows *= d
                scratch = max(scratch, _align(rows, 8) * _BLOCK_BYTES)
            return ir.WalkResult.ADVANCE

        problems: list[CompileError] = []
        self.func.walk(visit)
        if problems:  # raised here: an exception inside walk() loses its diagnostics
            raise problems[0]
        if scratch:
            self.scratch_offset = _align(ends.get("ub", 0), _BLOCK_BYTES)
            self.scratch_bytes = scratch
            ends["ub"] = self.scratch_offset + scratch
            capacity = self.profile.capacity["ub"] - self.profile.reserved.get("ub", 0)
            if ends["ub"] > capacity:
                raise error(f"the AscendC reduction/broadcast scratch ({scratch} bytes at "
                            f"{self.scratch_offset}) does not fit the {capacity} bytes of UB",
                            self.func.location)
        self.ends = {space: _align(end, _BLOCK_BYTES) for space, end in ends.items()}

    # -- entry ----------------------------------------------------------------------------
    def signature(self) -> None:
        func_type = ir.FunctionType(ir.TypeAttr(self.func.attributes["function_type"]).value)
        block = self.func.regions[0].blocks[0]
        arg_attrs = (ir.ArrayAttr(self.func.attributes["arg_attrs"])
                     if "arg_attrs" in self.func.attributes else None)
        symbols: dict[str, str] = {}
        self.gm_decls: list[str] = []
        self.workspace_rows: dict[str, int] = {}
        self.workspace_bytes: dict[str, tuple[int, list[int], int]] = {}
        for index, (arg, t) in enumerate(zip(block.arguments, func_type.inputs, strict=True)):
            attrs = ir.DictAttr(arg_attrs[index]) if arg_attrs is not None else None
            tile_name = (ir.StringAttr(attrs["tile.name"]).value
                         if attrs is not None and "tile.name" in attrs
                         else "workspace" if attrs is not None and "ascend.workspace" in attrs
                         else f"arg{index}")
            name = _ident(tile_name)
            if isinstance(t, ir.MemRefType):
                mt = ir.MemRefType(t)
                element, _ = self._memref_info(mt)
                dims = (list(ir.ArrayAttr(attrs["tile.dims"]))
                        if attrs is not None and "tile.dims" in attrs else [])
                shape: list[str] = []
                for d, size in enumerate(mt.shape):
                    if size != ir.ShapedType.get_dynamic_size():
                        shape.append(str(size))
                        continue
                    symbol = (ir.StringAttr(dims[d]).value if d < len(dims)
                              else f"{tile_name}_dim{d}")
                    param = _ident(symbol)
                    if param not in symbols:
                        symbols[param] = param
                        self.params.append(("int64_t", param))
                    if attrs is not None and "ascend.workspace" in attrs and d == 0:
                        rows = ir.IntegerAttr(attrs["ascend.workspace"]).value
                        self.workspace_rows[param] = rows
                        self.workspace_bytes[name] = (rows, mt.shape[1:], _BYTES[element])
                    shape.append(param)
                self.params.insert(len([p for p in self.params if p[0] == "GM_ADDR"]),
                                   ("GM_ADDR", name))
                ctype = _CTYPE[element]
                gm = f"{name}_gm"
                self.gm_decls.append(f"GlobalTensor<{ctype}> {gm};")
                self.gm_decls.append(f"{gm}.SetGlobalBuffer((__gm__ {ctype}*){name});")
                strides = _row_major_strides(shape)
                self.tensors[arg] = _Tensor(gm, "0", shape, strides, element, "gm",
                                            list(mt.shape))
            else:
                self.params.append((_SCALAR_CTYPE[str(t)], name))
                self.names[arg] = name

    def emit(self) -> AscendCSource:
        self.plan()
        self.signature()
        body_start = len(self.lines)
        for line in self.gm_decls:
            self.line(line)
        self.line("TPipe pipe;")
        for space in ("l1", "l0a", "l0b", "l0c", "ub"):
            if space not in self.ends:
                continue
            self.line(f"TBuf<TPosition::{_POSITION[space]}> {space}_buf;")
            self.line(f"pipe.InitBuffer({space}_buf, {self.ends[space]});")
            self.line(f"LocalTensor<uint8_t> {space} = {space}_buf.Get<uint8_t>();")
        self.block(self.func.regions[0].blocks[0])
        body = self.lines[body_start:]
        name = _ident(ir.StringAttr(self.func.attributes["sym_name"]).value)
        params = ", ".join(f"{t} {n}" for t, n in self.params)
        head = [
            f"// AscendC kernel emitted by tilec from the ascend IR (profile {self.profile_name},",
            f"// __NPU_ARCH__ {self.arch}). A comment [n] ascend.<op> marks the calls of one op.",
            '#include "kernel_operator.h"',
            "",
            "using namespace AscendC;",
            "",
            f'extern "C" __global__ __aicore__ void {name}({params})',
            "{",
            f"    KERNEL_TASK_TYPE_DEFAULT({_KERNEL_TYPE[self.kind]});",
        ]
        kernel = "\n".join([*head, *body, "}", ""])
        return AscendCSource(name, kernel, self.launcher(name), self.markers)

    def launcher(self, name: str) -> str:
        params = ", ".join(f"{t} {n}" for t, n in self.params)
        host = ", ".join(("uint8_t* " + n) if t == "GM_ADDR" else f"{t} {n}"
                         for t, n in self.params if n not in self.workspace_rows)
        args = ", ".join(f"static_cast<int64_t>(blockDim) * {self.workspace_rows[n]}"
                         if n in self.workspace_rows else n for _, n in self.params)
        notes = []
        for ws, (rows, inner, size) in self.workspace_bytes.items():
            row_bytes = size
            for d in inner:
                row_bytes *= d
            notes.append(f"// {ws}: a GM buffer of blockDim * {rows * row_bytes} bytes (zeroed), "
                         "the cube-to-vector exchange of each AI core.")
        cores = self.profile.aic_cores * (self.profile.aiv_per_aic if self.kind == "aiv" else 1)
        if "ascend.grid" in self.func.attributes:
            cores = min(cores, ir.IntegerAttr(self.func.attributes["ascend.grid"]).value)
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
            f"    {name}<<<blockDim, nullptr, stream>>>({args});",
            "}",
            "#endif",
            "",
        ])

    # -- statements -----------------------------------------------------------------------
    def block(self, block: ir.Block) -> None:
        for op in block.operations:
            self.op(op.operation)

    def op(self, op: ir.Operation) -> None:
        name = op.name
        handler = getattr(self, "op_" + name.replace(".", "_"), None)
        if handler is not None:
            handler(op)
        elif name in _INT_BINARY:
            self.bind(op, f"{self.value(op.operands[0])} {_INT_BINARY[name]} "
                          f"{self.value(op.operands[1])}")
        elif name in _MIN_MAX:
            a, b = (self.value(x) for x in op.operands)
            self.bind(op, f"({a} {_MIN_MAX[name]} {b}) ? {a} : {b}")
        elif name in _CASTS:
            self.bind(op, f"static_cast<{_SCALAR_CTYPE[str(op.results[0].type)]}>"
                          f"({self.value(op.operands[0])})")
        elif name.startswith("math."):
            raise error(f"'{name}' on a scalar has no AscendC scalar form (the vector "
                        "unit computes it on UB tensors)", op.location)
        else:
            raise error(f"the AscendC emitter does not support '{name}'", op.location)

    def bind(self, op: ir.Operation, expr: str) -> None:
        result = op.results[0]
        var = self.fresh("v")
        self.line(f"{_SCALAR_CTYPE[str(result.type)]} {var} = {expr};")
        self.names[result] = var

    def op_func_return(self, op: ir.Operation) -> None:
        del op

    def op_arith_constant(self, op: ir.Operation) -> None:
        attr = op.attributes["value"]
        t = str(op.results[0].type)
        if isinstance(attr, ir.FloatAttr):
            value = ir.FloatAttr(attr).value
            text = ("-INFINITY" if value == float("-inf") else "INFINITY"
                    if value == float("inf") else repr(float(value)) + "f")
            self.bind(op, f"static_cast<{_SCALAR_CTYPE[t]}>({text})")
            return
        value = ir.IntegerAttr(attr).value
        # integer constants stay literals, so offsets and extents fold
        text = ("true" if value else "false") if t == "i1" else str(value)
        self.names[op.results[0]] = text if value >= 0 or t == "i1" else f"({text})"

    def op_arith_negf(self, op: ir.Operation) -> None:
        self.bind(op, f"-{self.value(op.operands[0])}")

    def op_arith_ceildivsi(self, op: ir.Operation) -> None:
        a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"({a} + {b} - 1) / {b}")

    def op_arith_floordivsi(self, op: ir.Operation) -> None:
        a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"{a} / {b} - ((({a} % {b}) != 0) && (({a} < 0) != ({b} < 0)))")

    def op_math_absf(self, op: ir.Operation) -> None:
        x = self.value(op.operands[0])
        self.bind(op, f"({x} < 0 ? -{x} : {x})")

    def op_math_floor(self, op: ir.Operation) -> None:
        self.rounded(op, ">", "- 1")

    def op_math_ceil(self, op: ir.Operation) -> None:
        self.rounded(op, "<", "+ 1")

    def rounded(self, op: ir.Operation, beyond: str, step: str) -> None:
        """floor/ceil on the scalar unit: truncate, then step once where that went the
        wrong way (exact for |x| < 2^63)."""
        x = self.value(op.operands[0])
        ctype = _SCALAR_CTYPE[str(op.results[0].type)]
        whole = self.fresh("w")
        self.line(f"{ctype} {whole} = static_cast<{ctype}>(static_cast<int64_t>({x}));")
        self.bind(op, f"{whole} {beyond} {x} ? {whole} {step} : {whole}")

    def op_arith_select(self, op: ir.Operation) -> None:
        c, a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"{c} ? {a} : {b}")

    def op_arith_cmpi(self, op: ir.Operation) -> None:
        predicate = _ICMP_PREDICATES[ir.IntegerAttr(op.attributes["predicate"]).value]
        a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"{a} {_ICMP[predicate]} {b}")

    def op_arith_cmpf(self, op: ir.Operation) -> None:
        predicate = _FCMP_PREDICATES[ir.IntegerAttr(op.attributes["predicate"]).value]
        if predicate not in _FCMP:
            raise error(f"the AscendC emitter does not support cmpf '{predicate}'", op.location)
        a, b = (self.value(x) for x in op.operands)
        self.bind(op, f"static_cast<float>({a}) {_FCMP[predicate]} static_cast<float>({b})")

    def op_scf_for(self, op: ir.Operation) -> None:
        lb, ub, step = (self.value(x) for x in op.operands[:3])
        body = op.regions[0].blocks[0]
        results = self.carried(op, op.operands[3:])
        iv = self.fresh("i")
        self.names[body.arguments[0]] = iv
        for arg, var in zip(body.arguments[1:], results, strict=True):
            self.names[arg] = var
        self.line(f"for (int64_t {iv} = {lb}; {iv} < {ub}; {iv} += {step}) {{")
        self.indent += 1
        self.block(body)
        self.indent -= 1
        self.line("}")

    def carried(self, op: ir.Operation, inits: object) -> list[str]:
        """Declares one variable per result of `op` (from `inits` when given)."""
        names = []
        init_values = list(inits) if inits is not None else []
        for index, result in enumerate(op.results):
            var = self.fresh("r")
            init = f" = {self.value(init_values[index])}" if init_values else ""
            self.line(f"{_SCALAR_CTYPE[str(result.type)]} {var}{init};")
            self.names[result] = var
            names.append(var)
        return names

    def op_scf_yield(self, op: ir.Operation) -> None:
        for var, v in zip(self.yielding_for(op), op.operands, strict=True):
            self.line(f"{var} = {self.value(v)};")

    def yielding_for(self, op: ir.Operation) -> list[str]:
        parent = op.parent
        return [self.names[r] for r in parent.results]

    def op_scf_if(self, op: ir.Operation) -> None:
        self.carried(op, None)
        self.line(f"if ({self.value(op.operands[0])}) {{")
        self.indent += 1
        self.block(op.regions[0].blocks[0])
        self.indent -= 1
        if op.regions[1].blocks and len(op.regions[1].blocks[0].operations):
            self.line("} else {")
            self.indent += 1
            self.block(op.regions[1].blocks[0])
            self.indent -= 1
        self.line("}")

    # -- memref ---------------------------------------------------------------------------
    def op_memref_alloc(self, op: ir.Operation) -> None:
        t = ir.MemRefType(op.results[0].type)
        element, space = self._memref_info(t)
        offset = ir.IntegerAttr(op.attributes["ascend.offset"]).value
        var = self.fresh("t")
        ctype = _CTYPE[element]
        self.line(f"LocalTensor<{ctype}> {var} = {space}[{offset}].ReinterpretCast<{ctype}>();")
        self.alloc_offsets[var] = offset
        shape = [str(d) for d in t.shape]
        self.tensors[op.results[0]] = _Tensor(var, "0", shape, _row_major_strides(shape),
                                              element, space, list(t.shape))

    def op_memref_dealloc(self, op: ir.Operation) -> None:
        del op

    def op_memref_dim(self, op: ir.Operation) -> None:
        tensor = self.tensor(op.operands[0], op)
        index = op.operands[1].owner
        if not (isinstance(index, ir.Operation | ir.OpView) and index.name == "arith.constant"):
            raise error("memref.dim with a dynamic index is not supported by the AscendC "
                        "emitter", op.location)
        d = ir.IntegerAttr(index.attributes["value"]).value
        self.bind(op, tensor.shape[d])

    def op_memref_subview(self, op: ir.Operation) -> None:
        source = self.tensor(op.operands[0], op)
        static_offsets = list(ir.DenseI64ArrayAttr(op.attributes["static_offsets"]))
        static_strides = list(ir.DenseI64ArrayAttr(op.attributes["static_strides"]))
        dynamic = iter(self.value(v) for v in op.operands[1:])
        offset = "0"
        for d, (o, s) in enumerate(zip(static_offsets, static_strides, strict=True)):
            text = next(dynamic) if o == ir.ShapedType.get_dynamic_stride_or_offset() else str(o)
            offset = _add(offset, _mul(text, source.strides[d]))
            if s != 1:
                raise error("a strided subview cannot be an AscendC LocalTensor view",
                            op.location)
        t = ir.MemRefType(op.results[0].type)
        shape = [str(d) for d in t.shape]
        # the view keeps the strides of its source (vector ops reject non-contiguous views)
        dropped = len(source.strides) - t.rank
        strides = source.strides[dropped:] if dropped >= 0 else source.strides
        base = source.base
        var = self.fresh("t")
        full = _add(source.offset, offset)
        if source.space == "gm":
            self.tensors[op.results[0]] = _Tensor(base, full, shape, strides, source.element,
                                                  "gm", list(t.shape))
            return
        self.line(f"LocalTensor<{_CTYPE[source.element]}> {var} = {base}[{full}];")
        self.views.add(var)
        if base in self.alloc_offsets and full.isdigit():
            self.alloc_offsets[var] = self.alloc_offsets[base] + int(full) * _BYTES[source.element]
        self.tensors[op.results[0]] = _Tensor(var, "0", shape, strides, source.element,
                                              source.space, list(t.shape))

    def reshaped(self, op: ir.Operation, dynamic: list[str]) -> None:
        """A new shape over the same contiguous elements (expand/collapse_shape, cast)."""
        source = self.tensor(op.operands[0], op)
        if source.strides != _row_major_strides(source.shape):
            raise error("a reshape of a strided view has no AscendC tensor", op.location)
        t = ir.MemRefType(op.results[0].type)
        sizes = iter(dynamic)
        shape = [str(d) if d != ir.ShapedType.get_dynamic_size() else next(sizes)
                 for d in t.shape]
        self.tensors[op.results[0]] = _Tensor(source.base, source.offset, shape,
                                              _row_major_strides(shape), source.element,
                                              source.space, list(t.shape))

    def op_memref_expand_shape(self, op: ir.Operation) -> None:
        self.reshaped(op, [self.value(v) for v in op.operands[1:]])

    def op_memref_collapse_shape(self, op: ir.Operation) -> None:
        source = self.tensor(op.operands[0], op)
        groups = [list(ir.ArrayAttr(g)) for g in ir.ArrayAttr(op.attributes["reassociation"])]
        sizes = []
        for group in groups:
            extent = "1"
            for d in group:
                extent = _mul(extent, source.shape[ir.IntegerAttr(d).value])
            sizes.append(extent)
        t = ir.MemRefType(op.results[0].type)
        self.reshaped(op, [e for e, d in zip(sizes, t.shape, strict=True)
                           if d == ir.ShapedType.get_dynamic_size()])

    def op_memref_cast(self, op: ir.Operation) -> None:
        source = self.tensor(op.operands[0], op)
        t = ir.MemRefType(op.results[0].type)
        shape = [str(d) if d != ir.ShapedType.get_dynamic_size() else known
                 for d, known in zip(t.shape, source.shape, strict=True)]
        self.tensors[op.results[0]] = _Tensor(source.base, source.offset, shape, source.strides,
                                              source.element, source.space, list(t.shape))

    def op_memref_reinterpret_cast(self, op: ir.Operation) -> None:
        source = self.tensor(op.operands[0], op)
        if source.offset != "0" or source.base in self.views:
            raise error("reinterpret_cast of a view: its offset is relative to the "
                        "allocation, which this view does not start", op.location)
        dynamic = iter(self.value(v) for v in op.operands[1:])
        marker = ir.ShapedType.get_dynamic_stride_or_offset()

        def values(name: str, unknown: int) -> list[str]:
            return [next(dynamic) if v == unknown else str(v)
                    for v in ir.DenseI64ArrayAttr(op.attributes[name])]

        offset = values("static_offsets", marker)[0]
        shape = values("static_sizes", ir.ShapedType.get_dynamic_size())
        strides = values("static_strides", marker)
        t = ir.MemRefType(op.results[0].type)
        self.tensors[op.results[0]] = _Tensor(source.base, offset, shape, strides,
                                              source.element, source.space, list(t.shape))

    def element_index(self, tensor: _Tensor, indices: list[ir.Value]) -> str:
        return self.linear(tensor, [self.value(i) for i in indices])

    def op_memref_load(self, op: ir.Operation) -> None:
        tensor = self.tensor(op.operands[0], op)
        index = self.element_index(tensor, list(op.operands[1:]))
        self.bind(op, f"{tensor.base}.GetValue({index})")

    def op_memref_store(self, op: ir.Operation) -> None:
        tensor = self.tensor(op.operands[1], op)
        index = self.element_index(tensor, list(op.operands[2:]))
        self.line(f"{tensor.base}.SetValue({index}, {self.value(op.operands[0])});")

    # -- ascend: indices and cores -----------------------------------------------------
    def op_ascend_block_idx(self, op: ir.Operation) -> None:
        self.marker(op)
        self.bind(op, "static_cast<int64_t>(GetBlockIdx())")

    def op_ascend_block_num(self, op: ir.Operation) -> None:
        self.marker(op)
        self.bind(op, "static_cast<int64_t>(GetBlockNum())")

    def op_ascend_sub_block_idx(self, op: ir.Operation) -> None:
        self.marker(op)
        self.bind(op, "static_cast<int64_t>(GetSubBlockIdx())")

    def op_ascend_core(self, op: ir.Operation) -> None:
        core = _keyword(op.attributes["core"])
        self.marker(op, core)
        self.line(f"if ASCEND_IS_{core.upper()} {{")
        self.indent += 1
        self.block(op.regions[0].blocks[0])
        self.indent -= 1
        self.line("}")

    # -- ascend: synchronization ---------------------------------------------------------
    def flag(self, op: ir.Operation, call: str) -> None:
        src = _PIPE[_keyword(op.attributes["src"])]
        dst = _PIPE[_keyword(op.attributes["dst"])]
        event = ir.IntegerAttr(op.attributes["event"]).value
        if f"{src}_{dst}" not in HARD_EVENTS:
            raise error(f"AscendC has no HardEvent for a flag from {src} to {dst}", op.location)
        self.marker(op)
        self.line(f"{call}<HardEvent::{src}_{dst}>({event});")

    def op_ascend_set_flag(self, op: ir.Operation) -> None:
        self.flag(op, "SetFlag")

    def op_ascend_wait_flag(self, op: ir.Operation) -> None:
        self.flag(op, "WaitFlag")

    def op_ascend_pipe_barrier(self, op: ir.Operation) -> None:
        self.marker(op)
        self.line(f"PipeBarrier<PIPE_{_PIPE[_keyword(op.attributes['pipe'])]}>();")

    def op_ascend_cross_core_set_flag(self, op: ir.Operation) -> None:
        mode = ir.IntegerAttr(op.attributes["mode"]).value
        pipe = _PIPE[_keyword(op.attributes["pipe"])]
        self.marker(op)
        flag = ir.IntegerAttr(op.attributes["flag"]).value
        self.line(f"CrossCoreSetFlag<{mode}, PIPE_{pipe}>({flag});")

    def op_ascend_cross_core_wait_flag(self, op: ir.Operation) -> None:
        flag = ir.IntegerAttr(op.attributes["flag"]).value
        pipe = _keyword(op.attributes["pipe"]) if "pipe" in op.attributes else "s"
        self.marker(op)
        if pipe == "s":
            self.line(f"CrossCoreWaitFlag({flag});")
        else:
            self.line(f"CrossCoreWaitFlag<{2 if self.kind == 'mix' else 0}, PIPE_{_PIPE[pipe]}>"
                      f"({flag});")

    def op_ascend_sync_all(self, op: ir.Operation) -> None:
        self.marker(op)
        # the default SyncAll<true> syncs vector cores only; a mix kernel syncs all of them
        self.line("SyncAll<false>();" if self.kind == "mix" else "SyncAll();")

    # -- ascend: data movement -----------------------------------------------------------
    def op_ascend_copy(self, op: ir.Operation) -> None:
        segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        operands = list(op.operands)
        src_v, dst_v = operands[0], operands[1 + segments[1]]
        src_offsets = [self.value(v) for v in operands[1:1 + segments[1]]]
        dst_offsets = [self.value(v) for v in operands[2 + segments[1]:]]
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
        src, dst = self.tensor(src_v, op), self.tensor(dst_v, op)
        self.marker(op, f"{src.space} -> {dst.space} sizes {sizes}")
        # dimensions before the last two: a loop of 2-D copies on the same pipe
        opened = 0
        gm = src if src.space == "gm" else dst if dst.space == "gm" else None
        gm_offsets = src_offsets if gm is src else dst_offsets
        for d, extent in enumerate(sizes[:-2]):
            if extent == 1:
                continue
            count = str(extent) if gm is None else self.valid_extent(
                gm.shape[d], gm_offsets[d], extent)
            var = self.fresh("l")
            self.line(f"for (int64_t {var} = 0; {var} < {count}; ++{var}) {{")
            self.indent += 1
            opened += 1
            src_offsets[d] = _add(src_offsets[d], var)
            dst_offsets[d] = _add(dst_offsets[d], var)
        if gm is not None:
            lead_outside = [self.valid_extent(gm.shape[d], gm_offsets[d], 1)
                            for d, extent in enumerate(sizes[:-2]) if extent == 1]
            self.gm_copy(op, src, dst, src_offsets, dst_offsets, sizes, lead_outside)
        else:
            self.local_copy(op, src, dst, src_offsets, dst_offsets, sizes)
        for _ in range(opened):
            self.indent -= 1
            self.line("}")

    def local_copy(self, op: ir.Operation, src: _Tensor, dst: _Tensor, src_offsets: list[str],
                   dst_offsets: list[str], sizes: list[int]) -> None:
        """On-chip to on-chip (UB -> UB on V; L1 <-> UB on the 950): 32-byte blocks."""
        size = _BYTES[src.element]
        rows = sizes[-2] if len(sizes) >= 2 else 1
        row_bytes = (sizes[-1] if sizes else 1) * size
        lds = [t.strides[-2] if len(t.strides) >= 2 else None for t in (src, dst)]
        ld_bytes = [int(ld) * size if ld is not None and ld.isdigit() else None for ld in lds]
        ld_ok = rows == 1 or all(b is not None and b % _BLOCK_BYTES == 0 and b >= row_bytes
                                 for b in ld_bytes)
        if row_bytes % _BLOCK_BYTES and ld_ok and src.space == dst.space == "ub" \
                and size in (2, 4) and row_bytes <= _REPEAT_BYTES and rows <= 255:
            # rows of less than whole blocks: a masked vector Copy, one repeat per row
            repeat = [str((b or 0) // _BLOCK_BYTES) for b in ld_bytes]
            params = self.struct("CopyRepeatParams", {
                "dstStride": "1", "srcStride": "1", "dstRepeatSize": repeat[1],
                "srcRepeatSize": repeat[0]}, op)
            self.line(f"Copy({_at(dst, self.linear(dst, dst_offsets))}, "
                      f"{_at(src, self.linear(src, src_offsets))}, {sizes[-1]}, {rows}, {params});")
            return
        if row_bytes % _BLOCK_BYTES or not ld_ok:
            raise error(f"an on-chip copy of {sizes[-1]} x {size}-byte rows is not in 32-byte "
                        "blocks (AscendC DataCopy between local tensors needs them)", op.location)
        gaps = [(b - row_bytes) // _BLOCK_BYTES if rows > 1 and b is not None else 0
                for b in ld_bytes]
        params = self.struct("DataCopyParams", {
            "blockCount": str(rows), "blockLen": str(row_bytes // _BLOCK_BYTES),
            "srcStride": str(gaps[0]), "dstStride": str(gaps[1])}, op)
        self.line(f"DataCopy({_at(dst, self.linear(dst, dst_offsets))}, "
                  f"{_at(src, self.linear(src, src_offsets))}, {params});")

    def linear(self, tensor: _Tensor, offsets: list[str]) -> str:
        """Element offset of `tensor[offsets]` from the tensor's base."""
        index = tensor.offset
        for i, s in zip(offsets, tensor.strides, strict=True):
            index = _add(index, _mul(i, s))
        return index

    def valid_extent(self, bound: str, start: str, extent: int) -> str:
        """How many of `extent` indices from `start` lie below `bound` (edge tiles)."""
        if bound.isdigit() and start.isdigit():
            return str(max(0, min(extent, int(bound) - int(start))))
        var = self.fresh("n")
        self.line(f"int64_t {var} = {bound} - {start};")
        self.line(f"{var} = {var} < 0 ? 0 : ({var} > {extent} ? {extent} : {var});")
        return var

    def gm_copy(self, op: ir.Operation, src: _Tensor, dst: _Tensor, src_offsets: list[str],
                dst_offsets: list[str], sizes: list[int], lead: list[str]) -> None:
        """GM <-> UB/L1 with DataCopyPad: only the part inside the GM tensor moves."""
        gm, local = (src, dst) if src.space == "gm" else (dst, src)
        gm_offsets = src_offsets if gm is src else dst_offsets
        size = _BYTES[gm.element]
        rank = len(sizes)
        rows = sizes[-2] if rank >= 2 else 1
        cols = sizes[-1] if rank else 1
        valid_rows = self.valid_extent(gm.shape[-2], gm_offsets[-2], rows) if rank >= 2 else "1"
        valid_cols = self.valid_extent(gm.shape[-1], gm_offsets[-1], cols) if rank else "1"
        gm_ld = gm.strides[-2] if rank >= 2 else str(cols)
        local_ld = local.strides[-2] if rank >= 2 else str(cols)
        if rows > 1 and gm_ld == local_ld == str(cols) and gm_offsets[-1] == "0":
            # whole rows on both sides: one contiguous block
            valid_cols = f"{valid_rows} * {valid_cols}" if valid_rows != "1" else valid_cols
            valid_rows, rows = "1", 1
        local_row = int(local_ld) * size if local_ld.isdigit() else None
        if rows > 1 and (local_row is None or local_row % _BLOCK_BYTES):
            raise error(f"the local rows of this copy ({local_ld} x {size} bytes) are not 32-byte "
                        "aligned (DataCopyPad needs aligned rows on the local side)", op.location)
        block = f"{valid_cols} * {size}"
        local_gap = f"({local_row} - (({block} + 31) / 32) * 32) / 32" if rows > 1 else "0"
        gm_gap = f"({gm_ld} - {valid_cols}) * {size}" if rows > 1 else "0"
        ext = self.struct("DataCopyExtParams", {
            "blockCount": f"static_cast<uint16_t>({valid_rows})",
            "blockLen": f"static_cast<uint32_t>({block})",
            "srcStride": gm_gap if src is gm else local_gap,
            "dstStride": local_gap if src is gm else gm_gap, "rsv": "0"}, op)
        checks = [e for e in (*lead, valid_rows, valid_cols) if not e.isdigit()]
        if any(e == "0" for e in (*lead, valid_rows, valid_cols)):
            self.line("// the region lies outside the GM tensor: nothing moves")
            return
        guard = f"if ({' && '.join(f'{e} > 0' for e in checks)}) " if checks else ""
        target = _at(dst, self.linear(dst, dst_offsets))
        origin = _at(src, self.linear(src, src_offsets))
        if src is gm:
            pad = self.fresh("pad")
            self.line(f"DataCopyPadExtParams<{_CTYPE[gm.element]}> {pad};")
            self.line(f"{guard}DataCopyPad({target}, {origin}, {ext}, {pad});")
        elif "atomic_add" in op.attributes:
            # the store adds into GM, atomically across cores, while the mode is set
            self.line(f"SetAtomicAdd<{_CTYPE[gm.element]}>();")
            self.line(f"{guard}DataCopyPad({target}, {origin}, {ext});")
            self.line("SetAtomicNone();")
        else:
            self.line(f"{guard}DataCopyPad({target}, {origin}, {ext});")

    def op_ascend_copy_nd2nz(self, op: ir.Operation) -> None:
        src = self.tensor(op.operands[0], op)
        offsets = [self.value(v) for v in op.operands[1:-1]]
        dst = self.tensor(op.operands[-1], op)
        rows, cols = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
        self.marker(op, f"sizes [{rows}, {cols}]")
        valid_rows = self.valid_extent(src.shape[0], offsets[0], rows)
        valid_cols = self.valid_extent(src.shape[1], offsets[1], cols)
        r1 = dst.static_shape[1]
        params = self.struct("Nd2NzParams", {
            "ndNum": "1", "nValue": f"static_cast<uint16_t>({valid_rows})",
            "dValue": f"{valid_cols}", "srcNdMatrixStride": "0", "srcDValue": src.strides[0],
            "dstNzC0Stride": str(r1 * 16), "dstNzNStride": "1", "dstNzMatrixStride": "0"}, op)
        self.line(f"DataCopy({dst.base}, {_at(src, self.linear(src, offsets))}, "
                  f"{params});")

    def load_data(self, op: ir.Operation, dst: _Tensor, src: _Tensor, calls: list[tuple[int, int,
                  int, int, bool]]) -> None:
        """One LoadData per (dst fractal, start fractal, repeats, src stride, transpose)."""
        fractal = _FRACTAL_BYTES // _BYTES[src.element]
        for dst_fractal, start, repeats, stride, transpose in calls:
            if repeats > 255:
                raise error(f"LoadData repeats {repeats} fractals; at most 255 per call",
                            op.location)
            params = self.struct("LoadData2DParams", {
                "startIndex": str(start), "dstGap": "0", "srcStride": str(stride),
                "ifTranspose": "true" if transpose else "false", "repeatTimes": str(repeats),
                "sid": "0", "addrMode": "0"}, op)
            target = dst.base if dst_fractal == 0 else f"{dst.base}[{dst_fractal * fractal}]"
            self.line(f"LoadData({target}, {src.base}, {params});")

    def op_ascend_load_l0a(self, op: ir.Operation) -> None:
        src, dst = self.tensor(op.operands[0], op), self.tensor(op.operands[1], op)
        transpose = "transpose" in op.attributes
        m1, k1 = dst.static_shape[0], dst.static_shape[1]
        self.marker(op, "transpose" if transpose else "")
        if transpose:
            self.need_16_bit(op, src)
            self.load_data(op, dst, src, [(0, 0, m1 * k1, 1, True)])
        elif self.arch == 3510:
            # the 950's L0A takes Nz, the layout L1 already holds: one contiguous load
            self.load_data(op, dst, src, [(0, 0, m1 * k1, 1, False)])
        else:
            self.load_data(op, dst, src, [(m * k1, m, k1, m1, False) for m in range(m1)])

    def op_ascend_load_l0b(self, op: ir.Operation) -> None:
        src, dst = self.tensor(op.operands[0], op), self.tensor(op.operands[1], op)
        transpose = "transpose" in op.attributes
        k1, n1 = dst.static_shape[0], dst.static_shape[1]
        self.marker(op, "transpose" if transpose else "")
        if transpose:
            self.load_data(op, dst, src, [(0, 0, k1 * n1, 1, False)])
        else:
            self.need_16_bit(op, src)
            self.load_data(op, dst, src, [(k * n1, k, n1, k1, True) for k in range(k1)])

    def need_16_bit(self, op: ir.Operation, src: _Tensor) -> None:
        if _BYTES[src.element] != 2:
            raise error(f"LoadData2D transposes only 16-bit fractals, not {src.element} "
                        "(the emitter has no LoadDataWithTranspose path yet)", op.location)

    def op_ascend_mmad(self, op: ir.Operation) -> None:
        a, b, c = (self.tensor(v, op) for v in op.operands)
        m, n, k = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
        init = "init" in op.attributes
        self.marker(op, f"sizes [{m}, {n}, {k}]{' init' if init else ''}")
        params = self.struct("MmadParams", {"m": str(m), "n": str(n), "k": str(k),
                                            "cmatrixInitVal": "true" if init else "false"}, op)
        self.line(f"Mmad({c.base}, {a.base}, {b.base}, {params});")

    def op_ascend_fixpipe(self, op: ir.Operation) -> None:
        src = self.tensor(op.operands[0], op)
        dst = self.tensor(op.operands[1], op)
        offsets = [self.value(v) for v in op.operands[2:]]
        m, n = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
        relu = "relu" in op.attributes
        self.marker(op, f"sizes [{m}, {n}]{' relu' if relu else ''}")
        if dst.space != "gm":
            raise error(f"the AscendC emitter drains L0C only to GM (not {dst.space}) so far",
                        op.location)
        quant = _QUANT.get((src.element, dst.element))
        if quant is None:
            raise error(f"no fixpipe conversion from {src.element} to {dst.element}",
                        op.location)
        valid_m = self.valid_extent(dst.shape[0], offsets[0], m)
        valid_n = self.valid_extent(dst.shape[1], offsets[1], n)
        m1 = src.static_shape[1]
        params = self.struct("FixpipeParamsV220", {
            "nSize": f"static_cast<uint16_t>({valid_n})",
            "mSize": f"static_cast<uint16_t>({valid_m})",
            "srcStride": str(m1 * 16), "dstStride": f"static_cast<uint32_t>({dst.strides[0]})",
            "quantPre": f"QuantMode_t::{quant}", "ndNum": "1", "srcNdStride": "0",
            "dstNdStride": "0", "reluEn": "true" if relu else "false"}, op)
        checks = [e for e in (valid_m, valid_n) if not e.isdigit()]
        if "0" in (valid_m, valid_n):
            self.line("// the tile lies outside the GM tensor: nothing moves")
            return
        guard = f"if ({' && '.join(f'{e} > 0' for e in checks)}) " if checks else ""
        self.line(f"{guard}Fixpipe<{_CTYPE[dst.element]}, {_CTYPE[src.element]}, CFG_ROW_MAJOR>("
                  f"{_at(dst, self.linear(dst, offsets))}, {src.base}, {params});")

    # -- ascend: vector ------------------------------------------------------------------
    def vector(self, op: ir.Operation, value: ir.Value) -> tuple[_Tensor, int]:
        tensor = self.tensor(value, op)
        count = 1
        for d in tensor.static_shape:
            count *= d
        if tensor.space != "ub":
            raise error(f"vector operand in {tensor.space}, not UB", op.location)
        if tensor.strides != _row_major_strides(tensor.shape) and count > 1 and \
                sum(1 for d in tensor.static_shape if d != 1) > 1:
            raise error("a vector operand view that is not contiguous has no AscendC "
                        "count-mode call", op.location)
        return tensor, count

    def op_ascend_vbin(self, op: ir.Operation) -> None:
        kind = _keyword(op.attributes["kind"])
        (dst, count), (a, _), (b, _) = (self.vector(op, v) for v in op.operands)
        self.marker(op, kind)
        self.line(f"{_VBIN[kind]}({dst.at()}, {a.at()}, {b.at()}, {count});")

    def op_ascend_vbins(self, op: ir.Operation) -> None:
        kind = _keyword(op.attributes["kind"])
        (dst, count), (src, _) = (self.vector(op, v) for v in op.operands[:2])
        scalar = self.value(op.operands[2])
        self.marker(op, kind)
        self.line(f"{_VBINS[kind]}({dst.at()}, {src.at()}, static_cast<{_CTYPE[dst.element]}>"
                  f"({scalar}), {count});")

    def op_ascend_vunary(self, op: ir.Operation) -> None:
        kind = _keyword(op.attributes["kind"])
        (dst, count), (src, _) = (self.vector(op, v) for v in op.operands)
        self.marker(op, kind)
        if kind == "neg":
            self.line(f"Muls({dst.at()}, {src.at()}, static_cast<{_CTYPE[dst.element]}>(-1), "
                      f"{count});")
        else:
            self.line(f"{_VUNARY[kind]}({dst.at()}, {src.at()}, {count});")

    def op_ascend_vdup(self, op: ir.Operation) -> None:
        dst, count = self.vector(op, op.operands[0])
        self.marker(op)
        self.line(f"Duplicate({dst.at()}, static_cast<{_CTYPE[dst.element]}>"
                  f"({self.value(op.operands[1])}), {count});")

    def op_ascend_vcast(self, op: ir.Operation) -> None:
        (dst, count), (src, _) = (self.vector(op, v) for v in op.operands)
        mode = _keyword(op.attributes["round"]) if "round" in op.attributes else "none"
        self.marker(op, mode)
        self.line(f"Cast({dst.at()}, {src.at()}, RoundMode::{_ROUND[mode]}, {count});")

    def scratch(self, element: str) -> str:
        ctype = _CTYPE[element]
        return f"ub[{self.scratch_offset}].ReinterpretCast<{ctype}>()"

    def op_ascend_vreduce(self, op: ir.Operation) -> None:
        kind = _keyword(op.attributes["kind"])
        (dst, rows), (src, count) = (self.vector(op, v) for v in op.operands)
        cols = src.static_shape[-1] if src.static_shape else 1
        self.marker(op, kind)
        work = self.fresh("work")
        self.line(f"LocalTensor<{_CTYPE[src.element]}> {work} = {self.scratch(src.element)};")
        call = _REDUCE[kind]
        if rows == 1:
            self.line(f"{call}({dst.at()}, {src.at()}, {work}, {cols});")
            return
        r = self.fresh("row")
        self.line(f"for (int32_t {r} = 0; {r} < {count // cols}; ++{r}) {{")
        self.line(f"    {call}({_index_view(dst, r, 1)}, {_index_view(src, r, cols)}, {work}, "
                  f"{cols});")
        self.v_barrier("    ")  # the next row reuses the work buffer
        self.line("}")

    def v_barrier(self, indent: str = "") -> None:
        """Orders two dependent vector calls of one op: the 910b's V pipe does not (the
        950's does, in hardware)."""
        if self.arch == 2201:
            self.line(f"{indent}PipeBarrier<PIPE_V>();")

    def op_ascend_vbrcb(self, op: ir.Operation) -> None:
        (dst, count), (src, rows) = (self.vector(op, v) for v in op.operands)
        cols = count // rows
        size = _BYTES[dst.element]
        if size not in (2, 4):
            raise error(f"Brcb broadcasts 16- and 32-bit elements, not {dst.element}",
                        op.location)
        self.marker(op)
        block = _BLOCK_BYTES // size
        per_repeat = _REPEAT_BYTES // size
        blocks = self.fresh("blocks")
        ctype = _CTYPE[dst.element]
        self.line(f"LocalTensor<{ctype}> {blocks} = {self.scratch(dst.element)};")
        params = self.struct("BrcbRepeatParams", {"dstBlkStride": "1", "dstRepStride": "8"}, op)
        self.line(f"Brcb({blocks}, {src.at()}, {_ceil(rows, 8)}, {params});")
        self.v_barrier()
        copy = self.struct("CopyRepeatParams", {"dstStride": "1", "srcStride": "0",
                                                "dstRepeatSize": "8", "srcRepeatSize": "0"}, op)
        full, tail = divmod(cols, per_repeat)
        r = self.fresh("row")
        self.line(f"for (int32_t {r} = 0; {r} < {rows}; ++{r}) {{")
        source = f"{blocks}[{r} * {block}]"
        if full:
            self.line(f"    Copy({_index_view(dst, r, cols)}, {source}, {per_repeat}, {full}, "
                      f"{copy});")
        if tail:
            self.line(f"    Copy({_index_view(dst, r, cols, full * per_repeat)}, {source}, "
                      f"{tail}, 1, {copy});")
        self.line("}")

    def op_ascend_vcmp(self, op: ir.Operation) -> None:
        kind = _keyword(op.attributes["kind"])
        (mask, _), (a, count), (b, _) = (self.vector(op, v) for v in op.operands)
        self.marker(op, kind)
        # count mode compares whole 256-byte repeats only: round up (the lanes past the
        # tile write mask bits that no one reads; the mask holds a byte per lane)
        lanes = _REPEAT_BYTES // _BYTES[a.element]
        rounded = _ceil(count, lanes) * lanes
        if rounded != count:
            for operand in (a, b):
                start = self.view_start(operand, op)
                if start + rounded * _BYTES[a.element] > self.ends["ub"]:
                    raise error(f"Compare of {count} {a.element} lanes needs whole 256-byte "
                                f"repeats ({rounded} lanes), past the end of UB", op.location)
            self.line(f"// {count} lanes, rounded up to whole 256-byte repeats")
        self.line(f"Compare({mask.at()}, {a.at()}, {b.at()}, CMPMODE::{_CMP[kind]}, {rounded});")

    def view_start(self, tensor: _Tensor, op: ir.Operation) -> int:
        """Byte offset of a UB tensor in the UB buffer (static views only)."""
        base = self.alloc_offsets.get(tensor.base)
        if base is None or not tensor.offset.isdigit():
            raise error("a Compare operand whose UB offset is not static cannot be rounded "
                        "to whole repeats", op.location)
        return base + int(tensor.offset) * _BYTES[tensor.element]

    def op_ascend_vsel(self, op: ir.Operation) -> None:
        (dst, count), (mask, _), (a, _), (b, _) = (self.vector(op, v) for v in op.operands)
        self.marker(op)
        self.line(f"Select({dst.at()}, {mask.at()}, {a.at()}, {b.at()}, "
                  f"SELMODE::VSEL_TENSOR_TENSOR_MODE, {count});")


def _at(tensor: _Tensor, index: str) -> str:
    return tensor.base if index == "0" else f"{tensor.base}[{index}]"


def _index_view(tensor: _Tensor, row: str, cols: int, extra: int = 0) -> str:
    index = _add(tensor.offset, f"{row} * {cols}" if cols != 1 else row)
    if extra:
        index = f"{index} + {extra}"
    return f"{tensor.base}[{index}]"


def _align(value: int, alignment: int) -> int:
    return _ceil(value, alignment) * alignment


def _row_major_strides(shape: list[str]) -> list[str]:
    strides: list[str] = []
    running = "1"
    for d in reversed(shape):
        strides.append(running)
        running = _mul(running, d) if not (running.isdigit() and d.isdigit()) \
            else str(int(running) * int(d))
    return list(reversed(strides))


def kernel_functions(module: ir.Module) -> list[ir.Operation]:
    """The functions of `module` that carry `ascend.kernel`."""
    return [op.operation for op in module.body.operations
            if op.operation.name == "func.func" and "ascend.kernel" in op.operation.attributes]


def emit_ascendc(module: ir.Module, profile: str = "910b") -> list[AscendCSource]:
    """AscendC for every `ascend.kernel` function of `module` (final ascend IR)."""
    if profile not in ARCH:
        raise error(f"unknown ascend profile '{profile}' (expected one of {', '.join(ARCH)})")
    functions = kernel_functions(module)
    if not functions:
        raise error("no function with `ascend.kernel` to emit as AscendC (run tile-to-ascend "
                    "first)", module.operation.location)
    return [_Emitter(func, profile).emit() for func in functions]


def ascendc_text(module: ir.Module, profile: str = "910b") -> str:
    """Every kernel's source and launcher, one after another."""
    return "\n".join(source.text() for source in emit_ascendc(module, profile))


__all__ = ["API_CALLS", "ARCH", "HARD_EVENTS", "STRUCTS", "AscendCSource", "CompileError",
           "ascendc_text", "emit_ascendc", "kernel_functions"]
