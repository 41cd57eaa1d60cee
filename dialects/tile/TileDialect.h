#ifndef TILEC_TILE_DIALECT_H
#define TILEC_TILE_DIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "tile/TileEnums.h.inc"
#include "tile/TileDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "tile/TileAttrs.h.inc"
#define GET_OP_CLASSES
#include "tile/TileOps.h.inc"

#endif
