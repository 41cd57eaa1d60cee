// Verifiers and custom syntax of the `tile` ops. Everything here checks or
// spells IR; the semantics live in the op descriptions (TileOps.td) and the
// lowerings in passes/.
#include "lib/Format.h"
#include "lib/OperandSegments.h"
#include "tile/TileDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

using namespace mlir;
using namespace mlir::tile;

//===----------------------------------------------------------------------===//
// Scopes and shapes
//===----------------------------------------------------------------------===//

namespace {

/// On-chip scopes come in two families that one op must not mix: the generic
/// scopes that every target maps, and the Ascend expert scopes that name
/// physical buffers. Global memory belongs to both.
enum class ScopeFamily { Global, Generic, Ascend };

} // namespace

static ScopeFamily getFamily(Scope scope) {
  switch (scope) {
  case Scope::global:
    return ScopeFamily::Global;
  case Scope::shared:
  case Scope::fragment:
  case Scope::local:
    return ScopeFamily::Generic;
  case Scope::l1:
  case Scope::l0a:
  case Scope::l0b:
  case Scope::l0c:
  case Scope::ub:
    return ScopeFamily::Ascend;
  }
  llvm_unreachable("unknown scope");
}

static StringRef getFamilyName(ScopeFamily family) {
  switch (family) {
  case ScopeFamily::Global:
    return "global";
  case ScopeFamily::Generic:
    return "generic";
  case ScopeFamily::Ascend:
    return "ascend";
  }
  llvm_unreachable("unknown scope family");
}

/// Returns the scope of a buffer of `type` (no memory space is global
/// memory), or emits an error naming the buffer `name` when its memory space
/// is not a `#tile.scope`.
static FailureOr<Scope> getScope(Operation *op, StringRef name, MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return Scope::global;
  if (auto scope = dyn_cast<ScopeAttr>(space))
    return scope.getValue();
  return op->emitOpError() << "expected " << name
                           << " memory space to be a #tile.scope but got " << space;
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  return tilec::formatShape(shape, "()");
}

namespace {

/// A buffer operand as the verifiers talk about it.
struct Buffer {
  StringRef name;
  MemRefType type;
  Scope scope;
};

} // namespace

/// Checks that the on-chip scopes of `buffers` come from one family.
static LogicalResult verifyOneFamily(Operation *op, ArrayRef<Buffer> buffers) {
  const Buffer *first = nullptr;
  for (const Buffer &buffer : buffers) {
    ScopeFamily family = getFamily(buffer.scope);
    if (family == ScopeFamily::Global)
      continue;
    if (!first) {
      first = &buffer;
      continue;
    }
    ScopeFamily firstFamily = getFamily(first->scope);
    if (family != firstFamily)
      return op->emitOpError()
             << "expected " << first->name << " and " << buffer.name
             << " scopes from one family but got " << stringifyScope(first->scope) << " ("
             << getFamilyName(firstFamily) << ") and " << stringifyScope(buffer.scope) << " ("
             << getFamilyName(family) << ")";
  }
  return success();
}

/// Checks that `type` has no zero extent; `name` is the operand, or empty for
/// the tile an op allocates. A tile without elements is a size computed wrong,
/// and the lowerings would still touch an element of it (a 0x16 tile copied
/// in and out on cpu rewrote 8 elements of the tensor).
static LogicalResult verifyNonZeroExtents(Operation *op, StringRef name, MemRefType type) {
  ArrayRef<int64_t> shape = type.getShape();
  if (!llvm::is_contained(shape, 0))
    return success();
  InFlightDiagnostic diag = op->emitOpError() << "expected ";
  if (!name.empty())
    diag << name << " to be ";
  return diag << "a tile with non-zero extents but got " << formatShape(shape);
}

/// Checks the on-chip ones of `buffers` with verifyNonZeroExtents. Global
/// buffers may be empty: copies and atomic adds clip to their bounds.
static LogicalResult verifyOnChipNonZeroExtents(Operation *op, ArrayRef<Buffer> buffers) {
  for (const Buffer &buffer : buffers)
    if (buffer.scope != Scope::global &&
        failed(verifyNonZeroExtents(op, buffer.name, buffer.type)))
      return failure();
  return success();
}

/// Checks that a reduction dimension `dim` indexes a buffer of rank `rank`.
static LogicalResult verifyDim(Operation *op, int64_t dim, int64_t rank) {
  if (dim < 0 || dim >= rank)
    return op->emitOpError() << "expected dim in [0, " << rank << ") (the src rank) but got "
                             << dim;
  return success();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

/// The common tail of the region ops' parsers: the optional attribute
/// dictionary, then a body region whose block arguments are `indices`
/// (typed index), closed by an implicit `tile.yield`.
static ParseResult parseIndexedBody(OpAsmParser &parser, OperationState &result,
                                    MutableArrayRef<OpAsmParser::Argument> indices) {
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  Builder &builder = parser.getBuilder();
  for (OpAsmParser::Argument &index : indices)
    index.type = builder.getIndexType();
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, indices))
    return failure();
  KernelOp::ensureTerminator(*body, builder, result.location);
  return success();
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  Type indexType = builder.getIndexType();
  SmallVector<OpAsmParser::Argument> indices;
  SmallVector<OpAsmParser::UnresolvedOperand> sizes;
  int64_t threads = 0;
  if (parser.parseKeyword("blocks") ||
      parser.parseArgumentList(indices, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in"))
    return failure();
  SMLoc sizesLoc = parser.getCurrentLocation();
  if (parser.parseOperandList(sizes, OpAsmParser::Delimiter::Paren))
    return failure();
  if (sizes.size() != indices.size())
    return parser.emitError(sizesLoc)
           << "expected " << indices.size() << " grid sizes (one per block index) but got "
           << sizes.size();
  if (parser.resolveOperands(sizes, indexType, result.operands) ||
      parser.parseKeyword("threads") || parser.parseEqual() || parser.parseInteger(threads))
    return failure();
  result.addAttribute(getThreadsAttrName(result.name), builder.getI64IntegerAttr(threads));
  return parseIndexedBody(parser, result, indices);
}

void KernelOp::print(OpAsmPrinter &p) {
  p << " blocks(";
  llvm::interleaveComma(getBlockIndices(), p, [&](BlockArgument index) { p << index; });
  p << ") in (";
  p.printOperands(getGridSizes());
  p << ") threads = " << getThreads();
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getThreadsAttrName()});
  p << ' ';
  p.printRegion(getRegion(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult KernelOp::verify() {
  size_t rank = getGridSizes().size();
  if (rank < 1 || rank > 3)
    return emitOpError() << "expected 1 to 3 grid sizes but got " << rank;
  if (auto parent = (*this)->getParentOfType<KernelOp>()) {
    InFlightDiagnostic diag = emitOpError() << "must not be nested inside another tile.kernel";
    diag.attachNote(parent.getLoc()) << "enclosing tile.kernel";
    return diag;
  }
  return success();
}

/// Checks that the entry block of `region` has one `index` argument per
/// `what` (the op's iteration dimensions), `expected` in all.
static LogicalResult verifyIndexArguments(Operation *op, Region &region, size_t expected,
                                          StringRef what) {
  Block &body = region.front();
  if (body.getNumArguments() != expected)
    return op->emitOpError() << "expected " << expected
                             << (expected == 1 ? " block argument (" : " block arguments (") << what
                             << ") but got " << body.getNumArguments();
  for (BlockArgument arg : body.getArguments())
    if (!arg.getType().isIndex())
      return op->emitOpError() << "expected block argument #" << arg.getArgNumber()
                               << " of type index but got " << arg.getType();
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  return verifyIndexArguments(*this, getRegion(), getGridSizes().size(),
                              "one per grid size");
}

//===----------------------------------------------------------------------===//
// ParallelOp
//===----------------------------------------------------------------------===//

ParseResult ParallelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  SmallVector<OpAsmParser::Argument> indices;
  SmallVector<int64_t> extents;
  if (parser.parseArgumentList(indices, OpAsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in"))
    return failure();
  SMLoc extentsLoc = parser.getCurrentLocation();
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Paren, [&]() {
        return parser.parseInteger(extents.emplace_back());
      }))
    return failure();
  if (extents.size() != indices.size())
    return parser.emitError(extentsLoc) << "expected " << indices.size()
                                        << " extents (one per index) but got " << extents.size();
  result.addAttribute(getExtentsAttrName(result.name), builder.getDenseI64ArrayAttr(extents));
  return parseIndexedBody(parser, result, indices);
}

void ParallelOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getIndices(), p, [&](BlockArgument index) { p << index; });
  p << ") in (";
  llvm::interleaveComma(getExtents(), p);
  p << ")";
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getExtentsAttrName()});
  p << ' ';
  p.printRegion(getRegion(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult ParallelOp::verify() {
  if (getExtents().empty())
    return emitOpError() << "expected at least 1 extent but got 0";
  return success();
}

LogicalResult ParallelOp::verifyRegions() {
  return verifyIndexArguments(*this, getRegion(), getExtents().size(), "one per extent");
}

//===----------------------------------------------------------------------===//
// PipelinedOp
//===----------------------------------------------------------------------===//

ParseResult PipelinedOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  Type indexType = builder.getIndexType();
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lb, ub, step;
  int64_t numStages = 0;
  if (parser.parseArgument(iv) || parser.parseEqual() || parser.parseOperand(lb) ||
      parser.parseKeyword("to") || parser.parseOperand(ub) || parser.parseKeyword("step") ||
      parser.parseOperand(step) || parser.parseKeyword("num_stages") || parser.parseEqual() ||
      parser.parseInteger(numStages) ||
      parser.resolveOperand(lb, indexType, result.operands) ||
      parser.resolveOperand(ub, indexType, result.operands) ||
      parser.resolveOperand(step, indexType, result.operands))
    return failure();
  result.addAttribute(getNumStagesAttrName(result.name), builder.getI64IntegerAttr(numStages));
  return parseIndexedBody(parser, result, iv);
}

void PipelinedOp::print(OpAsmPrinter &p) {
  p << ' ' << getInductionVar() << " = " << getLb() << " to " << getUb() << " step "
    << getStep() << " num_stages = " << getNumStages();
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(), {getNumStagesAttrName()});
  p << ' ';
  p.printRegion(getRegion(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

LogicalResult PipelinedOp::verify() {
  APInt step;
  if (matchPattern(getStep(), m_ConstantInt(&step)) && !step.isStrictlyPositive())
    return emitOpError() << "expected a positive step but got " << step.getSExtValue();
  return success();
}

LogicalResult PipelinedOp::verifyRegions() {
  return verifyIndexArguments(*this, getRegion(), 1, "the induction variable");
}

//===----------------------------------------------------------------------===//
// AllocOp
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  FailureOr<Scope> scope = getScope(*this, "result", getResult().getType());
  if (failed(scope))
    return failure();
  if (*scope == Scope::global)
    return emitOpError() << "expected an on-chip scope but got global";
  return verifyNonZeroExtents(*this, "", getResult().getType());
}

//===----------------------------------------------------------------------===//
// CopyOp
//===----------------------------------------------------------------------===//

/// Checks a copy between scopes against the Ascend data paths, or, for the
/// generic scopes, that it does not mix the families.
static LogicalResult verifyCopyPath(Operation *op, const Buffer &src, const Buffer &dst) {
  if (failed(verifyOneFamily(op, {src, dst})))
    return failure();
  if (getFamily(src.scope) != ScopeFamily::Ascend && getFamily(dst.scope) != ScopeFamily::Ascend)
    return success();
  static constexpr std::pair<Scope, Scope> kAscendPaths[] = {
      {Scope::global, Scope::l1}, {Scope::global, Scope::ub}, {Scope::ub, Scope::global},
      {Scope::l1, Scope::l0a},    {Scope::l1, Scope::l0b},    {Scope::l0c, Scope::global},
      {Scope::l0c, Scope::ub},    {Scope::ub, Scope::l1},     {Scope::l1, Scope::ub},
      {Scope::ub, Scope::ub}};
  if (llvm::is_contained(kAscendPaths, std::make_pair(src.scope, dst.scope)))
    return success();
  InFlightDiagnostic diag = op->emitOpError() << "expected an ascend copy path (";
  llvm::interleaveComma(kAscendPaths, diag, [&](const std::pair<Scope, Scope> &path) {
    diag << stringifyScope(path.first) << "->" << stringifyScope(path.second);
  });
  diag << ") but got " << stringifyScope(src.scope) << "->" << stringifyScope(dst.scope);
  return diag;
}

/// The part of `sizes` that a buffer of rank `rank` sees: `sizes` with its
/// first unit dimensions dropped until the ranks agree.
static FailureOr<SmallVector<int64_t>> getOperandExtent(Operation *op, ArrayRef<int64_t> sizes,
                                                        const Buffer &buffer) {
  int64_t toDrop = static_cast<int64_t>(sizes.size()) - buffer.type.getRank();
  int64_t unitDims = llvm::count(sizes, 1);
  if (unitDims < toDrop)
    return op->emitOpError() << "expected at least " << toDrop
                             << (toDrop == 1 ? " unit dim" : " unit dims") << " in sizes "
                             << formatShape(sizes) << " to match the rank-"
                             << buffer.type.getRank() << " " << buffer.name << " but got "
                             << unitDims;
  SmallVector<int64_t> extent;
  for (int64_t size : sizes) {
    if (size == 1 && toDrop > 0) {
      --toDrop;
      continue;
    }
    extent.push_back(size);
  }
  return extent;
}

LogicalResult CopyOp::verify() {
  // src, src_offsets, dst, dst_offsets, pad
  if (failed(tilec::verifyOperandSegments(*this, getProperties().operandSegmentSizes, "1*1*?")))
    return failure();
  MemRefType srcType = getSrc().getType(), dstType = getDst().getType();
  FailureOr<Scope> srcScope = getScope(*this, "src", srcType);
  FailureOr<Scope> dstScope = getScope(*this, "dst", dstType);
  if (failed(srcScope) || failed(dstScope))
    return failure();
  Buffer src{"src", srcType, *srcScope}, dst{"dst", dstType, *dstScope};
  if (failed(verifyOnChipNonZeroExtents(*this, {src, dst})))
    return failure();

  for (auto [buffer, offsets] :
       {std::make_pair(src, getSrcOffsets()), std::make_pair(dst, getDstOffsets())})
    if (static_cast<int64_t>(offsets.size()) != buffer.type.getRank())
      return emitOpError() << "expected " << buffer.type.getRank() << " " << buffer.name
                           << " offsets (the " << buffer.name << " rank) but got "
                           << offsets.size();

  if (Value pad = getPad(); pad && pad.getType() != srcType.getElementType())
    return emitOpError() << "expected pad of type " << srcType.getElementType()
                         << " (the src element type) but got " << pad.getType();

  if (failed(verifyCopyPath(*this, src, dst)))
    return failure();

  int64_t rank = std::max(srcType.getRank(), dstType.getRank());
  SmallVector<int64_t> sizes;
  if (std::optional<ArrayRef<int64_t>> explicitSizes = getSizes()) {
    sizes.assign(explicitSizes->begin(), explicitSizes->end());
    if (static_cast<int64_t>(sizes.size()) != rank)
      return emitOpError() << "expected " << rank << " sizes (the higher operand rank) but got "
                           << sizes.size();
    if (llvm::any_of(sizes, [](int64_t size) { return size <= 0; }))
      return emitOpError() << "expected positive sizes but got " << formatShape(sizes);
  } else {
    if (srcType.getRank() != dstType.getRank())
      return emitOpError() << "expected sizes since the src and dst ranks differ ("
                           << srcType.getRank() << " vs " << dstType.getRank() << ")";
    const Buffer &reference = (dst.scope != Scope::global || src.scope == Scope::global) ? dst : src;
    if (!reference.type.hasStaticShape())
      return emitOpError() << "expected sizes since " << reference.name
                           << " has the dynamic shape " << formatShape(reference.type.getShape());
    sizes.assign(reference.type.getShape().begin(), reference.type.getShape().end());
  }

  for (const Buffer &buffer : {src, dst}) {
    FailureOr<SmallVector<int64_t>> extent = getOperandExtent(*this, sizes, buffer);
    if (failed(extent))
      return failure();
    if (buffer.scope == Scope::global)
      continue;
    ArrayRef<int64_t> shape = buffer.type.getShape();
    for (auto [size, dim] : llvm::zip_equal(*extent, shape))
      if (!ShapedType::isDynamic(dim) && size > dim)
        return emitOpError() << "expected " << buffer.name << " shape of at least "
                             << formatShape(*extent) << " (the copy extent) but got "
                             << formatShape(shape);
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AtomicAddOp
//===----------------------------------------------------------------------===//

LogicalResult AtomicAddOp::verify() {
  MemRefType dstType = getDst().getType();
  FailureOr<Scope> dstScope = getScope(*this, "dst", dstType);
  if (failed(dstScope) || failed(verifyOnChipNonZeroExtents(*this, {{"dst", dstType, *dstScope}})))
    return failure();
  if (static_cast<int64_t>(getOffsets().size()) != dstType.getRank())
    return emitOpError() << "expected " << dstType.getRank()
                         << " offsets (the dst rank) but got " << getOffsets().size();
  Type elementType = dstType.getElementType();
  auto srcType = dyn_cast<MemRefType>(getSrc().getType());
  if (!srcType) {
    if (getSrc().getType() != elementType)
      return emitOpError() << "expected src of type " << elementType
                           << " (the dst element type) but got " << getSrc().getType();
    return success();
  }
  FailureOr<Scope> srcScope = getScope(*this, "src", srcType);
  if (failed(srcScope) || failed(verifyOnChipNonZeroExtents(*this, {{"src", srcType, *srcScope}})))
    return failure();
  if (failed(verifyOneFamily(*this, {{"src", srcType, *srcScope}, {"dst", dstType, *dstScope}})))
    return failure();
  if (srcType.getRank() != dstType.getRank())
    return emitOpError() << "expected src rank " << dstType.getRank()
                         << " (the dst rank) but got " << srcType.getRank();
  if (srcType.getElementType() != elementType)
    return emitOpError() << "expected src element type " << elementType
                         << " (the dst element type) but got " << srcType.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// FillOp
//===----------------------------------------------------------------------===//

/// The common part of the fill and clear verifiers: `dst` has a scope and,
/// when on-chip, elements.
static LogicalResult verifyFillDst(Operation *op, MemRefType dstType) {
  FailureOr<Scope> dstScope = getScope(op, "dst", dstType);
  if (failed(dstScope))
    return failure();
  return verifyOnChipNonZeroExtents(op, {{"dst", dstType, *dstScope}});
}

LogicalResult FillOp::verify() {
  MemRefType dstType = getDst().getType();
  if (failed(verifyFillDst(*this, dstType)))
    return failure();
  if (getValue().getType() != dstType.getElementType())
    return emitOpError() << "expected value of type " << dstType.getElementType()
                         << " (the dst element type) but got " << getValue().getType();
  return success();
}

LogicalResult ClearOp::verify() { return verifyFillDst(*this, getDst().getType()); }

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

/// The accumulator element types that `tile.gemm` accepts for operands of
/// element type `type`; empty when `type` is not a legal operand type.
static SmallVector<Type, 2> getAccumulatorTypes(Type type) {
  Builder builder(type.getContext());
  if (type.isF16())
    return {builder.getF32Type(), builder.getF16Type()};
  if (type.isBF16() || type.isF32())
    return {builder.getF32Type()};
  if (auto floatType = dyn_cast<FloatType>(type); floatType && floatType.getWidth() == 8)
    return {builder.getF32Type()};
  if (type.isSignlessInteger(8))
    return {builder.getI32Type()};
  return {};
}

LogicalResult GemmOp::verify() {
  MemRefType aType = getA().getType(), bType = getB().getType(), cType = getC().getType();
  FailureOr<Scope> aScope = getScope(*this, "A", aType);
  FailureOr<Scope> bScope = getScope(*this, "B", bType);
  FailureOr<Scope> cScope = getScope(*this, "C", cType);
  if (failed(aScope) || failed(bScope) || failed(cScope))
    return failure();
  Buffer a{"A", aType, *aScope}, b{"B", bType, *bScope}, c{"C", cType, *cScope};

  // Scopes: on-chip operands, an accumulator scope for C, one family.
  for (const Buffer &operand : {a, b})
    if (operand.scope == Scope::global)
      return emitOpError() << "expected " << operand.name << " in an on-chip scope but got global";
  if (c.scope != Scope::fragment && c.scope != Scope::local && c.scope != Scope::l0c)
    return emitOpError() << "expected C in scope fragment, local or l0c but got "
                         << stringifyScope(c.scope);
  if (failed(verifyOneFamily(*this, {c, a, b})) ||
      failed(verifyOnChipNonZeroExtents(*this, {a, b, c})))
    return failure();
  if (c.scope == Scope::l0c) {
    if (a.scope != Scope::l1 && a.scope != Scope::l0a)
      return emitOpError() << "expected A in scope l1 or l0a (the cube path) but got "
                           << stringifyScope(a.scope);
    if (b.scope != Scope::l1 && b.scope != Scope::l0b)
      return emitOpError() << "expected B in scope l1 or l0b (the cube path) but got "
                           << stringifyScope(b.scope);
  }

  // Shapes: C is M x N, op(A) is M x K, op(B) is K x N.
  int64_t m = cType.getDimSize(0), n = cType.getDimSize(1);
  bool transposeA = getTransposeA(), transposeB = getTransposeB();
  int64_t k = aType.getDimSize(transposeA ? 0 : 1);
  SmallVector<int64_t, 2> expectedA =
      transposeA ? SmallVector<int64_t, 2>{k, m} : SmallVector<int64_t, 2>{m, k};
  if (aType.getShape() != ArrayRef<int64_t>(expectedA))
    return emitOpError() << "expected A to have shape " << formatShape(expectedA)
                         << (transposeA ? " (K x M, transpose_a)" : " (M x K)") << " but got "
                         << formatShape(aType.getShape());
  SmallVector<int64_t, 2> expectedB =
      transposeB ? SmallVector<int64_t, 2>{n, k} : SmallVector<int64_t, 2>{k, n};
  if (bType.getShape() != ArrayRef<int64_t>(expectedB))
    return emitOpError() << "expected B to have shape " << formatShape(expectedB)
                         << (transposeB ? " (N x K, transpose_b)" : " (K x N)") << " but got "
                         << formatShape(bType.getShape());

  // Element types.
  Type inType = aType.getElementType();
  if (bType.getElementType() != inType)
    return emitOpError() << "expected B element type " << inType
                         << " (the A element type) but got " << bType.getElementType();
  SmallVector<Type, 2> accTypes = getAccumulatorTypes(inType);
  if (accTypes.empty())
    return emitOpError() << "expected A element type f16, bf16, f32, an 8-bit float or i8 but got "
                         << inType;
  if (!llvm::is_contained(accTypes, cType.getElementType())) {
    InFlightDiagnostic diag = emitOpError() << "expected C element type ";
    llvm::interleave(accTypes, diag, [&](Type type) { diag << type; }, " or ");
    return diag << " (for A element type " << inType << ") but got " << cType.getElementType();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

static ParseResult parseReduceKind(OpAsmParser &parser, ReduceKindAttr &kind) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<ReduceKind> value = symbolizeReduceKind(keyword);
  if (!value)
    return parser.emitError(loc)
           << "expected reduce kind sum, max, min, abssum or absmax but got '" << keyword << "'";
  kind = ReduceKindAttr::get(parser.getContext(), *value);
  return success();
}

static void printReduceKind(OpAsmPrinter &p, Operation *, ReduceKindAttr kind) {
  p << stringifyReduceKind(kind.getValue());
}

LogicalResult ReduceOp::verify() {
  MemRefType srcType = getSrc().getType(), dstType = getDst().getType();
  FailureOr<Scope> srcScope = getScope(*this, "src", srcType);
  FailureOr<Scope> dstScope = getScope(*this, "dst", dstType);
  if (failed(srcScope) || failed(dstScope) ||
      failed(verifyOneFamily(*this, {{"src", srcType, *srcScope}, {"dst", dstType, *dstScope}})))
    return failure();
  // Not only on-chip: a reduction over no elements has no value to give
  // max and min, whatever the scope.
  if (failed(verifyNonZeroExtents(*this, "src", srcType)) ||
      failed(verifyNonZeroExtents(*this, "dst", dstType)))
    return failure();
  int64_t dim = getDimAttr().getInt();
  if (failed(verifyDim(*this, dim, srcType.getRank())))
    return failure();
  SmallVector<int64_t> expected(srcType.getShape());
  expected.erase(expected.begin() + dim);
  if (expected.empty())
    expected.push_back(1);
  if (dstType.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "expected dst shape " << formatShape(expected) << " (src shape "
                         << formatShape(srcType.getShape()) << " without dim " << dim
                         << ") but got " << formatShape(dstType.getShape());
  if (dstType.getElementType() != srcType.getElementType())
    return emitOpError() << "expected dst element type " << srcType.getElementType()
                         << " (the src element type) but got " << dstType.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// CumsumOp
//===----------------------------------------------------------------------===//

LogicalResult CumsumOp::verify() {
  MemRefType srcType = getSrc().getType(), dstType = getDst().getType();
  FailureOr<Scope> srcScope = getScope(*this, "src", srcType);
  FailureOr<Scope> dstScope = getScope(*this, "dst", dstType);
  if (failed(srcScope) || failed(dstScope))
    return failure();
  Buffer src{"src", srcType, *srcScope}, dst{"dst", dstType, *dstScope};
  if (failed(verifyOneFamily(*this, {src, dst})) ||
      failed(verifyOnChipNonZeroExtents(*this, {src, dst})))
    return failure();
  if (failed(verifyDim(*this, getDimAttr().getInt(), srcType.getRank())))
    return failure();
  if (dstType.getShape() != srcType.getShape())
    return emitOpError() << "expected dst shape " << formatShape(srcType.getShape())
                         << " (the src shape) but got " << formatShape(dstType.getShape());
  if (dstType.getElementType() != srcType.getElementType())
    return emitOpError() << "expected dst element type " << srcType.getElementType()
                         << " (the src element type) but got " << dstType.getElementType();
  return success();
}

#define GET_OP_CLASSES
#include "tile/TileOps.cpp.inc"
