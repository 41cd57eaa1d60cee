#include "ascend/AscendDialect.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
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

/// `ascend.kernel = #ascend.core<...>` marks a kernel: a function that
/// returns nothing and takes its buffers in GM. Other `ascend.*` attributes
/// are left to the passes that attach them.
LogicalResult AscendDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() != kKernelAttrName)
    return success();
  auto func = dyn_cast<FunctionOpInterface>(op);
  if (!func)
    return op->emitError() << "expected '" << kKernelAttrName << "' on a function but got it on '"
                           << op->getName() << "'";
  if (!isa<CoreTypeAttr>(attr.getValue()))
    return op->emitError() << "expected '" << kKernelAttrName
                           << "' to be a #ascend.core attribute but got " << attr.getValue();
  for (auto [index, type] : llvm::enumerate(func.getArgumentTypes())) {
    auto memref = dyn_cast<BaseMemRefType>(type);
    if (!memref || getMemSpace(memref) == MemSpace::gm)
      continue;
    InFlightDiagnostic diag = op->emitError()
                              << "expected kernel argument #" << index << " in gm but got ";
    if (std::optional<MemSpace> space = getMemSpace(memref))
      return diag << stringifyMemSpace(*space);
    if (Attribute space = memref.getMemorySpace())
      return diag << space;
    return diag << "the default memory space";
  }
  if (!func.getResultTypes().empty())
    return op->emitError() << "expected a kernel to return nothing but got "
                           << func.getResultTypes().size() << " results";
  // Ascend ops check their own placement; buffers made by other dialects
  // (memref.alloc, subviews) are checked here. A mix kernel may declare
  // buffers of either core outside the `ascend.core` regions.
  bool mix = cast<CoreTypeAttr>(attr.getValue()).getValue() == CoreType::mix;
  WalkResult walk = op->walk([&](Operation *nested) {
    if (isa_and_nonnull<AscendDialect>(nested->getDialect()) || nested->getNumResults() == 0 ||
        (mix && !nested->getParentOfType<CoreOp>()))
      return WalkResult::advance();
    return failed(verifyCorePlacement(nested, {}, nested->getResults()))
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}
