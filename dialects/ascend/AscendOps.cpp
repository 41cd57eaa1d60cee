#include "ascend/AscendDialect.h"

using namespace mlir;
using namespace mlir::ascend;

#define GET_OP_CLASSES
#include "ascend/AscendOps.cpp.inc"
