#ifndef TILEC_OPERAND_SEGMENTS_H
#define TILEC_OPERAND_SEGMENTS_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

namespace mlir::tilec {

/// Checks `operandSegmentSizes` against the op's operand kinds, one letter
/// per operand group: '1' required, '?' optional, '*' variadic. ODS only
/// checks that the sizes add up, so generic-form IR such as
/// `"tile.copy"(%a, %i) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}>`
/// would otherwise reach accessors that read past the operand list.
/// Call it first in the verifier of every op with AttrSizedOperandSegments.
inline LogicalResult verifyOperandSegments(Operation *op, llvm::ArrayRef<int32_t> sizes,
                                           llvm::StringRef kinds) {
  if (sizes.size() != kinds.size())
    return op->emitOpError() << "expected " << kinds.size()
                             << " operand segment sizes but got " << sizes.size();
  for (auto [index, size] : llvm::enumerate(sizes)) {
    char kind = kinds[index];
    if (size < 0 || (kind == '1' && size != 1) || (kind == '?' && size > 1))
      return op->emitOpError() << "operand group #" << index << " expects "
                               << (kind == '1' ? "exactly one" : kind == '?' ? "at most one" : "a non-negative number of")
                               << " operand but operandSegmentSizes gives " << size;
  }
  return success();
}

} // namespace mlir::tilec

#endif
