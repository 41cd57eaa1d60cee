#include "tile/TileDialect.h"

using namespace mlir;
using namespace mlir::tile;

LogicalResult FillOp::verify() {
  auto dstType = cast<MemRefType>(getDst().getType());
  if (getValue().getType() != dstType.getElementType())
    return emitOpError() << "expected fill value of type " << dstType.getElementType()
                         << " but got " << getValue().getType();
  return success();
}

#define GET_OP_CLASSES
#include "tile/TileOps.cpp.inc"
