#include "ascend/AscendDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::ascend;

#include "ascend/AscendDialect.cpp.inc"
#include "ascend/AscendEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "ascend/AscendAttrs.cpp.inc"

void AscendDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ascend/AscendAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ascend/AscendOps.cpp.inc"
      >();
}
