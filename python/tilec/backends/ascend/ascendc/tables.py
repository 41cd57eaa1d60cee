"""The vendor names and sizes the AscendC emitter writes: architectures, parameter
structs (the conformance test checks them against the headers), events, element types."""

from __future__ import annotations

from tilec.targets.ascend.machine import PIPES

ARCH = {"910b": 2201, "950": 3510}
"""`__NPU_ARCH__` of each profile."""

STRUCTS: dict[int, dict[str, tuple[tuple[str, str], ...]]] = {}
"""Per arch: parameter struct -> ((field, C type), ...) in declaration order; `T` is a
template struct's element type (`TYPE`: the integer of its bits, on 3510), and `format`
the CO2Layout of FixpipeParamsArch3510."""

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
    "LoadData2dTransposeParams": (("startIndex", "uint16_t"), ("repeatTimes", "uint8_t"),
                                  ("srcStride", "uint16_t"), ("dstGap", "uint16_t"),
                                  ("dstFracGap", "uint16_t"), ("addrMode", "uint8_t")),
    "InitConstValueParams": (("repeatTimes", "uint16_t"), ("blockNum", "uint16_t"),
                             ("dstGap", "uint16_t"), ("initValue", "T")),
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
    "DataCopyPadExtParams": (("isPad", "bool"), ("leftPadding", "uint8_t"),
                             ("rightPadding", "uint8_t"), ("paddingValue", "T")),
}
STRUCTS[3510] = {
    **_COMMON,
    "DataCopyExtParams": (("blockCount", "uint16_t"), ("blockLen", "uint32_t"),
                          ("srcStride", "int64_t"), ("dstStride", "int64_t"), ("rsv", "uint32_t")),
    "Nd2NzParams": (("ndNum", "uint16_t"), ("nValue", "uint16_t"), ("dValue", "uint32_t"),
                    ("srcNdMatrixStride", "uint64_t"), ("srcDValue", "uint64_t"),
                    ("dstNzC0Stride", "uint16_t"), ("dstNzNStride", "uint16_t"),
                    ("dstNzMatrixStride", "uint32_t")),
    "Dn2NzParams": (("dnNum", "uint16_t"), ("nValue", "uint16_t"), ("dValue", "uint32_t"),
                    ("srcDnMatrixStride", "uint64_t"), ("srcDValue", "uint64_t"),
                    ("dstNzC0Stride", "uint16_t"), ("dstNzNStride", "uint16_t"),
                    ("dstNzMatrixStride", "uint32_t")),
    "MmadParams": (*_MMAD, ("disableGemv", "bool")),
    "LoadData2dTransposeParamsV2": (("startIndex", "uint16_t"), ("repeatTimes", "uint8_t"),
                                    ("srcStride", "uint16_t"), ("dstGap", "uint16_t"),
                                    ("dstFracGap", "uint16_t"), ("srcFracGap", "uint16_t"),
                                    ("addrMode", "uint8_t")),
    "DataCopyPadExtParams": (("isPad", "bool"), ("leftPadding", "uint8_t"),
                             ("rightPadding", "uint8_t"), ("paddingValue", "TYPE")),
    "FixpipeParamsArch3510": (("preReluMode", "ReluMode"), ("preClipReluMode", "ClipReluMode"),
                              ("reluScalar", "uint64_t"), ("vectorRelu", "uint64_t"),
                              ("nSize", "uint16_t"), ("mSize", "uint16_t"),
                              ("srcStride", "uint16_t"), ("dstStride", "uint32_t"),
                              ("quantPre", "QuantMode_t"), ("deqScalar", "uint64_t"),
                              ("reluEn", "bool"), ("unitFlag", "uint8_t"),
                              ("dualDstCtl", "uint8_t"), ("subBlockId", "bool"),
                              ("params", "typename TransformParams<format>::PARAMS"),
                              ("isChannelSplit", "bool")),
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
    "ascend.load_l0a": ("LoadData", "LoadDataWithTranspose"),
    "ascend.load_l0b": ("LoadData", "LoadDataWithTranspose"),
    "ascend.mmad": ("Mmad",),
    "ascend.fixpipe": ("Fixpipe",),
    "ascend.vbin": ("Add", "Sub", "Mul", "Div", "Max", "Min"),
    "ascend.vbins": ("Adds", "Muls", "Maxs", "Mins"),
    "ascend.vunary": ("Exp", "Ln", "Abs", "Sqrt", "Rsqrt", "Relu", "Reciprocal", "Muls"),
    "ascend.vdup": ("Duplicate",),
    "ascend.vcast": ("Cast", "SetDeqScale"),
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

POSITION = {"l1": "A1", "l0a": "A2", "l0b": "B2", "l0c": "CO1", "ub": "VECCALC"}
KERNEL_TYPE = {"aiv": "KERNEL_TYPE_AIV_ONLY", "aic": "KERNEL_TYPE_AIC_ONLY",
                "mix": "KERNEL_TYPE_MIX_AIC_1_2"}
PIPE = {**{name: name.upper() for name in PIPES}, "all": "ALL"}
CTYPE = {"f32": "float", "f16": "half", "bf16": "bfloat16_t", "i32": "int32_t", "i16": "int16_t",
          "i8": "int8_t", "i1": "uint8_t", "i64": "int64_t", "index": "int64_t",
          "f8E4M3FN": "fp8_e4m3fn_t", "f8E5M2": "fp8_e5m2_t", "ui8": "uint8_t"}
SCALAR_CTYPE = {**CTYPE, "i1": "bool"}
BYTES = {"f32": 4, "f16": 2, "bf16": 2, "i32": 4, "i16": 2, "i8": 1, "i1": 1, "i64": 8,
          "f8E4M3FN": 1, "f8E5M2": 1, "ui8": 1}
CMP = {"eq": "EQ", "ne": "NE", "lt": "LT", "le": "LE", "gt": "GT", "ge": "GE"}
ROUND = {"none": "CAST_NONE", "rint": "CAST_RINT", "floor": "CAST_FLOOR", "ceil": "CAST_CEIL",
          "round": "CAST_ROUND", "trunc": "CAST_TRUNC"}
QUANT = {("f32", "f16"): "F322F16", ("f32", "bf16"): "F322BF16", ("f32", "f32"): "NoQuant",
          ("i32", "i32"): "NoQuant", ("i32", "f16"): "DEQF16"}
INT_BINARY = {"arith.addi": "+", "arith.subi": "-", "arith.muli": "*", "arith.divsi": "/",
               "arith.divui": "/", "arith.remsi": "%", "arith.remui": "%", "arith.andi": "&",
               "arith.ori": "|", "arith.xori": "^", "arith.addf": "+", "arith.subf": "-",
               "arith.mulf": "*", "arith.divf": "/", "arith.shli": "<<", "arith.shrsi": ">>",
               "arith.shrui": ">>"}
MIN_MAX = {"arith.minsi": "<", "arith.minui": "<", "arith.maxsi": ">", "arith.maxui": ">",
            "arith.minimumf": "<", "arith.maximumf": ">", "arith.minnumf": "<",
            "arith.maxnumf": ">"}
ICMP = {"eq": "==", "ne": "!=", "slt": "<", "sle": "<=", "sgt": ">", "sge": ">=", "ult": "<",
         "ule": "<=", "ugt": ">", "uge": ">="}
FCMP = {"oeq": "==", "one": "!=", "olt": "<", "ole": "<=", "ogt": ">", "oge": ">=",
         "ueq": "==", "une": "!=", "ult": "<", "ule": "<=", "ugt": ">", "uge": ">="}
CASTS = ("arith.index_cast", "arith.index_castui", "arith.sitofp", "arith.uitofp",
          "arith.fptosi", "arith.fptoui", "arith.extf", "arith.truncf", "arith.extsi",
          "arith.extui", "arith.trunci")
ICMP_PREDICATES = ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge")
FCMP_PREDICATES = ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt",
                    "uge", "ult", "ule", "une", "uno", "true")
REPEAT_BYTES = 256
BLOCK_BYTES = 32
FRACTAL_BYTES = 512
