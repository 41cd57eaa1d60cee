#ifndef ASCEND_ATTRS_TD
#define ASCEND_ATTRS_TD

include "ascend/AscendDialect.td"

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
  let assemblyFormat = "`<` $value `>`";
}

#endif // ASCEND_ATTRS_TD
