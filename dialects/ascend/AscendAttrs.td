#ifndef ASCEND_ATTRS_TD
#define ASCEND_ATTRS_TD

include "ascend/AscendDialect.td"

// Every enum is a dialect attribute with a mnemonic so that the generic form
// reads `#ascend.pipe<mte2>` rather than an integer. Inside op syntax the ops
// print the bare keyword (`custom<Keyword>` in AscendOps.td).
class Ascend_EnumAttr<EnumAttrInfo info, string mnemonic>
    : EnumAttr<Ascend_Dialect, info, mnemonic> {
  let assemblyFormat = "`<` $value `>`";
}

def Ascend_MemSpace : I32EnumAttr<"MemSpace", "an on-chip or device memory of the NPU", [
    I32EnumAttrCase<"gm", 0>,
    I32EnumAttrCase<"l1", 1>,
    I32EnumAttrCase<"l0a", 2>,
    I32EnumAttrCase<"l0b", 3>,
    I32EnumAttrCase<"l0c", 4>,
    I32EnumAttrCase<"ub", 5>,
    I32EnumAttrCase<"bt", 6>,
    I32EnumAttrCase<"fb", 7>]> {
  let cppNamespace = "::mlir::ascend";
  let genSpecializedAttr = 0;
}

def Ascend_MemSpaceAttr : EnumAttr<Ascend_Dialect, Ascend_MemSpace, "mem"> {
  let summary = "memory of the NPU, used as a memref memory space";
  let description = [{
    The memory space of a `memref`: `gm` (device memory), `l1` (cube-side
    staging), `l0a`/`l0b` (cube operands), `l0c` (cube accumulator), `ub`
    (the vector core's unified buffer), `bt` (bias table), `fb` (fixpipe
    buffer). GM and UB buffers are row-major; L1 and L0 buffers hold fractal
    layouts as 4-D memrefs (see the dialect description).
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Ascend_Pipe : I32EnumAttr<"Pipe", "an instruction pipe of an AI core", [
    I32EnumAttrCase<"s", 0>,
    I32EnumAttrCase<"v", 1>,
    I32EnumAttrCase<"m", 2>,
    I32EnumAttrCase<"mte1", 3>,
    I32EnumAttrCase<"mte2", 4>,
    I32EnumAttrCase<"mte3", 5>,
    I32EnumAttrCase<"fix", 6>,
    I32EnumAttrCase<"all", 7>]> {
  let cppNamespace = "::mlir::ascend";
  let genSpecializedAttr = 0;
}

def Ascend_PipeAttr : Ascend_EnumAttr<Ascend_Pipe, "pipe"> {
  let summary = "an instruction pipe: s, v, m, mte1, mte2, mte3, fix or all";
  let description = [{
    Each pipe executes its instructions in order and the pipes run
    concurrently: `s` scalar, `v` vector, `m` cube (mmad), `mte1` L1→L0,
    `mte2` GM→L1/UB, `mte3` UB→GM, `fix` the fixpipe (L0C→GM). `all` names
    every pipe and is legal only in `ascend.pipe_barrier`. Aliases
    `PIPE_S` ... `PIPE_ALL` of AscendC.
  }];
}

def Ascend_CoreType : I32EnumAttr<"CoreType", "the kind of core a kernel runs on", [
    I32EnumAttrCase<"aic", 0>,
    I32EnumAttrCase<"aiv", 1>,
    I32EnumAttrCase<"mix", 2>]> {
  let cppNamespace = "::mlir::ascend";
  let genSpecializedAttr = 0;
}

def Ascend_CoreTypeAttr : Ascend_EnumAttr<Ascend_CoreType, "core"> {
  let summary = "core kind of a kernel: aic (cube), aiv (vector) or mix";
  let description = [{
    The value of a kernel function's `ascend.kernel` attribute and the kind
    of an `ascend.core` region. A `mix` kernel runs on one AIC and its two
    AIVs (AscendC's `KERNEL_TYPE_MIX_AIC_1_2`).
  }];
}

def Ascend_VBinKind : I32EnumAttr<"VBinKind", "an element-wise binary vector operation", [
    I32EnumAttrCase<"add", 0>,
    I32EnumAttrCase<"sub", 1>,
    I32EnumAttrCase<"mul", 2>,
    I32EnumAttrCase<"div", 3>,
    I32EnumAttrCase<"max", 4>,
    I32EnumAttrCase<"min", 5>]> {
  let cppNamespace = "::mlir::ascend";
  let genSpecializedAttr = 0;
}

def Ascend_VBinKindAttr : Ascend_EnumAttr<Ascend_VBinKind, "vbin_kind"> {
  let summary = "kind of `ascend.vbin`: add, sub, mul, div, max, min";
}

def Ascend_VBinsKind : I32EnumAttr<"VBinsKind",
    "an element-wise vector operation with a scalar right operand", [
    I32EnumAttrCase<"adds", 0>,
    I32EnumAttrCase<"muls", 1>,
    I32EnumAttrCase<"maxs", 2>,
    I32EnumAttrCase<"mins", 3>]> {
  let cppNamespace = "::mlir::ascend";
  let genSpecializedAttr = 0;
}

def Ascend_VBinsKindAttr : Ascend_EnumAttr<Ascend_VBinsKind, "vbins_kind"> {
  let summary = "kind of `ascend.vbins`: adds, muls, maxs, mins";
}

def Ascend_VUnaryKind : I32EnumAttr<"VUnaryKind", "an element-wise unary vector operation", [
    I32EnumAttrCase<"exp", 0>,
    I32EnumAttrCase<"ln", 1>,
    I32EnumAttrCase<"abs", 2>,
    I32EnumAttrCase<"sqrt", 3>,
    I32EnumAttrCase<"rsqrt", 4>,
    I32EnumAttrCase<"relu", 5>,
    I32EnumAttrCase<"rec", 6>,
    I32EnumAttrCase<"neg", 7>]> {
  let cppNamespace = "::mlir::ascend";
  let genSpecializedAttr = 0;
}

def Ascend_VUnaryKindAttr : Ascend_EnumAttr<Ascend_VUnaryKind, "vunary_kind"> {
  let summary = "kind of `ascend.vunary`: exp, ln, abs, sqrt, rsqrt, relu, rec (1/x), neg";
}

def Ascend_ReduceKind : I32EnumAttr<"ReduceKind", "a reduction along the last dimension", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>]> {
  let cppNamespace = "::mlir::ascend";
  let genSpecializedAttr = 0;
}

def Ascend_ReduceKindAttr : Ascend_EnumAttr<Ascend_ReduceKind, "reduce_kind"> {
  let summary = "kind of `ascend.vreduce`: sum, max, min";
}

def Ascend_CmpKind : I32EnumAttr<"CmpKind", "an element-wise comparison", [
    I32EnumAttrCase<"eq", 0>,
    I32EnumAttrCase<"ne", 1>,
    I32EnumAttrCase<"lt", 2>,
    I32EnumAttrCase<"le", 3>,
    I32EnumAttrCase<"gt", 4>,
    I32EnumAttrCase<"ge", 5>]> {
  let cppNamespace = "::mlir::ascend";
  let genSpecializedAttr = 0;
}

def Ascend_CmpKindAttr : Ascend_EnumAttr<Ascend_CmpKind, "cmp_kind"> {
  let summary = "kind of `ascend.vcmp`: eq, ne, lt, le, gt, ge";
}

def Ascend_RoundMode : I32EnumAttr<"RoundMode", "the rounding of a vector cast", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"rint", 1>,
    I32EnumAttrCase<"floor", 2>,
    I32EnumAttrCase<"ceil", 3>,
    I32EnumAttrCase<"round", 4>,
    I32EnumAttrCase<"trunc", 5>]> {
  let cppNamespace = "::mlir::ascend";
  let genSpecializedAttr = 0;
}

def Ascend_RoundModeAttr : Ascend_EnumAttr<Ascend_RoundMode, "round_mode"> {
  let summary = "rounding of `ascend.vcast`: none, rint, floor, ceil, round, trunc";
  let description = [{
    AscendC's `RoundMode::CAST_NONE`, `CAST_RINT` (to nearest, ties to
    even), `CAST_FLOOR`, `CAST_CEIL`, `CAST_ROUND` (to nearest, ties away
    from zero) and `CAST_TRUNC`. `none` is the conversion's default: exact
    when the value is representable, otherwise to nearest even.
  }];
}

#endif // ASCEND_ATTRS_TD
