#include "tile/TileDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tile;

#include "tile/TileDialect.cpp.inc"
#include "tile/TileEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tile/TileAttrs.cpp.inc"

void TileDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tile/TileAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tile/TileOps.cpp.inc"
      >();
}
