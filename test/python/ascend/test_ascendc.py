"""AscendC from the final ascend IR (python/tilec/backends/ascend/ascendc/).

Same program: for the example kernels and kernels of the ascend tests (gemm,
vector, mixed, examples), on both profiles, the C++ has one marker per ascend
op of the IR the simulator runs, in order and at the same nesting, and under
each marker exactly the vendor calls of that op with its parameters (flags,
counts, sizes), including the zeros a load reads past its GM tensor's edge.
A kernel the emitter does not write is listed in NOT_EMITTED with the located
error saying what the API cannot express (test_ascendc_suite.py, marked slow,
checks every kernel the whole ascend suite simulates). Well-formed C++: every source passes
`g++ -fsyntax-only` against a permissive stand-in of `kernel_operator.h`
(it checks the printer, not the vendor API). Conformance with the vendor's
headers: with `ASCEND_DEVKIT` naming a copy of asc-devkit, the parameter
structs (fields, order, types), HardEvent pairs, enums and every function
the sources call are checked against them, and the sources compile in the
headers' CPU-debug mode when the toolkit's CPU-debug stubs are there too.
"""

from __future__ import annotations

import functools
import math
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import test_ascend_atomic_regions as atomic_tests
import test_ascend_backend as backend_tests
import test_ascend_gemm as gemm_tests
import test_ascend_gm_copies as gm_copy_tests
import test_ascend_integer_row_reduce as integer_reduce_tests
import test_ascend_mixed as mixed_tests
import test_ascend_row_gather as row_gather_tests
import test_ascend_vector_kernels as vector_tests
from example_kernels import example
from vendor_headers import DEVKIT, compile_errors, needs_devkit

import tilec
import tilec.language as T
from tilec import ir, sim
from tilec.backends.ascend.ascendc import ARCH, HARD_EVENTS, STRUCTS, emit_ascendc
from tilec.diagnostics import CompileError

PROFILES = ["910b", "950"]
M = T.symbolic("M")


def scalar_math(n: int, per_element=T.log2, block: int = 32, dtype: str = "float32"):
    """Scalar math on a scalar argument, and `per_element` on each element of a tile (ops
    with no vector call, such as log2 or tanh, run element by element on the scalar pipe)."""
    scalar = getattr(T, dtype)

    @T.prim_func
    def scalar_math(X: T.Tensor((n,), dtype), Y: T.Tensor((n,), dtype), s: scalar):
        with T.Kernel(T.ceildiv(n, block)) as bx:
            x = T.alloc_fragment((block,), dtype)
            y = T.alloc_fragment((block,), dtype)
            T.copy(X[bx * block], x)
            w = T.log(s) + T.exp(s) + T.exp2(s) + T.sqrt(s) + T.rsqrt(s) + T.abs(s)
            for i in T.Parallel(block):
                y[i] = x[i] * w + per_element(x[i])
            T.copy(y, Y[bx * block])

    return scalar_math


def column_copies(batch: int, seq: int, heads: int):
    """A column of a (batch, seq, heads) tensor into a (1, 64) and a (64,) tile and back, with
    an atomic add: GM rows of one element, 4 bytes, with the heads' stride between them."""

    @T.prim_func
    def columns(G: T.Tensor((batch, seq, heads), "float32"),
                O: T.Tensor((batch, seq, heads), "float32"),  # noqa: E741
                A: T.Tensor((batch, seq, heads), "float32")):
        with T.Kernel(T.ceildiv(seq, 64), batch * heads) as (bs, bbh):
            bb, bh = bbh // heads, bbh % heads
            row = T.alloc_shared((1, 64), "float32")
            flat = T.alloc_fragment((64,), "float32")
            T.copy(G[bb, bs * 64:(bs + 1) * 64, bh], row)
            T.copy(G[bb, bs * 64:(bs + 1) * 64, bh], flat)
            for i in T.Parallel(64):
                row[0, i] = row[0, i] + flat[i] * 10.0
            T.copy(row, O[bb, bs * 64:(bs + 1) * 64, bh])
            T.atomic_add(A[bb, bs * 64:(bs + 1) * 64, bh], row)

    return columns


def _kernels() -> dict[str, object]:
    gemm, softmax, rmsnorm, topk = (example(n) for n in ("gemm", "softmax", "rmsnorm",
                                                         "topk_gather"))
    kernels = {
        "gemm_f16": lambda: gemm.matmul(128, 128, 64, in_dtype="float16"),
        "gemm_bf16_ragged": lambda: gemm.matmul(70, 130, 40, in_dtype="bfloat16"),
        "gemm_f16_out_f16_relu": lambda: gemm.matmul(100, 72, 50, in_dtype="float16",
                                                     out_dtype="float16", relu=True),
        "gemm_f16_trans_b_dynamic": lambda: gemm.matmul(M, 64, 64, in_dtype="float16",
                                                        trans_B=True),
        "gemm_f16_trans_a": lambda: gemm.matmul(65, 33, 48, in_dtype="float16", trans_A=True),
        "softmax": lambda: softmax.softmax(32, 256),
        "softmax_dynamic": lambda: softmax.softmax(M, 300),
        "softmax_f16": lambda: softmax.softmax(20, 130, dtype="float16"),
        "rmsnorm": lambda: rmsnorm.rmsnorm(32, 256),
        "rmsnorm_dynamic": lambda: rmsnorm.rmsnorm(M, 200),
        "topk_gather": lambda: topk.topk_gather(8, 4, 64, 32),
        "topk_weighted_sum": lambda: topk.topk_weighted_sum(10, 3, 50, 40),
        "scale": lambda: backend_tests.scale,
        "scale_pipelined": lambda: backend_tests.scale_pipelined,
        "add_eight_stages": lambda: backend_tests.add_eight_stages,
        "gemm_then_scale_mix": lambda: backend_tests.gemm_then_scale,
        "gemm_serial": lambda: gemm_tests.gemm_kernel(100, 130, 70, loop="serial"),
        "gemm_shared_epilogue": lambda: gemm_tests.gemm_kernel(64, 64, 64, epilogue="shared",
                                                               out_dtype="float16"),
        "gemm_relu_epilogue": lambda: gemm_tests.gemm_kernel(64, 64, 64, epilogue="relu"),
        "batched_grid": lambda: gemm_tests.batched_kernel(2, 32, 32, 32, grid=True),
        "gemm_bf16_tiles": lambda: gemm_tests.gemm_kernel(128, 64, 96, in_dtype="bfloat16"),
        "gemm_int8": lambda: gemm_tests.gemm_kernel(128, 64, 96, in_dtype="int8",
                                                    accum_dtype="int32", out_dtype="int32"),
        "gemm_int8_ragged_transposed": lambda: gemm_tests.gemm_kernel(
            50, 70, 90, in_dtype="int8", accum_dtype="int32", out_dtype="int32", trans_A=True,
            trans_B=True),
        "gemm_f32": lambda: gemm_tests.gemm_kernel(64, 96, 64, in_dtype="float32"),
        "gemm_m1": lambda: gemm_tests.gemm_kernel(1, 64, 64, block_M=1, block_N=64, block_K=32),
        "gemm_int8_out_f16": lambda: gemm_tests.gemm_kernel(
            40, 64, 64, in_dtype="int8", accum_dtype="int32", out_dtype="float16"),
        "gemm_f32_trans_b": lambda: gemm_tests.gemm_kernel(64, 96, 64, in_dtype="float32",
                                                           trans_B=True),
        "gemm_f32_trans_a_ragged": lambda: gemm_tests.gemm_kernel(
            70, 96, 50, in_dtype="float32", trans_A=True),
        "gemm_f32_trans_ab_serial": lambda: gemm_tests.gemm_kernel(
            70, 100, 50, in_dtype="float32", trans_A=True, trans_B=True, loop="serial"),
        "gemm_f32_ragged_dynamic": lambda: gemm_tests.gemm_kernel(M, 100, 50,
                                                                  in_dtype="float32"),
        "gemm_f16_part_tiles_dynamic": lambda: gemm_tests.part_tile_kernel(
            100, 130, 70, part_M=40, part_N=50, part_K=24, trans_B=True, dynamic=True),
        "gemm_f32_part_tiles_trans_ab": lambda: gemm_tests.part_tile_kernel(
            100, 130, 70, part_M=40, part_N=50, part_K=24, in_dtype="float32", trans_A=True,
            trans_B=True),
        "gemm_f32_part_squares": lambda: gemm_tests.gemm_kernel(
            40, 40, 40, in_dtype="float32", block_M=24, block_N=24, block_K=24),
        "gemm_f32_trans_a_part_squares": lambda: gemm_tests.gemm_kernel(
            70, 50, 100, in_dtype="float32", trans_A=True, block_M=24, block_N=40, block_K=24),
        "gemm_f32_trans_ab_part_k": lambda: gemm_tests.gemm_kernel(
            70, 50, 100, in_dtype="float32", trans_A=True, trans_B=True, block_M=24,
            block_N=40, block_K=24),
        "attention_f32": lambda: example("flash_attention").flash_attention(
            1, 2, 100, 64, causal=False),
        "attention_f32_causal": lambda: example("flash_attention").flash_attention(
            1, 1, 70, 32, causal=True, block_M=32, block_N=32),
        "gemm_f16_trans_ab": lambda: gemm_tests.gemm_kernel(64, 96, 64, trans_A=True,
                                                            trans_B=True),
        "gemm_fp8_trans_b": lambda: gemm_tests.gemm_kernel(100, 72, 80, in_dtype="float8_e4m3",
                                                           trans_B=True),
        "gemm_partial_fractal_tiles": lambda: gemm_tests.gemm_kernel(100, 130, 70, block_M=40,
                                                                     block_N=56, block_K=24),
        "gemm_pipelined_ragged": lambda: gemm_tests.gemm_kernel(100, 130, 70, loop="pipelined"),
        "batched_loop": lambda: gemm_tests.batched_kernel(3, 40, 36, 50, grid=False),
        "epilogue_gemm_bias_relu": lambda: mixed_tests.epilogue_gemm(100, 72, 40,
                                                                     epilogue="bias_relu"),
        "epilogue_gemm_f32_in": lambda: mixed_tests.epilogue_gemm(96, 64, 48, in_dtype="float32",
                                                                  epilogue="bias_relu"),
        "gemm_softmax_mix": lambda: mixed_tests.gemm_softmax(37, 48, 32),
        "shared_epilogue_mix": lambda: mixed_tests.shared_epilogue_gemm(70, 96, 40),
        "rmsnorm_f16": lambda: rmsnorm.rmsnorm(20, 130, dtype="float16"),
        "topk_gather_f16": lambda: topk.topk_gather(6, 3, 20, 70, dtype="float16"),
        "layernorm": lambda: vector_tests.layernorm(19, 48, "float32"),
        "column_reduce_max": lambda: vector_tests.column_reduce(20, 64, "max"),
        "row_reduce_absmax": lambda: vector_tests.row_reduce(20, 64, "absmax"),
        # the split-KV combine takes log2 of scalars (through one UB element)
        "mla_decode_split": lambda: example("mla_decode").mla_decode(
            1, 16, 100, 64, 16, dtype="float16", num_split=2),
    }
    # K gathered row by row into its Nz tile (nd2nz at a row, with the zeroed rows' Fill)
    kernels["row_gather_gemm"] = lambda: row_gather_tests.gathered_gemm(16, 32, 64, True)
    kernels["column_copies"] = lambda: column_copies(2, 150, 3)
    # per-element atomic adds of a T.Parallel as one SetAtomicAdd DataCopyPad of the region
    kernels["split_k_atomic_region"] = lambda: atomic_tests.split_k_gemm(100, 70, 128)
    # a converting GM -> GM copy through UB rows of whole blocks, in chunks and a rest
    kernels["gm_to_gm_copy"] = lambda: gm_copy_tests.gm_copy(300, 100, 100, "float32",
                                                             "float16")
    # the 910b's i32 row max on the S pipe (its ReduceMax takes f16 and f32)
    kernels["int_row_max"] = lambda: integer_reduce_tests.int_row_reduce(37, 24, "max", True)
    kernels["scalar_math"] = lambda: scalar_math(70)
    # tanh has no basic vector call: the advanced API's Tanh, with a temporary buffer
    kernels["scalar_tanh"] = lambda: scalar_math(70, T.tanh)
    kernels["scalar_tanh_f16"] = lambda: scalar_math(50, T.tanh, block=16, dtype="float16")
    bodies = {"add": lambda a, b: a + b, "exp_relu": lambda a, b: T.max(T.exp(a) - b, 0.0),
              "select": lambda a, b: T.if_then_else(a > b, a - b, b * 2.0)}
    for name, body in bodies.items():
        kernels[f"elementwise_{name}"] = functools.partial(vector_tests.elementwise, 37, 70,
                                                           body, "float32")
    kernels["elementwise_cast_f16"] = functools.partial(vector_tests.elementwise, 37, 70,
                                                        bodies["add"], "float16")
    return kernels


KERNELS = _kernels()

NOT_EMITTED: dict[tuple[str, str], str] = {}
"""(kernel, profile) -> the located error that says what the vendor API (or the
profile) cannot express; every other listed kernel emits."""


@functools.cache
def compiled(name: str, profile: str) -> tilec.CompiledKernel:
    """The kernel on the profile (every kernel listed compiles on both)."""
    with warnings.catch_warnings():  # fewer multi-buffer slots: not this test's subject
        warnings.simplefilter("ignore", UserWarning)
        return tilec.compile(KERNELS[name](), target="ascend", profile=profile)


SCALAR_MATH_CALL = {"math.log": "Ln", "math.log2": "Ln", "math.exp": "Exp", "math.exp2": "Exp",
                    "math.sqrt": "Sqrt", "math.rsqrt": "Rsqrt", "math.tanh": "Tanh",
                    "math.sin": "Sin", "math.cos": "Cos", "math.erf": "Erf"}
"""The scalar math ops the emitter computes on one UB element (others are plain C++)."""
ADVANCED_CALLS = {"Tanh": {"f32": 1, "f16": 4}, "Sin": {"f32": 3, "f16": 8},
                  "Cos": {"f32": 3, "f16": 8}, "Erf": {"f32": 3, "f16": 8}}
"""Advanced-API calls (adv_api/math): 256-byte repeats of temporary buffer that their
tiling functions' minimum asks for, per element type (GetTanhMaxMinTmpSize, ...)."""


def _scalar_gm(op: ir.Operation) -> bool:
    """A scalar load from or store into GM (which goes around the data cache)."""
    memref = {"memref.load": 0, "memref.store": 1}.get(op.name)
    return memref is not None and _space(op.operands[memref]) == "gm"


def _ascend_ops(text: str) -> tuple[ir.Module, list[tuple[str, int, ir.Operation]]]:
    """The module, and (name, nesting depth, op) of every ascend op, every scalar math op
    with a one-element vector call in it and every scalar access of GM, in pre-order."""
    context = ir.make_context()
    module = ir.parse_module(text, "<ascend>", context)
    found: list[tuple[str, int, ir.Operation]] = []

    def visit(op: ir.Operation, depth: int) -> None:
        if op.name.startswith("ascend.") or op.name in SCALAR_MATH_CALL or _scalar_gm(op):
            found.append((op.name, depth, op))
        nested = depth + (op.name in ("scf.for", "scf.if", "ascend.core"))
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    visit(child.operation, nested)

    for func in module.body.operations:
        for block in func.regions[0].blocks:
            for op in block.operations:
                visit(op.operation, 0)
    return module, found


MARKER = re.compile(r"^( *)// \[(\d+)\] ((?:ascend|math|memref)\.\w+)")
VENDOR_CALL = re.compile(
    r"\b(DataCopyPad|DataCopy|LoadDataWithTranspose|LoadData|Mmad|Fixpipe|Adds|Muls|Maxs|Mins|"
    r"Add|Sub|Mul|Div|Max|"
    r"Min|Exp|Ln|Abs|Sqrt|Rsqrt|Relu|Reciprocal|Duplicate|Cast|ReduceSum|ReduceMax|ReduceMin|"
    r"Tanh|Sin|Cos|Erf|Brcb|Copy|Compare|Select|Fill|SetFlag|WaitFlag|PipeBarrier|"
    r"CrossCoreSetFlag|CrossCoreWaitFlag|"
    r"SyncAll|GetBlockIdx|GetBlockNum|GetSubBlockIdx|SetAtomicAdd|SetAtomicNone|SetDeqScale|"
    r"DataCacheCleanAndInvalid)"
    r"\s*[<(]")


def _chunks(cpp: str) -> list[tuple[int, int, str, list[str]]]:
    """(indent, index, op name, lines up to the next marker) per marker."""
    body = cpp[:cpp.index("// ---- host launcher")]
    chunks: list[tuple[int, int, str, list[str]]] = []
    prelude: list[str] = []
    for line in body.splitlines():
        match = MARKER.match(line)
        if match:
            chunks.append((len(match.group(1)), int(match.group(2)), match.group(3), []))
        elif chunks:
            chunks[-1][3].append(line)
        else:
            prelude.append(line)
    assert not any(VENDOR_CALL.search(line) for line in prelude), "a call before the first op"
    return chunks


def _kw(op: ir.Operation, name: str) -> str:
    return re.search(r"<([^<>]+)>", str(op.attributes[name])).group(1)


def _int(op: ir.Operation, name: str) -> int:
    return ir.IntegerAttr(op.attributes[name]).value


def _numel(value: ir.Value) -> int:
    count = 1
    for d in ir.MemRefType(value.type).shape:
        count *= d
    return count


PIPES = {"s": "S", "v": "V", "m": "M", "mte1": "MTE1", "mte2": "MTE2", "mte3": "MTE3",
         "fix": "FIX", "all": "ALL"}
KIND_CALL = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "max": "Max", "min": "Min",
             "adds": "Adds", "muls": "Muls", "maxs": "Maxs", "mins": "Mins", "exp": "Exp",
             "ln": "Ln", "abs": "Abs", "sqrt": "Sqrt", "rsqrt": "Rsqrt", "relu": "Relu",
             "rec": "Reciprocal", "neg": "Muls"}


def _expect(op: ir.Operation) -> tuple[set[str], list[str]]:
    """The vendor calls one ascend op may issue, and patterns its C++ must contain."""
    if op.name in SCALAR_MATH_CALL:  # store, S -> V, one-element call, V -> S, read back
        call = SCALAR_MATH_CALL[op.name]
        # a basic call runs in place; an advanced one writes the next block and takes the
        # temporary buffer after it
        compute, result = ((rf"{call}\(\2, \2, 1\)", r"\2") if call not in ADVANCED_CALLS else
                           (rf"{call}\((res\d+), \2, ub\[(\d+)\], 1\)", r"\3"))
        order = [r"SetFlag<HardEvent::V_S>\((\d)\);\n *WaitFlag<HardEvent::V_S>\(\1\);\n"
                 r" *(one\d+)\.SetValue\(0, .*\);\n *SetFlag<HardEvent::S_V>\(\1\);\n"
                 r" *WaitFlag<HardEvent::S_V>\(\1\);\n"
                 rf" *{compute};\n *SetFlag<HardEvent::V_S>\(\1\);\n"
                 rf" *WaitFlag<HardEvent::V_S>\(\1\);\n.* = {result}\.GetValue\(0\)"]
        scale = {"math.log2": [r"GetValue\(0\) / static_cast<\w+>\(0\.693147"],
                 "math.exp2": [r"SetValue\(0, static_cast<\w+>\(.* \* static_cast<\w+>"
                               r"\(0\.693147"]}
        return {call, "SetFlag", "WaitFlag"}, order + scale.get(op.name, [])
    dcci = r"DataCacheCleanAndInvalid<\w+, CacheLine::SINGLE_CACHE_LINE, DcciDst::CACHELINE_OUT>"
    if op.name == "memref.load":  # the line dropped, then read
        return {"DataCacheCleanAndInvalid"}, [
            rf"{dcci}\((\w+_gm)\[(.*)\]\);\n.* = \1\.GetValue\(\2\);"]
    if op.name == "memref.store":  # one UB element, DMAed out in S's order; or written back
        return {"DataCacheCleanAndInvalid", "DataCopyPad", "SetFlag", "WaitFlag"}, [
            r"(\w+)\.SetValue\(0, .*\);\n(?:.*\n){2}[\s\S]*"
            r"DataCopyPad\(\w+_gm\[.*\], \1, p\d+\);"
            r"|(\w+_gm)\.SetValue\((.*), .*\);\n *" + dcci + r"\(\2\[\3\]\);"]
    name = op.name.removeprefix("ascend.")
    if name in ("set_flag", "wait_flag"):
        call = "SetFlag" if name == "set_flag" else "WaitFlag"
        event = f"{PIPES[_kw(op, 'src')]}_{PIPES[_kw(op, 'dst')]}"
        return {call}, [rf"{call}<HardEvent::{event}>\({_int(op, 'event')}\);"]
    if name == "pipe_barrier":
        return {"PipeBarrier"}, [rf"PipeBarrier<PIPE_{PIPES[_kw(op, 'pipe')]}>\(\);"]
    if name in ("block_idx", "block_num", "sub_block_idx"):
        call = {"block_idx": "GetBlockIdx", "block_num": "GetBlockNum",
                "sub_block_idx": "GetSubBlockIdx"}[name]
        return {call}, [rf"{call}\(\)"]
    if name == "core":
        return set(), [rf"^ *if ASCEND_IS_{_kw(op, 'core').upper()} \{{$"]
    if name == "cross_core_set_flag":
        return {"CrossCoreSetFlag"}, [rf"CrossCoreSetFlag<{_int(op, 'mode')}, "
                                      rf"PIPE_{PIPES[_kw(op, 'pipe')]}>\({_int(op, 'flag')}\);"]
    if name == "cross_core_wait_flag":
        return {"CrossCoreWaitFlag"}, [rf"CrossCoreWaitFlag(<[^>]*>)?\({_int(op, 'flag')}\);"]
    if name == "sync_all":
        return {"SyncAll"}, [r"SyncAll(<false>)?\(\);"]
    if name in ("vbin", "vbins", "vunary"):
        call = KIND_CALL[_kw(op, "kind")]
        return {call}, [rf"\b{call}\(.*, {_numel(op.operands[0])}\);"]
    if name == "vdup":
        count = _numel(op.operands[0])
        # an 8-bit Duplicate where the call takes none (the 910b): 16-bit pairs
        return {"Duplicate"}, [rf"Duplicate\((.*, {count}|.*\.ReinterpretCast<int16_t>\(\), "
                               rf".* \* 257\), {count // 2})\);"]
    if name == "vcast":  # SetDeqScale: the 910b's int32 -> half, a dequantization
        return {"Cast", "SetDeqScale"}, [
            rf"Cast\(.*, RoundMode::CAST_\w+, {_numel(op.operands[0])}\);"]
    if name == "vcmp":  # count mode compares whole 256-byte repeats
        lanes = 256 // (ir.MemRefType(op.operands[1].type).element_type.width // 8)
        count = -(-_numel(op.operands[1]) // lanes) * lanes
        return {"Compare"}, [rf"Compare\(.*, CMPMODE::{_kw(op, 'kind').upper()}, {count}\);"]
    if name == "vsel":
        return {"Select"}, [rf"Select\(.*, {_numel(op.operands[0])}\);"]
    if name == "vreduce":
        call = {"sum": "ReduceSum", "max": "ReduceMax", "min": "ReduceMin"}[_kw(op, "kind")]
        cols = ir.MemRefType(op.operands[1].type).shape[-1]
        return {call, "PipeBarrier"}, [rf"{call}\(.*, {cols}\);"]
    if name == "vbrcb":
        return {"Brcb", "Copy", "PipeBarrier"}, [r"Brcb\(", r"Copy\("]
    if name == "copy":
        sources = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[1]
        spaces = {_space(op.operands[0]), _space(op.operands[1 + sources])}
        if "atomic_add" in op.attributes:  # the add mode around the store
            return {"DataCopyPad", "SetAtomicAdd", "SetAtomicNone", "SetFlag", "WaitFlag"}, [
                r"SetAtomicAdd<\w+>\(\);\n.*DataCopyPad(<[\w:, ]+>)?\(.*\);\n *"
                r"SetAtomicNone\(\);"]
        if _space(op.operands[0]) == "gm":  # a load zeros what lies past the edge first
            return {"DataCopyPad", "Duplicate", "SetFlag", "WaitFlag", "Fill", "PipeBarrier"}, [
                r"\bDataCopyPad(<\w+, PaddingMode::Compact>)?\(", r"\.isPad = true;"]
        if "gm" in spaces:  # SetFlag/WaitFlag: the staging of rows under 32 bytes
            return {"DataCopyPad", "SetFlag", "WaitFlag"}, [
                r"\bDataCopyPad(<\w+, PaddingMode::Compact>)?\("]
        return {"DataCopy", "Copy"}, [r"\b(DataCopy|Copy)\("]  # Copy: rows under 32 bytes
    if name == "copy_nd2nz":
        rows, cols = ir.DenseI64ArrayAttr(op.attributes["sizes"])
        if "transpose" in op.attributes:  # DN: the GM columns are its n, the rows its d
            return {"DataCopy", "Fill", "PipeBarrier"}, [
                r"Dn2NzParams p\d+;", r"\bDataCopy\(", _extent("nValue", cols),
                _extent("dValue", rows), r"\.dnNum = 1;", r"\.dstNzNStride = 1;"]
        if "zz" in op.attributes:  # one Nd2Nz of at most 16 rows per row block
            return {"DataCopy", "Fill", "PipeBarrier"}, [
                r"Nd2NzParams p\d+;", r"\bDataCopy\(", _extent("nValue", min(rows, 16)),
                _extent("dValue", cols), r"\.dstNzC0Stride = 16;"]
        return {"DataCopy", "Fill", "PipeBarrier"}, [r"Nd2NzParams p\d+;", r"\bDataCopy\(",
                              _extent("nValue", rows), _extent("dValue", cols)]
    if name in ("load_l0a", "load_l0b"):
        return {"LoadData", "LoadDataWithTranspose"}, [r"LoadData(WithTranspose)?\("]
    if name == "mmad":
        m, n, k = ir.DenseI64ArrayAttr(op.attributes["sizes"])
        init = "true" if "init" in op.attributes else "false"
        # M = 1: the 910b computes the fractal's 16 rows (no GEMV switch there)
        return {"Mmad"}, [rf"\.m = {'(1|16)' if m == 1 else m};", rf"\.n = {n};", rf"\.k = {k};",
                          rf"\.cmatrixInitVal = {init};", r"Mmad\("]
    if name == "fixpipe":
        relu = "true" if "relu" in op.attributes else "false"
        layout = {"l1": "CFG_NZ", "ub": "TILEC_CFG_ROW_MAJOR_TO_UB"}.get(_space(op.operands[1]),
                                                                         "CFG_ROW_MAJOR")
        patterns = [rf"\.reluEn = {relu};", rf"Fixpipe<\w+, \w+, {layout}>\("]
        if _space(op.operands[1]) == "ub":  # both AIVs' UBs, or sub-block 0's
            dual = "1" if "dual_dst" in op.attributes else "0"
            patterns += [r"FixpipeParamsArch3510<CO2Layout::ROW_MAJOR> p\d+;",
                         rf"\.dualDstCtl = {dual};", r"\.subBlockId = false;"]
        return {"Fixpipe"}, patterns
    raise AssertionError(f"no expectation for {op.name}")


def _extent(field: str, extent: int) -> str:
    """`field` set to a literal in 1..extent, or to a variable clamped to extent."""
    literals = "|".join(str(i) for i in range(1, extent + 1))
    return (rf"\.{field} = (static_cast<\w+>\()?({literals})\)?;|"
            rf"> {extent} \? {extent} :[\s\S]*\.{field} = ")


def _space(value: ir.Value) -> str:
    space = ir.MemRefType(value.type).memory_space
    return "gm" if space is None else re.search(r"<(\w+)>", str(space)).group(1)


def _events(module: ir.Module, pipes: set[str]) -> set[int]:
    """The event ids of the module's flags between the two `pipes`."""
    found: set[int] = set()

    def visit(op: ir.Operation) -> ir.WalkResult:
        if op.name in ("ascend.set_flag", "ascend.wait_flag") and \
                {_kw(op, "src"), _kw(op, "dst")} == pipes:
            found.add(_int(op, "event"))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return found


def _constant(value: ir.Value) -> int | None:
    owner = value.owner
    if isinstance(owner, ir.Operation | ir.OpView) and owner.name == "arith.constant":
        return ir.IntegerAttr(owner.attributes["value"]).value
    return None


def _may_reach_past_the_edge(op: ir.Operation) -> bool:
    """Whether the GM region of a load may reach past its tensor's edge: unless every
    offset is a constant and every dimension static and large enough, it may."""
    gm = ir.MemRefType(op.operands[0].type)
    if op.name == "ascend.copy_nd2nz":
        offsets = list(op.opview.src_offsets)
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
        tile = ir.MemRefType(op.opview.dst.type).shape
        c0 = 32 // (gm.element_type.width // 8)
        holds = ([tile[0] * c0, tile[1] * 16] if "transpose" in op.attributes
                 else [tile[0] * 16, tile[1] * c0] if "zz" in op.attributes
                 else [tile[1] * 16, tile[0] * c0])
        if sizes != holds:  # fractal padding past the region
            return True
    else:
        sources = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[1]
        offsets = list(op.operands)[1:1 + sources]
        sizes = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))
    for offset, size, extent in zip(offsets, sizes, gm.shape, strict=True):
        start = _constant(offset)
        if start is None or extent == ir.ShapedType.get_dynamic_size() or start + size > extent:
            return True
    return False


def _check_staging(op: ir.Operation, text: str, module: ir.Module) -> None:
    """A copy of rows under 32 bytes of UB (which DataCopyPad cannot pack) moves them
    between GM and a staging area of UB, a row per block, and packs them there on S: in the
    DMA pipe's order, by handshakes with S on an event no flag of the IR between the two
    uses (a store's S waits for its DMA too, which frees the area). Other copies issue no
    scalar work and no flag with S."""
    sources = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[1]
    spaces = (_space(op.operands[0]), _space(op.operands[1 + sources]))
    flags = re.findall(r"(?:Set|Wait)Flag<HardEvent::(\w+)>\((\d+)\);", text)
    with_s = {int(event) for pair, event in flags if "S" in pair.split("_")}
    if "staging" not in text:
        assert not with_s and ".GetValue(" not in text, text
        return
    assert "gm" in spaces and "ub" in spaces, text
    pipe = "MTE2" if spaces[0] == "gm" else "MTE3"
    assert len(with_s) == 1 and not with_s & _events(module, {pipe.lower(), "s"}), text
    event = with_s.pop()

    def shake(a: str, b: str) -> str:
        return (rf"SetFlag<HardEvent::{a}_{b}>\({event}\);\n *"
                rf"WaitFlag<HardEvent::{a}_{b}>\({event}\);")

    staging = r"(staging\d+)"
    area = rf"LocalTensor<\w+> {staging} = ub\[\d+\]\.ReinterpretCast<\w+>\(\);\n"
    pack = r" *for \(int64_t (r\d+) = 0;.*\n *for \(int64_t (c\d+) = 0;.*\n *(\w+)\.SetValue\("
    if pipe == "MTE2":  # DMA into the area, S waits for it, unpacks, MTE2 waits for S
        order = rf"{area}[\s\S]*DataCopyPad\(\1, [\s\S]*\n *{shake('MTE2', 'S')}\n{pack}"
        tail = shake("S", "MTE2")
    else:  # S after MTE3's queue, packs, MTE3 waits for S, DMA out, S waits for the DMA
        order = (rf"{area} *{shake('MTE3', 'S')}\n{pack}[\s\S]*\n *{shake('S', 'MTE3')}"
                 rf"[\s\S]*DataCopyPad\(\w+\[.*\], \1, p\d+\);\n(?: *SetAtomicNone\(\);\n)? *")
        tail = shake("MTE3", "S")
    match = re.search(order + r"[\s\S]*?" + tail, text)
    assert match, text
    # the area holds a row per 32-byte block: the DMA's local gap is whole blocks
    assert re.search(r"\.(src|dst)Stride = \((32|64|96|128) - \(\(.* \+ 31\) / 32\) \* 32\) / 32;"
                     r"|\.(src|dst)Stride = 0;", text), text


def _check_edge_zeros(op: ir.Operation, text: str, ir_events: set[int]) -> None:
    """A load whose region may reach past the GM tensor's edge zeros the region before the
    DMA (the IR reads zeros there): in UB by a Duplicate of 0 between an MTE2 -> V and a
    V -> MTE2 handshake on an event no flag of the IR uses, in L1 by a Fill on MTE2."""
    zeroing = re.search(r"Duplicate\(|Fill\(", text)
    if not _may_reach_past_the_edge(op):
        assert zeroing is None, f"a zero fill of a region inside the tensor:\n{text}"
        return
    assert zeroing, f"{op.name} may reach past the tensor's edge and zeros nothing:\n{text}"
    dma = re.search(r"\bDataCopy(Pad)?(<[^;(]*>)?\(", text)
    assert dma and zeroing.start() < dma.start(), f"the zeros come after the DMA:\n{text}"
    nd2nz = op.name == "ascend.copy_nd2nz"
    sources = 0 if nd2nz else ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[1]
    local = op.opview.dst if nd2nz else op.operands[1 + sources]
    numel = _numel(local) if nd2nz and op.opview.dst_row is None else None
    if _space(local) == "l1":
        fill = re.search(r"\.blockNum = (\d+|static_cast<uint16_t>\(\w+\));[\s\S]*"
                         r"\.initValue = 0;[\s\S]*Fill\(.*"
                         r"ReinterpretCast<uint16_t>\(\), p\d+\);\n *PipeBarrier<PIPE_MTE2>", text)
        assert fill, text
        if numel is None and nd2nz:  # the region's rows in each of its column blocks
            cols = list(ir.DenseI64ArrayAttr(op.attributes["sizes"]))[1]
            c0 = 256 // ir.MemRefType(local.type).element_type.width
            assert re.search(rf"\.repeatTimes = {-(-cols // c0)};", text), text
        if numel is not None:  # the whole tile of fractals
            bits = ir.MemRefType(local.type).element_type.width
            assert int(fill.group(1)) == numel * bits // 8 // 32, text
        return
    handshake = re.search(r"SetFlag<HardEvent::MTE2_V>\((\d+)\);\n *WaitFlag<HardEvent::MTE2_V>"
                          r"\(\1\);\n([\s\S]*?)SetFlag<HardEvent::V_MTE2>\(\1\);\n *"
                          r"WaitFlag<HardEvent::V_MTE2>\(\1\);", text)
    assert handshake and int(handshake.group(1)) not in ir_events, text
    zeros = re.findall(r"Duplicate\(.*?(\.ReinterpretCast<int16_t>\(\))?, static_cast<\w+>\(0\), "
                       r"(\d+)\);", handshake.group(2))
    # bytes where the 910b's Duplicate takes no 8-bit type are zeroed as 16-bit pairs
    counts = [int(c) * (2 if pairs else 1) for pairs, c in zeros]
    trips = [int(t) for t in re.findall(r"< (\d+); \+\+l\d+\) \{", handshake.group(2))]
    region = 1
    for size in ir.DenseI64ArrayAttr(op.attributes["sizes"]):
        region *= size
    assert len(counts) == 1 and counts[0] * _product(trips) == region, text


def _product(values: list[int]) -> int:
    result = 1
    for v in values:
        result *= v
    return result


def _planned_ub_end(module: ir.Module) -> int:
    """The end of the last UB tile tile-ascend-plan-memory placed (bytes)."""
    end = 0

    def visit(op: ir.Operation) -> ir.WalkResult:
        nonlocal end
        if op.name == "memref.alloc" and _space(op.results[0]) == "ub":
            t = ir.MemRefType(op.results[0].type)
            end = max(end, _int(op, "ascend.offset") + _numel(op.results[0])
                      * (t.element_type.width // 8))
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return end


def _check_scalar_scratch(op: ir.Operation, text: str, cpp: str, module: ir.Module) -> None:
    """The element of a scalar math op lies in UB after every planned tile; an advanced
    call's result takes the next block and its temporary buffer, after both, has at least
    the bytes the tiling functions' minimum asks for before the end of UB."""
    element = str(op.results[0].type)
    operand = int(re.search(r"one\d+ = ub\[(\d+)\]", text).group(1))
    assert operand % 32 == 0 and operand >= _planned_ub_end(module), text
    call = SCALAR_MATH_CALL[op.name]
    if call not in ADVANCED_CALLS:
        return
    result = int(re.search(r"res\d+ = ub\[(\d+)\]", text).group(1))
    tmp = int(re.search(rf"{call}\(res\d+, one\d+, ub\[(\d+)\], 1\)", text).group(1))
    ub_bytes = int(re.search(r"pipe\.InitBuffer\(ub_buf, (\d+)\);", cpp).group(1))
    assert result >= operand + 32 and tmp >= result + 32, text
    assert ub_bytes - tmp >= ADVANCED_CALLS[call][element] * 256, (ub_bytes, tmp, text)


# (the 950 loads fp8 tiles as their bytes: `.ReinterpretCast<uint8_t>()`)
_LOAD_DATA = re.compile(r"LoadData2DParams (p\d+);\n((?: *\1\.\w+ = \w+;\n)+) *"
                        r"LoadData\((\w+)(?:\[(\d+)\])?(?:\.ReinterpretCast<uint8_t>\(\))?, "
                        r"(\w+)(?:\[(\d+)\])?(?:\.ReinterpretCast<uint8_t>\(\))?, \1\);")


def _check_load_fractals(op: ir.Operation, text: str, arch: int) -> None:
    """Each L0 fractal of a 16-bit load comes from the L1 fractal the IR says, transposed
    where it must be, once. The calls are read as the vendor's implementation runs them:
    on 2201 repeat j moves fractal startIndex + j * srcStride to destination fractal j;
    on 3510 LoadData2DParams becomes the 2D-V2 load, which reads fractal (startIndex + j)
    * srcStride, and without startIndex in its transposing L0B form."""
    src_type, dst_type = (ir.MemRefType(v.type) for v in op.operands)
    elements = 512 // (src_type.element_type.width // 8)
    s0, s1 = (stride // elements for stride in src_type.get_strides_and_offset()[0][:2])
    t0, t1 = (stride // elements for stride in dst_type.get_strides_and_offset()[0][:2])
    rows, cols = dst_type.shape[:2]
    moved = []
    for match in _LOAD_DATA.finditer(text):
        fields = dict(re.findall(r"\.(\w+) = (\w+);", match[2]))
        start, stride = int(fields["startIndex"]), int(fields["srcStride"])
        transpose, gap = fields["ifTranspose"] == "true", int(fields["dstGap"])
        dst, src = int(match[4] or 0) // elements, int(match[6] or 0) // elements
        for j in range(int(fields["repeatTimes"])):
            if arch == 2201:
                read = start + j * stride
            elif transpose and op.name == "ascend.load_l0b":
                read = j * stride
            else:
                read = (start + j) * stride
            moved.append((dst + j * (gap + 1), src + read, transpose))
    a, b = "transpose" in op.attributes, op.name == "ascend.load_l0a"
    expected = []
    for r in range(rows):
        for c in range(cols):
            if b:  # L0A (M1 x K1): Zz on 2201, Nz on 3510; L1 holds A (Nz) or Aᵀ (Nz)
                m, k = r, c
                at = m * t0 + k * t1 if arch == 2201 else k * rows + m
                expected.append((at, m * s0 + k * s1 if a else k * s0 + m * s1, a))
            else:  # L0B (K1 x N1) in Zn; L1 holds B (Nz, transposed on the way) or Bᵀ
                k, n = r, c
                expected.append((k * t0 + n * t1, k * s0 + n * s1 if a else n * s0 + k * s1,
                                 not a))
    assert sorted(moved) == sorted(expected), (op.name, arch, sorted(moved), sorted(expected))


def _check_same_program(ir_text: str, cpp: str) -> int:
    module, ops = _ascend_ops(ir_text)
    chunks = _chunks(cpp)
    assert [c[2] for c in chunks] == [name for name, _, _ in ops]
    assert [c[1] for c in chunks] == list(range(len(ops)))
    for (name, depth, op), (indent, index, _, lines) in zip(ops, chunks, strict=True):
        assert indent == 4 * (1 + depth), f"[{index}] {name} is not at its nesting"
        allowed, patterns = _expect(op)
        text = "\n".join(lines)
        called = {m.group(1) for m in VENDOR_CALL.finditer(text)}
        assert called <= allowed, f"[{index}] {name} issues {called - allowed}"
        for pattern in patterns:
            assert re.search(pattern, text, re.M), f"[{index}] {name}: no {pattern!r} in\n{text}"
        if name in ("ascend.copy", "ascend.copy_nd2nz") and _space(op.operands[0]) == "gm":
            _check_edge_zeros(op, text, _events(module, {"mte2", "v"}))
        if name == "ascend.copy":
            _check_staging(op, text, module)
        if name in SCALAR_MATH_CALL:  # its flags pair with no S <-> V flag of the IR
            events = {int(e) for e in re.findall(r"HardEvent::[VS]_[VS]>\((\d+)\)", text)}
            assert not events & _events(module, {"s", "v"}), f"[{index}] {name}: {events}"
            _check_scalar_scratch(op, text, cpp, module)
        if name in ("ascend.load_l0a", "ascend.load_l0b"):
            dst = ir.MemRefType(op.operands[1].type).shape
            repeats = sum(int(r) for r in re.findall(r"\.repeatTimes = (\d+);", text))
            per_repeat = 2 if "LoadDataWithTranspose(" in text else 1  # 8/32-bit: squares
            assert per_repeat * repeats == dst[0] * dst[1], f"[{index}] loads {repeats} fractals"
            assert ("zz" in op.attributes) <= ("LoadDataWithTranspose(" in text), text
            if "LoadData(" in text:
                _check_load_fractals(op, text, int(re.search(r"__NPU_ARCH__ (\d+)", cpp)[1]))
        if name == "ascend.copy_nd2nz" and "zz" in op.attributes:
            # one per 16 rows of the region (the tile may have more, which the Fill zeros)
            blocks = -(-ir.DenseI64ArrayAttr(op.attributes["sizes"])[0] // 16)
            calls = len(re.findall(r"\bDataCopy\(", text)) + text.count("outside the GM tensor")
            assert calls == blocks, f"[{index}] {calls} Nd2Nz for {blocks} blocks of 16 rows"
    del module
    return len(ops)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_the_source_is_the_program_the_simulator_runs(name, profile):
    if (name, profile) in NOT_EMITTED:
        with pytest.raises(CompileError, match=r"\.py:\d+:\d+: error: .*"
                                               + NOT_EMITTED[name, profile]):
            compiled(name, profile).source()
        return
    kernel = compiled(name, profile)
    text = kernel.ir("ascend")
    assert text == kernel.binary.final_ir()  # what tilec.sim loaded
    source = kernel.source()
    assert f"profile {profile}," in source and f"__NPU_ARCH__ {ARCH[profile]}" in source
    assert _check_same_program(text, source) > 0


def test_entry_buffers_and_launcher():
    source = compiled("softmax_dynamic", "910b").source()
    assert 'extern "C" __global__ __aicore__ void row_softmax(GM_ADDR X, GM_ADDR Y, int64_t M)' \
        in source
    assert "X_gm.SetGlobalBuffer((__gm__ float*)X);" in source
    assert re.search(r"TBuf<TPosition::VECCALC> ub_buf;\n *pipe\.InitBuffer\(ub_buf, \d+\);",
                     source)
    planned = sorted({int(o) for o in re.findall(r"ascend\.offset = (\d+)",
                                                 compiled("softmax_dynamic", "910b").ir("ascend"))})
    views = sorted({int(o) for o in re.findall(r"= ub\[(\d+)\]\.ReinterpretCast", source)})
    assert set(planned) <= set(views)  # every tile at its planned offset (plus the scratch)
    assert "row_softmax<<<blockDim, nullptr, stream>>>(X, Y, M);" in source
    cube = compiled("gemm_f16", "950").source()
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);" in cube
    for position in ("A1", "A2", "B2", "CO1"):
        assert f"TBuf<TPosition::{position}>" in cube
    assert "gemm_default_block_dim = 4;" in cube  # the static grid of 2 x 2 blocks


def test_profiles_differ_where_the_api_does():
    """950: L0A takes Nz, so A is one contiguous LoadData; 910b converts it to Zz row by row."""
    old = compiled("gemm_f16", "910b").source()
    new = compiled("gemm_f16", "950").source()
    a_loads = [c for c in _chunks(old) if c[2] == "ascend.load_l0a"]
    assert all(len(re.findall(r"LoadData\(", "\n".join(c[3]))) == 4 for c in a_loads)
    a_loads = [c for c in _chunks(new) if c[2] == "ascend.load_l0a"]
    assert all(len(re.findall(r"LoadData\(", "\n".join(c[3]))) == 1 for c in a_loads)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_gemm_whose_k_is_not_a_multiple_of_block_k_zeros_its_l1_tiles(profile):
    """K = 40 with block_K = 32: the K loop is walked in one slab of 64 (tile-ascend-k-
    slabs) of which 24 columns of A (rows of B) lie past K, and the mmad multiplies the
    zeros there. Every Nd2Nz into L1 may reach past the edge, so each first fills its
    whole tile with zeros on MTE2 (Fill, then PipeBarrier<PIPE_MTE2>): always where the
    tile is wider than its tensor, else when a run-time test finds a short extent."""
    source = compiled("gemm_bf16_ragged", profile).source()
    loads = [c for c in _chunks(source) if c[2] == "ascend.copy_nd2nz"]
    assert loads
    for _, _, _, lines in loads:
        text = "\n".join(lines)
        guard = re.search(r"if \((n\d+) < (\d+) \|\| (n\d+) < (\d+)\) \{", text)
        assert guard or "no GM element reaches: zero them" in text, text
        assert text.index("Fill(") < text.index("PipeBarrier<PIPE_MTE2>();") < \
            text.index("DataCopy(")


def test_mix_kernel_splits_cores_and_sizes_its_workspace():
    source = compiled("gemm_then_scale_mix", "910b").source()
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);" in source
    assert "if ASCEND_IS_AIC {" in source and "if ASCEND_IS_AIV {" in source
    assert re.search(r"workspace, static_cast<int64_t>\(blockDim\) \* \d+\);", source)


def _ascend_module(text: str) -> ir.Module:
    return ir.parse_module(text, "unplanned.mlir", ir.make_context())


def _emit_error(text: str, profile: str, message: str, name: str = "unplanned.mlir") -> None:
    """Emitting `text` (parsed as file `name`) for `profile` is the error `message`."""
    module = ir.parse_module(text, name, ir.make_context())
    with module.context, pytest.raises(CompileError, match=message):
        emit_ascendc(module, profile)


def test_unplanned_buffers_are_a_located_error():
    module = _ascend_module("""
func.func @k() attributes {ascend.kernel = #ascend.core<aiv>} {
  %x = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.vunary exp %x, %x : memref<64xf32, #ascend.mem<ub>>
  return
}""")
    with module.context, pytest.raises(CompileError,
                                       match=r"unplanned\.mlir:3:8: error: on-chip buffer "
                                             "without a planned offset"):
        emit_ascendc(module, "910b")


FIXPIPE_TO_L1 = """
func.func @chain(%c: memref<64x64xf16, #ascend.mem<gm>>) attributes {
    ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %acc = memref.alloc() {ascend.offset = 0 : i64} : memref<2x3x16x16xf32, #ascend.mem<l0c>>
  %s = memref.alloc() {ascend.offset = 0 : i64} : memref<4x5x16x16xf16, #ascend.mem<l1>>
  ascend.fixpipe %acc, %s[%c16, %c16] sizes [48, 32] {relu}
      : memref<2x3x16x16xf32, #ascend.mem<l0c>>, memref<4x5x16x16xf16, #ascend.mem<l1>>
  return
}"""


@pytest.mark.parametrize("profile", PROFILES)
def test_a_fixpipe_into_l1_writes_nz_at_its_block(profile):
    """48 rows of two 16-column blocks into an 80 x 64 Nz tile at [16, 16]: the tile's
    column blocks are 80 rows (32-byte rows of f16) apart, which FixpipeParamsV220 counts
    in 32-byte blocks and the 950's FixpipeParamsArch3510 in elements; the start is
    column block 1, row 16."""
    source = emit_ascendc(_ascend_module(FIXPIPE_TO_L1), profile)[0].text()
    assert _check_same_program(FIXPIPE_TO_L1, source) == 1
    struct, stride = (("FixpipeParamsArch3510<CO2Layout::NZ>", 80 * 16) if profile == "950"
                      else ("FixpipeParamsV220", 80))
    for text in (rf"{re.escape(struct)} p\d+;", r"\.nSize = 32;", r"\.mSize = 48;",
                 r"\.srcStride = 48;", rf"\.dstStride = {stride};",
                 r"\.quantPre = QuantMode_t::F322F16;", r"\.reluEn = true;",
                 rf"Fixpipe<half, float, CFG_NZ>\(t\d+\[{(80 + 16) * 16}\], t\d+, p\d+\);"):
        assert re.search(text, source), text


@pytest.mark.parametrize("profile", PROFILES)
def test_an_mmad_of_one_row_keeps_gemv_off(profile):
    """Mmad turns GEMV on for M = 1 and then reads L0A as a row, not as fractals: the 950
    switches it off (disableGemv), the 910b computes the 16 rows of the fractal."""
    mmad = [c for c in _chunks(compiled("gemm_m1", profile).source())
            if c[2] == "ascend.mmad"]
    assert mmad
    for _, _, _, lines in mmad:
        text = "\n".join(lines)
        if profile == "950":
            assert ".m = 1;" in text and ".disableGemv = true;" in text, text
        else:
            assert ".m = 16;" in text and "disableGemv" not in text, text


@pytest.mark.parametrize("profile", PROFILES)
def test_a_dequantizing_fixpipe_scales_by_one(profile):
    """int32 -> half drains through DEQF16, a scalar dequantization whose scale the
    parameter structs leave uninitialized: the source sets it to 1.0f."""
    source = compiled("gemm_int8_out_f16", profile).source()
    quant = re.findall(r"(\w+)\.quantPre = QuantMode_t::DEQF16;", source)
    assert quant
    for params in quant:
        assert f"{params}.deqScalar = static_cast<uint64_t>(0x3F800000);" in source


def cast_kernel(src: str, dst: str):
    @T.prim_func
    def cast(A: T.Tensor((64,), src), B: T.Tensor((64,), dst)):
        with T.Kernel(1, threads=128):
            a = T.alloc_fragment((64,), src)
            b = T.alloc_fragment((64,), dst)
            T.copy(A, a)
            for i in T.Parallel(64):
                b[i] = T.cast(a[i], dst)
            T.copy(b, B)

    return cast


def _cast_ir(src: str, dst: str) -> str:
    return tilec.compile(cast_kernel(src, dst), target="ascend", profile="910b").ir("ascend")


def test_casts_say_how_they_round_where_the_910b_needs_it():
    """int32 -> half is a dequantization on the 910b, scaled by 1; a cast of a float into
    an integer or bf16 without a rounding mode rounds to nearest even (as the simulator
    does), where CAST_NONE would issue nothing; a cast of a type into itself has no Cast."""
    deq = emit_ascendc(ir.parse_module(_cast_ir("int32", "float16"), "c.mlir", ir.make_context()),
                       "910b")[0].text()
    assert re.search(r"SetDeqScale\(static_cast<half>\(1\.0f\)\);\n *Cast\(", deq)
    for src, dst in (("float32", "int32"), ("float32", "bfloat16"), ("float16", "int16")):
        text = re.sub(r" round \w+ :", " :", _cast_ir(src, dst))
        source = emit_ascendc(ir.parse_module(text, "c.mlir", ir.make_context()), "910b")[0]
        assert "RoundMode::CAST_RINT" in source.text() and "CAST_NONE" not in source.text()
    same = re.sub(r"ascend\.vcast %\w+, (%\w+) round \w+ : memref<[^>]*>>, (memref<[^>]*>>)",
                  r"ascend.vcast \1, \1 : \2, \2", _cast_ir("float32", "int32"))
    assert same.count("ascend.vcast") == 1 and "memref<64xf32, #ascend.mem<ub>>, memref<64xf32" \
        in same
    _emit_error(same, "910b", r"same\.mlir:\d+:\d+: error: a vcast of f32 to f32 has no "
                              r"AscendC Cast", name="same.mlir")


def test_a_compare_mask_that_select_does_not_read_is_a_located_error():
    """Compare writes a bit per lane, where the IR's mask holds a byte: only Select reads
    it so."""
    text = tilec.compile(vector_tests.elementwise(37, 70, lambda a, b: T.if_then_else(
        a > b, a - b, b * 2.0), "float32"), target="ascend", profile="910b").ir("ascend")
    mask = re.search(r"ascend\.vcmp \w+ (%\w+),", text)[1]
    vsel = re.search(r"( *)ascend\.vsel .*\n", text)
    mask_type = re.search(rf"ascend\.vcmp \w+ {mask}, [^:]*: (memref<[^>]*>>)", text)[1]
    rank = ir.MemRefType.parse(mask_type, ir.make_context()).rank
    read = (f"{vsel[1]}%peek = memref.load {mask}[{', '.join(['%c0'] * rank)}] : {mask_type}\n")
    if "%c0 = arith.constant 0 : index" not in text:
        read = f"{vsel[1]}%c0 = arith.constant 0 : index\n" + read
    edited = text.replace(vsel[0], vsel[0] + read, 1)
    _emit_error(edited, "910b", r"mask\.mlir:\d+:\d+: error: the mask of this Compare is "
                                r"read by memref\.load", name="mask.mlir")


def test_a_row_by_row_reduction_of_rows_off_32_byte_blocks_is_a_located_error():
    """One ReduceSum per row starts at each row, and vector calls take 32-byte-aligned
    UB addresses: 12 f32 (48 bytes) a row cannot be done so."""
    _emit_error("""
func.func @k() attributes {ascend.kernel = #ascend.core<aiv>} {
  %src = memref.alloc() {ascend.offset = 0 : i64} : memref<8x12xf32, #ascend.mem<ub>>
  %dst = memref.alloc() {ascend.offset = 512 : i64} : memref<8xf32, #ascend.mem<ub>>
  ascend.vreduce sum %dst, %src : memref<8xf32, #ascend.mem<ub>>, memref<8x12xf32, #ascend.mem<ub>>
  return
}""", "910b", r"unplanned\.mlir:5:3: error: ReduceSum row by row on rows of 12 f32 \(48 "
          r"bytes\)")


_INT_REDUCE = """
func.func @k() attributes {ascend.kernel = #ascend.core<aiv>} {
  %src = memref.alloc() {ascend.offset = 0 : i64} : memref<8x64xi32, #ascend.mem<ub>>
  %dst = memref.alloc() {ascend.offset = 2048 : i64} : memref<8xi32, #ascend.mem<ub>>
  ascend.vreduce max %dst, %src
      : memref<8xi32, #ascend.mem<ub>>, memref<8x64xi32, #ascend.mem<ub>>
  return
}"""


def test_calls_the_profile_does_not_take_are_a_located_error_or_another_form():
    """The vendor's headers reject an 8-bit Duplicate on the 910b (a static_assert), and its
    vsel/vcmax take no integers: never invalid C++, and on the 950, which has them, the
    calls themselves (call_dtypes)."""
    _emit_error(_INT_REDUCE, "910b", r"unplanned\.mlir:5:3: error: AscendC's ReduceMax on the "
                                     r"910b takes f16, f32, not i32")
    module = _ascend_module(_INT_REDUCE)
    with module.context:
        assert "ReduceMax(t" in emit_ascendc(module, "950")[0].text()
    duplicate = """
func.func @k() attributes {ascend.kernel = #ascend.core<aiv>} {
  %c = arith.constant -3 : i8
  %t = memref.alloc() {ascend.offset = 0 : i64} : memref<COUNTxi8, #ascend.mem<ub>>
  ascend.vdup %t, %c : memref<COUNTxi8, #ascend.mem<ub>>, i8
  return
}"""
    module = _ascend_module(duplicate.replace("COUNT", "64"))
    with module.context:
        on_910b = emit_ascendc(module, "910b")[0].text()
        on_950 = emit_ascendc(module, "950")[0].text()
    # both bytes of 32 16-bit elements: (-3 & 0xff) * 257 = 0xfdfd
    assert re.search(r"Duplicate\(t\d+\.ReinterpretCast<int16_t>\(\), static_cast<int16_t>"
                     r"\(\(static_cast<uint16_t>\(\(-3\)\) & 0xff\) \* 257\), 32\);", on_910b)
    assert re.search(r"Duplicate\(t\d+, static_cast<int8_t>\(\(-3\)\), 64\);", on_950)
    _emit_error(duplicate.replace("COUNT", "63"), "910b",
                r"unplanned\.mlir:5:3: error: AscendC's Duplicate on the 910b takes .*, not i8, "
                r"and 63 elements are not whole 16-bit pairs")


def test_the_lowering_reads_what_the_calls_take():
    """An i32 row reduction on the 910b (whose ReduceMax takes f16 and f32) is scalar code
    there, as an i32 select is, and both profiles compute the same numbers, which the
    emitted source then does too."""

    @T.prim_func
    def row_max(X: T.Tensor((8, 64), "int32"), Y: T.Tensor((8,), "int32")):
        with T.Kernel(1) as _:
            x = T.alloc_fragment((8, 64), "int32")
            top = T.alloc_fragment((8,), "int32")
            T.copy(X[0, 0], x)
            T.reduce_max(x, top, dim=1)
            T.copy(top, Y[0])

    x = np.random.default_rng(0).integers(-1000, 1000, (8, 64)).astype(np.int32)
    for profile in PROFILES:
        kernel = tilec.compile(row_max, target="ascend", profile=profile)
        y = np.zeros(8, np.int32)
        kernel(x, y)
        np.testing.assert_array_equal(y, x.max(axis=1))
        assert ("ReduceMax(" in kernel.source()) == (profile == "950"), profile

    @T.prim_func
    def clamp(X: T.Tensor((8, 64), "int32"), Y: T.Tensor((8, 64), "int32")):
        with T.Kernel(1) as _:
            x = T.alloc_fragment((8, 64), "int32")
            T.copy(X[0, 0], x)
            for i, j in T.Parallel(8, 64):
                x[i, j] = T.if_then_else(x[i, j] > 7, 7, x[i, j])
            T.copy(x, Y[0, 0])

    for profile in PROFILES:
        kernel = tilec.compile(clamp, target="ascend", profile=profile)
        y = np.zeros_like(x)
        kernel(x, y)
        np.testing.assert_array_equal(y, np.minimum(x, 7))
        source = kernel.source()
        assert ("Select(" in source) == (profile == "950"), profile


def test_the_950s_l1_ub_copies_are_a_located_error():
    """The vendor's DataCopy runs L1 -> UB on the cube core's MTE1 and UB -> L1 on a vector
    core; the IR orders both as MTE3 of either core, so neither is emitted."""
    _emit_error("""
func.func @k() attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() {ascend.offset = 0 : i64} : memref<16x16xf16, #ascend.mem<ub>>
  ascend.core aic {
    %l1 = memref.alloc() {ascend.offset = 0 : i64} : memref<16x16xf16, #ascend.mem<l1>>
    ascend.copy %l1[%c0, %c0], %ub[%c0, %c0] sizes [16, 16]
        : memref<16x16xf16, #ascend.mem<l1>>, memref<16x16xf16, #ascend.mem<ub>>
  }
  return
}""", "950", r"unplanned\.mlir:7:5: error: not emitted: the 950's DataCopy from l1 to ub "
         r"runs on the cube core")


GM_TO_L1 = """
func.func @k(%a: memref<64xf16, #ascend.mem<gm>>) attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() {ascend.offset = 0 : i64} : memref<64xf16, #ascend.mem<l1>>
  ascend.copy %a[%c0], %l1[%c0] sizes [64]
      : memref<64xf16, #ascend.mem<gm>>, memref<64xf16, #ascend.mem<l1>>
  return
}"""


def test_a_plain_copy_into_l1_needs_the_950():
    """The 910b's DataCopyPad returns on the cube core, where L1 is: only the 950 emits it."""
    assert "DataCopyPad(" in emit_ascendc(_ascend_module(GM_TO_L1), "950")[0].text()
    _emit_error(GM_TO_L1, "910b",
                r"unplanned\.mlir:5:3: error: DataCopyPad does not reach L1 on arch 2201")


@pytest.mark.parametrize("name", ["layernorm", "rmsnorm_f16", "attention_f32"])
def test_the_910bs_reduce_sum_finds_its_event_ids_free(name):
    """The 910b's ReduceSum flags V -> S, S -> V and S -> MTE3 on the first event id its
    TPipe has not allocated: the kernel allocates every id its own flags between those
    pipes use, so a flag of the IR pending across a ReduceSum keeps its id."""
    module, _ = _ascend_ops(compiled(name, "910b").ir("ascend"))
    source = compiled(name, "910b").source()
    assert "ReduceSum(" in source
    for pair in (("v", "s"), ("s", "v"), ("s", "mte3")):
        used = _events(module, set(pair))
        event = "_".join(p.upper() for p in pair)
        assert source.count(f"pipe.AllocEventID<HardEvent::{event}>();") == \
            (max(used) + 1 if used else 0), (event, used)
    assert "AllocEventID" not in compiled(name, "950").source()


def b_both_ways(n: int = 32):
    """C = A @ B + A @ Bᵀ with one f32 tile of B: the two gemms want its fractals in
    opposite orders, so no one L1 layout serves both."""

    @T.prim_func
    def both(A: T.Tensor((n, n), "float32"), B: T.Tensor((n, n), "float32"),
             C: T.Tensor((n, n), "float32")):
        with T.Kernel(1, threads=128):
            A_s = T.alloc_shared((n, n), "float32")
            B_s = T.alloc_shared((n, n), "float32")
            C_l = T.alloc_fragment((n, n), "float32")
            T.copy(A[0, 0], A_s)
            T.copy(B[0, 0], B_s)
            T.clear(C_l)
            T.gemm(A_s, B_s, C_l)
            T.gemm(A_s, B_s, C_l, transpose_B=True)
            T.copy(C_l, C[0, 0])

    return both


@pytest.mark.parametrize("profile", PROFILES)
def test_a_32_bit_tile_read_both_ways_gets_a_copy_for_its_transposed_reads(profile):
    """No load transposes f32 fractals out of Nz: the gemm that reads B transposed
    gets a tile of B of its own in L1 (Zz on the 910b, the Nz of Bᵀ on the 950), which
    the copy from GM writes too; the other keeps the Nz tile. It runs and emits."""
    a, b = (np.random.default_rng(5 + i).standard_normal((32, 32)).astype(np.float32)
            for i in range(2))
    c = np.zeros((32, 32), np.float32)
    kernel = tilec.compile(b_both_ways(), target="ascend", profile=profile)
    kernel(a, b, c)
    np.testing.assert_allclose(c, a @ b + a @ b.T, rtol=1e-5, atol=1e-4)
    final = kernel.ir("ascend")
    assert final.count("ascend.copy_nd2nz %arg1") == 2, final
    assert _check_same_program(final, kernel.source()) > 0
    assert compiled("gemm_f32_trans_ab_part_k", profile).source()


ADVANCED_IR_OPS = {"math.sin": np.sin, "math.cos": np.cos, "math.erf": np.vectorize(math.erf)}
"""Scalar math the DSL does not write but the simulator runs, put into the tanh kernel's IR
in place of math.tanh."""


def _edited_scalar_kernel(op: str, profile: str) -> str:
    return compiled("scalar_tanh", profile).ir("ascend").replace("math.tanh", op)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("op", sorted(ADVANCED_IR_OPS))
def test_scalar_sin_cos_and_erf_go_through_the_advanced_api(op, profile):
    """The tanh kernel's IR with sin, cos or erf instead: the simulator computes
    Y = X * w + f(X) (w: the scalar math of s), and the source is that program, with the
    advanced API's call on one element and its temporary buffer in the UB scratch."""
    text = _edited_scalar_kernel(op, profile)
    rng = np.random.default_rng(3)
    x = rng.uniform(-4, 4, 70).astype(np.float32)
    s = np.float32(0.7)
    w = np.log(s) + np.exp(s) + np.exp2(s) + np.sqrt(s) + 1 / np.sqrt(s) + abs(s)
    result = sim.simulate(text, {"X": x, "Y": np.zeros_like(x), "s": s}, profile=profile,
                          block_dim=3)
    assert result.ok
    np.testing.assert_allclose(result["Y"], x * w + ADVANCED_IR_OPS[op](x), rtol=1e-5,
                               atol=1e-5)
    source = emit_ascendc(ir.parse_module(text, "<edited>", ir.make_context()), profile)[0]
    assert _check_same_program(text, source.text()) > 0
    assert f"{SCALAR_MATH_CALL[op]}(res" in source.text()


def test_scalar_math_with_no_vector_call_is_a_located_error():
    """Scalar math goes through one UB element of the vector unit: an op that neither a
    basic nor an advanced vector call computes (log1p) is an error at its line."""
    module = ir.parse_module(_edited_scalar_kernel("math.log1p", "910b"), "edited.mlir",
                             ir.make_context())
    with module.context, pytest.raises(CompileError, match=r"edited\.mlir:\d+:\d+: error: "
                                                           r"'math\.log1p' on a scalar has no "
                                                           r"AscendC form"):
        emit_ascendc(module, "910b")


@pytest.mark.parametrize("profile", PROFILES)
def test_f32_operands_that_need_transposing_change_their_l1_layout(profile):
    """B (K x N, f32) reaches L0B transposed: on the 910b L1 holds it in Zz (an Nd2Nz per
    16 rows) and LoadDataWithTranspose turns squares into Zn; on the 950 a Dn2Nz copy
    makes L1 hold the Nz of Bᵀ, which the plain LoadData loads. A (M x K) stays Nz."""
    text = compiled("gemm_f32", profile).ir("ascend")
    source = compiled("gemm_f32", profile).source()
    loads = {c[2]: "\n".join(c[3]) for c in _chunks(source)}
    if profile == "910b":
        assert re.search(r"ascend\.copy_nd2nz .* sizes \[\d+, 64\] \{zz\}", text)
        assert re.search(r"ascend\.load_l0b .* \{zz\} sizes \[\d+, 64\]", text)
        assert "LoadDataWithTranspose(" in loads["ascend.load_l0b"]
        assert "Dn2NzParams" not in source
    else:
        assert re.search(r"ascend\.copy_nd2nz .* sizes \[\d+, 64\] \{transpose\}", text)
        assert re.search(r"ascend\.load_l0b .* \{transpose\} sizes \[\d+, 64\]", text)
        assert "LoadDataWithTranspose(" not in source and "Dn2NzParams" in source
        assert re.search(r"\.ifTranspose = false;", loads["ascend.load_l0b"])
    a_loads = re.findall(r"ascend\.load_l0a [^\n]*", text)
    assert a_loads and not any("{" in load for load in a_loads)


def test_the_950_copies_a_transposed_int8_a_in_as_the_nz_of_a():
    """Aᵀ (K x M, i8) needs transposing into L0A, where the 950 has no transposing load of
    8-bit elements: a Dn2Nz copy makes L1 hold the Nz of A, which the plain LoadData
    loads; Bᵀ goes on through LoadData (no transpose is left for L0B either)."""
    kernel = compiled("gemm_int8_ragged_transposed", "950")
    text = kernel.ir("ascend")
    assert re.search(r"ascend\.copy_nd2nz .*\{transpose\} : memref<90x50xi8", text)
    assert re.search(r"ascend\.load_l0a [^\n{]*sizes", text)  # no transpose attribute
    loads = {c[2]: "\n".join(c[3]) for c in _chunks(kernel.source())}
    assert "Dn2NzParams" in kernel.source() and "LoadDataWithTranspose(" not in kernel.source()
    assert re.search(r"\.ifTranspose = false;", loads["ascend.load_l0a"])


# -- C++ well-formedness (no vendor headers needed) -------------------------------------------

STAND_IN = r"""
// A permissive stand-in for kernel_operator.h: names and shapes only, written for this test.
#pragma once
#include <cmath>
#include <cstdint>
#define __global__
#define __aicore__
#define __gm__
#define GM_ADDR uint8_t*
#define KERNEL_TASK_TYPE_DEFAULT(kind) (void)(kind)
// The core a test runs the code as, and the launch (test_block_index_of_mix_kernels sets
// them); the index calls compute as impl/basic_api/dav_c220/kernel_operator_sys_var_impl.h
// (and dav_3510's) do on the device.
inline bool g_aiv = true, g_mix = false;
inline int64_t g_block = 0, g_block_dim = 1, g_sub_block = 0;
#define ASCEND_IS_AIC (!::g_aiv)
#define ASCEND_IS_AIV (::g_aiv)
enum KernelKind { KERNEL_TYPE_AIV_ONLY, KERNEL_TYPE_AIC_ONLY, KERNEL_TYPE_MIX_AIC_1_2 };
namespace AscendC {
#define FLOAT_LIKE(name) struct name { \
    float v; name() = default; name(float f) : v(f) {} operator float() const { return v; } };
FLOAT_LIKE(half)
FLOAT_LIKE(bfloat16_t)
FLOAT_LIKE(fp8_e4m3fn_t)
FLOAT_LIKE(fp8_e5m2_t)
enum class HardEvent { EVENTS };
enum pipe_t { PIPE_S, PIPE_V, PIPE_M, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_FIX, PIPE_ALL };
enum class TPosition { A1, A2, B2, CO1, VECCALC };
enum class CMPMODE { LT, GT, EQ, LE, GE, NE };
enum class SELMODE { VSEL_TENSOR_TENSOR_MODE };
enum class RoundMode { CAST_NONE, CAST_RINT, CAST_FLOOR, CAST_CEIL, CAST_ROUND, CAST_TRUNC };
enum class QuantMode_t { NoQuant, F322F16, F322BF16, DEQF16 };
enum class CO2Layout : uint8_t { NZ, ROW_MAJOR, COLUMN_MAJOR };
enum class ReluMode { NO_RELU };
enum class ClipReluMode { NOCLIP_RELU };
template <CO2Layout F> struct TransformParams { struct PARAMS {}; };
struct FixpipeConfig {
    CO2Layout format; bool isToUB;
    constexpr FixpipeConfig(CO2Layout f, bool toUB = false) : format(f), isToUB(toUB) {} };
constexpr FixpipeConfig CFG_ROW_MAJOR{CO2Layout::ROW_MAJOR};
constexpr FixpipeConfig CFG_NZ{CO2Layout::NZ};
template <class T> struct LocalTensor {
    LocalTensor operator[](int64_t) const { return *this; }
    template <class U> LocalTensor<U> ReinterpretCast() const { return {}; }
    T GetValue(int64_t) const { return T(); }
    void SetValue(int64_t, T) const {}
};
template <class T> struct GlobalTensor {
    void SetGlobalBuffer(__gm__ T*) {}
    GlobalTensor operator[](int64_t) const { return *this; }
    T GetValue(int64_t) const { return T(); }
    void SetValue(int64_t, T) const {}
};
template <TPosition P> struct TBuf { template <class T> LocalTensor<T> Get() { return {}; } };
struct TPipe { template <class B> void InitBuffer(B&, uint32_t) {}
    template <HardEvent E> int AllocEventID() { return 0; } };
STRUCTS
#define ANY(name) template <class... A> void name(const A&...) {}
ANY(DataCopy) ANY(DataCopyPad) ANY(LoadData) ANY(LoadDataWithTranspose) ANY(Mmad)
ANY(Add) ANY(Sub) ANY(Mul) ANY(Div)
ANY(Max) ANY(Min) ANY(Adds) ANY(Muls) ANY(Maxs) ANY(Mins) ANY(Exp) ANY(Ln) ANY(Abs) ANY(Sqrt)
ANY(Rsqrt) ANY(Relu) ANY(Reciprocal) ANY(Duplicate) ANY(Cast) ANY(ReduceSum) ANY(ReduceMax)
ANY(ReduceMin) ANY(Brcb) ANY(Copy) ANY(Compare) ANY(Select) ANY(Fill)
ANY(Tanh) ANY(Sin) ANY(Cos) ANY(Erf) ANY(SetDeqScale)
template <class T, class U> U GetScalarBitcodeValue(T) { return U(); }
enum class CacheLine { SINGLE_CACHE_LINE, ENTIRE_DATA_CACHE };
enum class DcciDst { CACHELINE_ALL, CACHELINE_UB, CACHELINE_OUT, CACHELINE_ATOMIC };
template <class T, CacheLine L, DcciDst D> void DataCacheCleanAndInvalid(const GlobalTensor<T>&) {}
enum class PaddingMode { Normal, Compact };
template <class T, PaddingMode M, class... A> void DataCopyPad(const A&...) {}
template <class T, class U, const FixpipeConfig& C, class... A> void Fixpipe(const A&...) {}
template <HardEvent E> void SetFlag(int32_t) {}
template <HardEvent E> void WaitFlag(int32_t) {}
template <pipe_t P> void PipeBarrier() {}
template <int M, pipe_t P> void CrossCoreSetFlag(uint16_t) {}
template <int M = 0, pipe_t P = PIPE_S> void CrossCoreWaitFlag(uint16_t) {}
template <bool AivOnly = true> void SyncAll() {}
template <class T> void SetAtomicAdd() {}
inline void SetAtomicNone() {}
inline int64_t GetTaskRatio() { return g_mix && g_aiv ? 2 : 1; }
inline int64_t GetBlockIdx() { return g_aiv ? g_block * GetTaskRatio() + g_sub_block : g_block; }
inline int64_t GetBlockNum() { return g_block_dim; }
inline int64_t GetSubBlockIdx() { return g_aiv ? g_sub_block : 0; }
}
"""


def _stand_in(arch: int) -> str:
    def declaration(name: str, fields: tuple[tuple[str, str], ...]) -> str:
        template = ("template <class T> " if any(ctype in ("T", "TYPE") for _, ctype in fields)
                    else "template <CO2Layout format> " if any("<format>" in ctype
                                                                for _, ctype in fields)
                    else "")
        members = " ".join(f"{'T' if ctype == 'TYPE' else ctype} {field};"
                           for field, ctype in fields)
        return f"{template}struct {name} {{ {members} }};"

    structs = "\n".join(declaration(name, fields) for name, fields in STRUCTS[arch].items())
    return STAND_IN.replace("EVENTS", ", ".join(sorted(HARD_EVENTS))).replace("STRUCTS", structs)


def _sources(profile: str) -> list[str]:
    """The sources of every listed kernel that emits, and of the edited scalar kernels."""
    edited = [emit_ascendc(ir.parse_module(_edited_scalar_kernel(op, profile), "<edited>",
                                           ir.make_context()), profile)[0].text()
              for op in sorted(ADVANCED_IR_OPS)]
    return [*(compiled(name, profile).source() for name in sorted(KERNELS)
              if (name, profile) not in NOT_EMITTED), *edited]


def _one_unit(sources: list[str]) -> str:
    """Every source in one translation unit (one compiler run), entries renamed apart."""
    parts = []
    for index, source in enumerate(sources):
        kernel = source[:source.index("// ---- host launcher")]
        parts.append(re.sub(r"void (\w+)\(GM_ADDR", f"void entry{index}(GM_ADDR", kernel, count=1))
    return "\n".join(parts)


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
@pytest.mark.parametrize("profile", PROFILES)
def test_sources_are_well_formed_cpp(profile, tmp_path):
    (tmp_path / "kernel_operator.h").write_text(_stand_in(ARCH[profile]))
    path = tmp_path / "kernels.cpp"
    path.write_text(_one_unit(_sources(profile)))
    result = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", f"-I{tmp_path}", str(path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[:3000]


_INDEX_HARNESS = r"""
#include "kernel_operator.h"
#include <cstdio>
using namespace AscendC;
int main() {
    int wrong = 0;
    for (int64_t dim = 1; dim <= 8; ++dim) {
        for (int64_t block = 0; block < dim; ++block) {
            for (int core = 0; core < 3; ++core) {  // the AIC, then its two AIVs
                g_mix = true; g_block_dim = dim; g_block = block;
                g_aiv = core > 0; g_sub_block = core > 0 ? core - 1 : 0;
                int64_t found[] = {EXPRESSIONS};
                for (int64_t value : found) {
                    if (value != block) {
                        std::printf("blockDim %lld block %lld core %d: %lld\n", (long long)dim,
                                    (long long)block, core, (long long)value);
                        ++wrong;
                    }
                }
            }
        }
    }
    return wrong != 0;
}
"""


def _block_index_mismatches(expressions: list[str], tmp_path: Path) -> str:
    """Runs the index expressions on the AIC and both AIVs of every block of blockDim 1-8,
    with the stand-in computing the index calls as the vendor's headers do; what differs
    from the block of the core's AIC ('' when nothing does)."""
    (tmp_path / "kernel_operator.h").write_text(_stand_in(ARCH["910b"]))
    (tmp_path / "harness.cpp").write_text(
        _INDEX_HARNESS.replace("EXPRESSIONS", ", ".join(expressions)))
    build = subprocess.run(["g++", "-std=c++17", f"-I{tmp_path}", str(tmp_path / "harness.cpp"),
                            "-o", str(tmp_path / "harness")], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr[:3000]
    return subprocess.run([str(tmp_path / "harness")], capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
@pytest.mark.parametrize("profile", PROFILES)
def test_block_index_of_mix_kernels(profile, tmp_path):
    """Every AIV of a MIX_AIC_1_2 kernel works on the block of its own AIC: GetBlockIdx()
    is 2 * block + sub-block there (the vendor's kernel_operator_sys_var_impl.h)."""
    expressions = set()
    for name in ("gemm_then_scale_mix", "gemm_softmax_mix", "epilogue_gemm_bias_relu"):
        source = compiled(name, profile).source()
        assert "KERNEL_TYPE_MIX_AIC_1_2" in source
        expressions |= set(re.findall(r"= (static_cast<int64_t>\(GetBlockIdx\(\)[^;]*\));",
                                      source))
    assert expressions
    assert _block_index_mismatches(sorted(expressions), tmp_path) == ""
    # the harness fails the plain call, which gives an AIV the index of another block
    assert "core 2" in _block_index_mismatches(["GetBlockIdx()"], tmp_path)


# -- conformance with a copy of the vendor headers -------------------------------------------



def _active_lines(text: str, arch: int) -> list[str]:
    """The lines of `text` the preprocessor keeps for __NPU_ARCH__ == arch (no other macro)."""

    def evaluate(condition: str) -> bool:
        condition = re.sub(r"//.*|/\*.*?\*/", "", condition)
        expr = re.sub(r"defined\s*\(\s*(\w+)\s*\)|defined\s+(\w+)",
                      lambda m: "1" if (m.group(1) or m.group(2)) == "__NPU_ARCH__" else "0",
                      condition)
        expr = expr.replace("__NPU_ARCH__", str(arch)).replace("&&", " and ")
        expr = expr.replace("||", " or ").replace("!=", "<>").replace("!", " not ")
        expr = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: m.group(0) if m.group(0) in
                      ("and", "or", "not") else "0", expr.replace("<>", "!="))
        expr = re.sub(r"\b(\d+)[uUlL]+\b", r"\1", expr)
        try:
            return bool(eval(expr))  # integers and and/or/not only
        except SyntaxError:  # a condition this small evaluator cannot read: not taken
            return False

    kept: list[str] = []
    stack: list[tuple[bool, bool]] = []  # (this branch active, a branch was taken)
    for line in text.replace("\\\n", " ").splitlines():
        directive = line.strip()
        active = all(a for a, _ in stack)
        if directive.startswith("#if"):
            if directive.startswith("#ifdef"):
                taken = False
            elif directive.startswith("#ifndef"):
                taken = True
            else:
                taken = evaluate(directive[3:])
            stack.append((taken, taken))
        elif directive.startswith("#elif"):
            _, done = stack.pop()
            taken = not done and evaluate(directive[5:])
            stack.append((taken, done or taken))
        elif directive.startswith("#else"):
            _, done = stack.pop()
            stack.append((not done, True))
        elif directive.startswith("#endif"):
            stack.pop()
        elif active:
            kept.append(line)
    return kept


def _struct_fields(root: Path, name: str, arch: int) -> list[tuple[set[str], str]]:
    """([field names], C type) of each member slot of `struct name` (a union is one slot)."""
    for path in sorted((root / "include" / "basic_api").glob("kernel_struct_*.h")):
        lines = _active_lines(path.read_text(), arch)
        text = "\n".join(lines)
        match = re.search(rf"^struct {name} \{{", text, re.M)
        if match:
            break
    else:
        raise AssertionError(f"struct {name} is not in include/basic_api")
    fields: list[tuple[set[str], str]] = []
    depth, union = 0, None
    member = re.compile(r"^\s*((?:typename\s+)?[\w:]+(?:<\w+>::\w+)?)\s+(\w+)\s*(=[^;]*)?;")
    for line in text[match.end():].splitlines():
        stripped = line.strip()
        if depth == 0 and stripped.startswith("union"):
            union = []
        m = member.match(line)
        if m and "(" not in line.split("=")[0] and m.group(1) not in ("return", "using",
                                                                       "static"):
            if union is not None and depth == 1:
                union.append((m.group(2), m.group(1)))
            elif depth == 0:
                fields.append(({m.group(2)}, m.group(1)))
        depth += line.count("{") - line.count("}")
        if union is not None and depth == 0 and "}" in line:
            fields.append(({n for n, _ in union}, union[0][1]))
            union = None
        if depth < 0:
            return fields
    raise AssertionError(f"struct {name} does not end")


@needs_devkit
@pytest.mark.parametrize("profile", PROFILES)
def test_parameter_structs_match_the_headers(profile):
    arch = ARCH[profile]
    for name, fields in STRUCTS[arch].items():
        declared = _struct_fields(Path(DEVKIT), name, arch)
        ours = [(field, ctype) for field, ctype in fields]
        assert len(ours) == len(declared), (name, ours, declared)
        for (field, ctype), (names, declared_type) in zip(ours, declared, strict=True):
            assert field in names and ctype == declared_type, (name, field, ctype, declared)


@functools.cache
def _headers(arch: int) -> str:
    root = Path(DEVKIT)
    texts = []
    folders = ("include/basic_api", "include/utils", "impl/basic_api", "impl/utils")
    paths = [p for folder in folders for p in (root / folder).rglob("*.h")]
    # the advanced API's math routines the sources call, each in its own header
    paths += [root / "include" / "adv_api" / "math" / f"{call.lower()}.h"
              for call in ADVANCED_CALLS]
    for path in paths:
        texts.append("\n".join(_active_lines(path.read_text(errors="replace"), arch)))
    return "\n".join(texts)


@needs_devkit
@pytest.mark.parametrize("profile", PROFILES)
def test_every_name_the_sources_use_is_declared(profile):
    arch = ARCH[profile]
    headers = _headers(arch)
    enum = re.search(r"enum class HardEvent : uint8_t \{(.*?)\};", headers, re.S).group(1)
    assert set(re.findall(r"\b([A-Z0-9]+_[A-Z0-9_]+)\b", enum)) >= HARD_EVENTS
    used_calls: set[str] = set()
    used_members: set[tuple[str, str]] = set()
    for source in _sources(profile):
        kernel = re.sub(r"//.*", "", source[:source.index("// ---- host launcher")])
        used_calls |= set(re.findall(r"(?:\.|\b)([A-Z]\w*)\s*(?:<[^;(){}=<>]*>)?\s*\(", kernel))
        used_members |= set(re.findall(r"\b(\w+)::(\w+)\b", kernel))
    used_calls -= {"KERNEL_TASK_TYPE_DEFAULT"}
    assert {"DataCopyPad", "Mmad", "Fixpipe", "LoadData", "SetFlag", "ReduceMax", "Brcb",
            "Select", "ReinterpretCast", "InitBuffer", "SetGlobalBuffer", *ADVANCED_CALLS} \
        <= used_calls
    for call in sorted(used_calls):
        assert re.search(rf"inline[^;{{}}]*\b{call}\s*\(", headers), f"{call} is not declared"
    arities = _declared_arities(headers)
    for source in _sources(profile):
        kernel = re.sub(r"//.*", "", source[:source.index("// ---- host launcher")])
        for call, count in _calls(kernel):
            if call in arities:
                assert any(low <= count <= high for low, high in arities[call]), \
                    f"{call} with {count} arguments: declared {sorted(arities[call])}"
    toolkit_only = {"QuantMode_t"}  # declared by the compiler's own headers, not asc-devkit
    for scope, member in sorted(used_members):
        if scope in toolkit_only:
            continue
        bodies = re.finditer(rf"enum class {scope}\b[^{{;]*\{{(.*?)\}};", headers, re.S)
        assert any(re.search(rf"\b{member}\b", b.group(1)) for b in bodies), f"{scope}::{member}"
    assert re.search(r"\bKERNEL_TYPE_AIV_ONLY\b.*\bKERNEL_TYPE_AIC_ONLY\b", headers, re.S)
    assert "#define KERNEL_TASK_TYPE_DEFAULT" in headers


@needs_devkit
def test_the_l1_layouts_of_f32_transposes_use_what_each_arch_declares():
    """The 950's f32 operands come in through DataCopy with Dn2NzParams, which the headers
    declare for arch 3510 only; the 910b's go through LoadDataWithTranspose with
    LoadData2dTransposeParams (declared for 2201), which the 950 sources never call."""
    dn2nz = re.compile(r"inline[^;{}]*\bDataCopy\s*\([^;{}]*const Dn2NzParams&")
    assert dn2nz.search(_headers(3510)) and not dn2nz.search(_headers(2201))
    squares = re.compile(r"inline[^;{}]*\bLoadDataWithTranspose\s*\([^;{}]*"
                         r"const LoadData2dTransposeParams&")
    assert squares.search(_headers(2201))
    new, old = compiled("gemm_f32_trans_a_ragged", "950"), compiled("gemm_f32_trans_a_ragged",
                                                                    "910b")
    assert "Dn2NzParams" in new.source() and "LoadDataWithTranspose(" not in new.source()
    assert "Dn2NzParams" not in old.source() and "LoadDataWithTranspose(" in old.source()


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside (), <>, [] and {}."""
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch in "(<[{":
            depth += 1
        elif ch in ")>]}":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
    return [*parts, current] if current.strip() else parts


def _declared_arities(headers: str) -> dict[str, set[tuple[int, int]]]:
    """Per function or method name: (required, all) parameter counts of its declarations."""
    arities: dict[str, set[tuple[int, int]]] = {}
    declaration = re.compile(r"inline(?:[^;{}()]|\(\w+\))*?\b([A-Z]\w*)\s*"
                             r"\(([^;{}]*?)\)\s*(const\s*)?[;{]")
    for match in declaration.finditer(headers):
        params = [p for p in _split_top(match.group(2)) if p.strip() and p.strip() != "void"]
        required = sum("=" not in p for p in params)
        arities.setdefault(match.group(1), set()).add((required, len(params)))
    return arities


def _calls(kernel: str) -> list[tuple[str, int]]:
    """(name, argument count) of every call of a capitalised function or method."""
    calls = []
    for match in re.finditer(r"(?:\.|\b)([A-Z]\w*)\s*(?:<[^;(){}=<>]*>)?\s*\(", kernel):
        depth, end = 1, match.end()
        while depth:
            depth += {"(": 1, ")": -1}.get(kernel[end], 0)
            end += 1
        calls.append((match.group(1), len(_split_top(kernel[match.end():end - 1]))))
    return calls


@needs_devkit
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
@pytest.mark.parametrize("profile", PROFILES)
def test_sources_compile_against_the_vendor_headers(profile, tmp_path):
    """Every source, with the API the headers declare (structs, enums, overloads, template
    arguments) and stand-ins for the compiler's builtins only (vendor_headers)."""
    errors = compile_errors(Path(DEVKIT), ARCH[profile], _one_unit(_sources(profile)), tmp_path)
    assert not errors, errors[:4000]


@needs_devkit
@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
@pytest.mark.parametrize(("mistake", "edit"), [
    ("a field the struct lacks", lambda s: s.replace(".blockCount =", ".blockCnt =", 1)),
    ("a HardEvent that does not exist", lambda s: re.sub(r"HardEvent::\w+",
                                                         "HardEvent::MTE2_MTE4", s, count=1)),
    ("the wrong parameter struct", lambda s: re.sub(r"Mmad\((\w+), (\w+), (\w+), \w+\);",
                                                    r"Mmad(\1, \2, \3, 0);", s, count=1)),
    ("a layout the fixpipe into UB does not take",
     lambda s: s.replace("FixpipeParamsArch3510<CO2Layout::ROW_MAJOR>",
                         "FixpipeParamsArch3510<CO2Layout::NZ>", 1)),
])
def test_the_vendor_header_check_sees_a_mistake(mistake, edit, tmp_path):
    source = _one_unit([compiled("gemm_softmax_mix", "950").source()])
    assert edit(source) != source, mistake
    assert not compile_errors(Path(DEVKIT), 3510, source, tmp_path)
    assert "error:" in compile_errors(Path(DEVKIT), 3510, edit(source), tmp_path), mistake


def _cpu_debug_includes() -> list[Path]:
    """Where the toolkit's CPU-debug stubs (stub_def.h and friends) live, if anywhere."""
    roots = [Path(p) for p in (DEVKIT, os.environ.get("ASCEND_HOME_PATH")) if p]
    found = []
    for root in roots:
        found += [p.parent for p in root.rglob("stub_def.h")] if root.is_dir() else []
    return found


@needs_devkit
@pytest.mark.parametrize("profile", PROFILES)
def test_sources_compile_in_cpu_debug_mode(profile, tmp_path):
    stubs = _cpu_debug_includes()
    if not stubs or shutil.which("g++") is None:
        pytest.skip("the headers' CPU-debug mode (ASCENDC_CPU_DEBUG=1) includes stub_def.h, "
                    "stub_fun.h, kernel_fp16.h, kernel_bf16.h, simt_stub.h and "
                    "kernel_tiling/kernel_tiling.h from the CANN toolkit's "
                    "tools/tikicpulib/lib/include, which asc-devkit does not ship: set "
                    "ASCEND_HOME_PATH to a CANN install (and have g++)")
    root = Path(DEVKIT)
    includes = [*stubs, root, root / "include", root / "include" / "basic_api",
                root / "include" / "utils", root / "impl", root / "impl" / "basic_api"]
    path = tmp_path / "kernels.cpp"
    path.write_text(_one_unit(_sources(profile)))
    result = subprocess.run(
        ["g++", "-std=c++17", "-fsyntax-only", "-DASCENDC_CPU_DEBUG=1",
         f"-D__NPU_ARCH__={ARCH[profile]}", *(f"-I{p}" for p in includes), str(path)],
        capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[:4000]


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
