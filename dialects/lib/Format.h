#ifndef TILEC_FORMAT_H
#define TILEC_FORMAT_H

#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::tilec {

/// Spells a shape the way memref types do (`64x?x128`) so verifier messages
/// read like the IR; `empty` names the rank-0 case.
inline std::string formatShape(llvm::ArrayRef<int64_t> shape, llvm::StringRef empty) {
  if (shape.empty())
    return empty.str();
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(
      shape, os,
      [&](int64_t dim) {
        if (ShapedType::isDynamic(dim))
          os << '?';
        else
          os << dim;
      },
      "x");
  return text;
}

} // namespace mlir::tilec

#endif
