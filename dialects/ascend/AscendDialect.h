#ifndef TILEC_ASCEND_DIALECT_H
#define TILEC_ASCEND_DIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ascend/AscendEnums.h.inc"
#include "ascend/AscendDialect.h.inc"
#define GET_ATTRDEF_CLASSES
#include "ascend/AscendAttrs.h.inc"
#define GET_OP_CLASSES
#include "ascend/AscendOps.h.inc"

namespace mlir::ascend {

/// The memory space of a memref type when it is an `#ascend.mem`.
std::optional<MemSpace> getMemSpace(Type type);

/// Checks that an op using `pipes` and the buffers `memrefs` sits in code run
/// by the core that owns them (see the dialect description); reports on `op`.
LogicalResult verifyCorePlacement(Operation *op, ArrayRef<Pipe> pipes, ValueRange memrefs);

} // namespace mlir::ascend

#endif
