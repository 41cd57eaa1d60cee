#include "lib/Format.h"
#include "lib/OperandSegments.h"
#include "ascend/AscendDialect.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::ascend;

//===----------------------------------------------------------------------===//
// Memory spaces, shapes and message pieces
//===----------------------------------------------------------------------===//

std::optional<MemSpace> mlir::ascend::getMemSpace(Type type) {
  auto memref = dyn_cast<BaseMemRefType>(type);
  if (!memref)
    return std::nullopt;
  if (auto space = dyn_cast_or_null<MemSpaceAttr>(memref.getMemorySpace()))
    return space.getValue();
  return std::nullopt;
}

/// The memory space of a memref type as a message names it.
static std::string describeSpace(Type type) {
  if (std::optional<MemSpace> space = getMemSpace(type))
    return stringifyMemSpace(*space).str();
  Attribute attr = cast<BaseMemRefType>(type).getMemorySpace();
  if (!attr)
    return "the default memory space";
  std::string text;
  llvm::raw_string_ostream os(text);
  os << attr;
  return text;
}

/// Types print unquoted in messages, as they read in the IR.
static std::string str(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

static std::string formatShape(ArrayRef<int64_t> shape) {
  return tilec::formatShape(shape, "a scalar");
}

static std::string formatList(ArrayRef<int64_t> values) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << '[';
  llvm::interleaveComma(values, os);
  os << ']';
  return text;
}

/// Writes `a`, `a or b`, `a, b or c`.
template <typename Range, typename Fn>
static void interleaveOr(const Range &items, InFlightDiagnostic &diag, Fn print) {
  size_t count = llvm::size(items), index = 0;
  for (const auto &item : items) {
    if (index > 0)
      diag << (index + 1 == count ? " or " : ", ");
    print(item);
    ++index;
  }
}

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<ShapedType>(value.getType()).getShape();
}

static Type elementTypeOf(Value value) {
  return cast<ShapedType>(value.getType()).getElementType();
}

/// Shapes agree when they have one rank and no two static extents differ.
static bool shapesAgree(ArrayRef<int64_t> lhs, ArrayRef<int64_t> rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip_equal(lhs, rhs))
    if (!ShapedType::isDynamic(l) && !ShapedType::isDynamic(r) && l != r)
      return false;
  return true;
}

static LogicalResult verifySpace(Operation *op, Value value, StringRef name,
                                 ArrayRef<MemSpace> allowed) {
  std::optional<MemSpace> space = getMemSpace(value.getType());
  if (space && llvm::is_contained(allowed, *space))
    return success();
  InFlightDiagnostic diag = op->emitOpError() << "expected " << name << " in ";
  interleaveOr(allowed, diag, [&](MemSpace s) { diag << stringifyMemSpace(s); });
  return diag << " but got " << describeSpace(value.getType());
}

static LogicalResult verifyRank(Operation *op, Value value, StringRef name, int64_t rank) {
  int64_t actual = cast<ShapedType>(value.getType()).getRank();
  if (actual == rank)
    return success();
  return op->emitOpError() << "expected " << name << " of rank " << rank << " but got "
                           << actual;
}

static LogicalResult verifyOffsets(Operation *op, ValueRange offsets, StringRef name,
                                   int64_t expected) {
  if (static_cast<int64_t>(offsets.size()) == expected)
    return success();
  return op->emitOpError() << "expected " << expected << " " << name
                           << " offsets (one per dimension) but got " << offsets.size();
}

/// `sizes` must have `count` positive entries, named by `form` in messages.
static LogicalResult verifySizes(Operation *op, ArrayRef<int64_t> sizes, size_t count,
                                 StringRef form) {
  if (sizes.size() != count)
    return op->emitOpError() << "expected sizes " << form << " but got " << formatList(sizes);
  if (llvm::any_of(sizes, [](int64_t size) { return size <= 0; }))
    return op->emitOpError() << "expected positive sizes but got " << formatList(sizes);
  return success();
}

static LogicalResult verifySameElementType(Operation *op, Value ref, StringRef refName,
                                           Value value, StringRef name) {
  if (elementTypeOf(ref) == elementTypeOf(value))
    return success();
  return op->emitOpError() << "expected " << name << " of element type " << str(elementTypeOf(ref))
                           << " (the element type of " << refName << ") but got "
                           << str(elementTypeOf(value));
}

static LogicalResult verifySameShape(Operation *op, Value ref, StringRef refName, Value value,
                                     StringRef name) {
  if (shapesAgree(shapeOf(ref), shapeOf(value)))
    return success();
  return op->emitOpError() << "expected " << name << " of shape " << formatShape(shapeOf(ref))
                           << " (the shape of " << refName << ") but got "
                           << formatShape(shapeOf(value));
}

/// The region of extent `sizes` at `offsets` lies inside the on-chip buffer
/// `value`, as far as static extents and constant offsets tell.
static LogicalResult verifyRegionFits(Operation *op, Value value, StringRef name,
                                      ValueRange offsets, ArrayRef<int64_t> sizes) {
  for (auto [dim, extent, size] : llvm::enumerate(shapeOf(value), sizes)) {
    if (ShapedType::isDynamic(extent))
      continue;
    if (extent < size)
      return op->emitOpError() << "expected dimension " << dim << " of " << name
                               << " to hold at least " << size << " elements but got "
                               << extent;
    APInt offset;
    if (dim < offsets.size() && matchPattern(offsets[dim], m_ConstantInt(&offset)) &&
        (offset.isNegative() || offset.getSExtValue() + size > extent))
      return op->emitOpError() << "expected elements [" << offset.getSExtValue() << ", "
                               << offset.getSExtValue() + size << ") of dimension " << dim
                               << " of " << name << " to lie in [0, " << extent
                               << ") but they do not";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Fractal layouts
//===----------------------------------------------------------------------===//

static int64_t ceilDiv(int64_t lhs, int64_t rhs) { return (lhs + rhs - 1) / rhs; }

/// C0, the elements in the 32-byte row of a fractal; 0 for an element type
/// that has no fractal layout.
static int64_t fractalC0(Type elementType) {
  if (!elementType.isIntOrFloat())
    return 0;
  switch (elementType.getIntOrFloatBitWidth()) {
  case 8:
    return 32;
  case 16:
    return 16;
  case 32:
    return 8;
  default:
    return 0;
  }
}

static LogicalResult verifyFractalElementType(Operation *op, Value value, StringRef name) {
  if (fractalC0(elementTypeOf(value)) != 0)
    return success();
  return op->emitOpError() << "expected " << name
                           << " element type of 8, 16 or 32 bits (a fractal layout) but got "
                           << str(elementTypeOf(value));
}

enum class Fractal { Nz, Zz, Zn, L0C };

/// The 4-D blocked shape that holds a rows x cols matrix in `layout`.
static SmallVector<int64_t, 4> fractalShape(Fractal layout, int64_t rows, int64_t cols,
                                            int64_t c0) {
  switch (layout) {
  case Fractal::Nz:
    return {ceilDiv(cols, c0), ceilDiv(rows, 16), 16, c0};
  case Fractal::Zz:
    return {ceilDiv(rows, 16), ceilDiv(cols, c0), 16, c0};
  case Fractal::Zn:
    return {ceilDiv(rows, c0), ceilDiv(cols, 16), 16, c0};
  case Fractal::L0C:
    return {ceilDiv(cols, 16), ceilDiv(rows, 16), 16, 16};
  }
  llvm_unreachable("unknown fractal layout");
}

static StringRef fractalName(Fractal layout) {
  switch (layout) {
  case Fractal::Nz:
  case Fractal::L0C:
    return "Nz";
  case Fractal::Zz:
    return "Zz";
  case Fractal::Zn:
    return "Zn";
  }
  llvm_unreachable("unknown fractal layout");
}

/// `value` must be shaped as the `layout` of a rows x cols matrix of its
/// element type.
static LogicalResult verifyFractalShape(Operation *op, Value value, StringRef name,
                                        Fractal layout, int64_t rows, int64_t cols) {
  Type elementType = elementTypeOf(value);
  SmallVector<int64_t, 4> expected =
      fractalShape(layout, rows, cols, fractalC0(elementType));
  if (shapeOf(value) == ArrayRef<int64_t>(expected))
    return success();
  return op->emitOpError() << "expected " << name << " shaped " << formatShape(expected) << " ("
                           << fractalName(layout) << " of " << rows << "x" << cols << " "
                           << str(elementType) << ") but got " << formatShape(shapeOf(value));
}

/// `value` must be shaped as the `layout` of a matrix of at least rows x cols
/// of its element type (a tile that a smaller region is copied into).
static LogicalResult verifyFractalShapeHolds(Operation *op, Value value, StringRef name,
                                             Fractal layout, int64_t rows, int64_t cols) {
  Type elementType = elementTypeOf(value);
  SmallVector<int64_t, 4> least =
      fractalShape(layout, rows, cols, fractalC0(elementType));
  ArrayRef<int64_t> shape = shapeOf(value);
  if (shape.size() == least.size() && shape[0] >= least[0] && shape[1] >= least[1] &&
      shape[2] == least[2] && shape[3] == least[3])
    return success();
  return op->emitOpError() << "expected " << name << " shaped at least " << formatShape(least)
                           << " (" << fractalName(layout) << " of " << rows << "x" << cols << " "
                           << str(elementType) << ") but got " << formatShape(shape);
}

//===----------------------------------------------------------------------===//
// Cores: which core runs an op, and which core an op needs
//===----------------------------------------------------------------------===//

/// The core kind that owns a pipe, if only one has it.
static std::optional<CoreType> coreOfPipe(Pipe pipe) {
  switch (pipe) {
  case Pipe::v:
    return CoreType::aiv;
  case Pipe::m:
  case Pipe::mte1:
  case Pipe::fix:
    return CoreType::aic;
  default:
    return std::nullopt;
  }
}

/// The core kind that owns a memory, if only one has it.
static std::optional<CoreType> coreOfSpace(MemSpace space) {
  switch (space) {
  case MemSpace::gm:
    return std::nullopt;
  case MemSpace::ub:
    return CoreType::aiv;
  default:
    return CoreType::aic;
  }
}

/// Checks that an op using `pipes` and the buffers `memrefs` sits in code
/// run by the core that owns them: the kernel's core kind, or in a mix
/// kernel the kind of the enclosing `ascend.core` region. Ops whose
/// resources span both cores (the 950's L1 <-> UB copies) are not checked.
LogicalResult mlir::ascend::verifyCorePlacement(Operation *op, ArrayRef<Pipe> pipes,
                                               ValueRange memrefs) {
  std::optional<CoreType> needed;
  std::string reason;
  auto require = [&](CoreType core, std::string why) {
    if (!needed) {
      needed = core;
      reason = std::move(why);
      return true;
    }
    return *needed == core;
  };
  for (Pipe pipe : pipes)
    if (std::optional<CoreType> core = coreOfPipe(pipe))
      if (!require(*core, ("pipe " + stringifyPipe(pipe)).str()))
        return success();
  for (Value memref : memrefs)
    if (std::optional<MemSpace> space = getMemSpace(memref.getType()))
      if (std::optional<CoreType> core = coreOfSpace(*space))
        if (!require(*core, stringifyMemSpace(*space).str()))
          return success();
  if (!needed)
    return success();

  auto fail = [&]() {
    return op->emitOpError() << "expected " << stringifyCoreType(*needed) << " code (" << reason
                             << " is on the " << stringifyCoreType(*needed) << ") but got ";
  };
  if (auto region = op->getParentOfType<CoreOp>()) {
    if (region.getCore() == *needed || region.getCore() == CoreType::mix)
      return success();
    return fail() << "an 'ascend.core " << stringifyCoreType(region.getCore()) << "' region";
  }
  auto func = op->getParentOfType<FunctionOpInterface>();
  auto kernel = func ? dyn_cast_or_null<CoreTypeAttr>(
                           func->getAttr(AscendDialect::kKernelAttrName))
                     : CoreTypeAttr();
  if (!kernel || kernel.getValue() == *needed)
    return success();
  if (kernel.getValue() == CoreType::mix)
    return fail() << "mix kernel code outside an 'ascend.core' region";
  return fail() << "an " << stringifyCoreType(kernel.getValue()) << " kernel";
}

//===----------------------------------------------------------------------===//
// Custom directives
//===----------------------------------------------------------------------===//

/// Enum attributes print as their bare keyword inside op syntax.
template <typename AttrT>
static ParseResult parseKeyword(OpAsmParser &parser, AttrT &attr) {
  using EnumT = decltype(std::declval<AttrT>().getValue());
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  if (std::optional<EnumT> value = symbolizeEnum<EnumT>(keyword)) {
    attr = AttrT::get(parser.getContext(), *value);
    return success();
  }
  InFlightDiagnostic diag = parser.emitError(loc) << "expected one of ";
  // The enums are dense from 0, and stringify answers "" past the end.
  for (uint32_t i = 0;; ++i) {
    StringRef name = stringifyEnum(static_cast<EnumT>(i));
    if (name.empty())
      break;
    diag << (i == 0 ? "" : ", ") << name;
  }
  return diag << " but got '" << keyword << "'";
}

template <typename AttrT>
static void printKeyword(OpAsmPrinter &printer, Operation *, AttrT attr) {
  printer << stringifyEnum(attr.getValue());
}

/// ` round <mode>`, omitted for the default `none`.
static ParseResult parseRoundMode(OpAsmParser &parser, RoundModeAttr &attr) {
  if (succeeded(parser.parseOptionalKeyword("round")))
    return parseKeyword(parser, attr);
  attr = RoundModeAttr::get(parser.getContext(), RoundMode::none);
  return success();
}

static void printRoundMode(OpAsmPrinter &printer, Operation *, RoundModeAttr attr) {
  if (attr && attr.getValue() != RoundMode::none)
    printer << " round " << stringifyRoundMode(attr.getValue());
}

/// `, <pipe>`, omitted for the default `s`.
static ParseResult parseOptionalPipe(OpAsmParser &parser, PipeAttr &attr) {
  if (succeeded(parser.parseOptionalComma()))
    return parseKeyword(parser, attr);
  attr = PipeAttr::get(parser.getContext(), Pipe::s);
  return success();
}

static void printOptionalPipe(OpAsmPrinter &printer, Operation *, PipeAttr attr) {
  if (attr && attr.getValue() != Pipe::s)
    printer << ", " << stringifyPipe(attr.getValue());
}

/// The types of memref operands that usually share a type: one type for all
/// of them, or one per operand.
static ParseResult parseSharedTypeList(OpAsmParser &parser, ArrayRef<Type *> slots) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<Type> types;
  if (parser.parseTypeList(types))
    return failure();
  if (types.size() == 1) {
    for (Type *slot : slots)
      *slot = types.front();
    return success();
  }
  if (types.size() != slots.size())
    return parser.emitError(loc) << "expected 1 or " << slots.size() << " types but got "
                                 << types.size();
  for (auto [slot, type] : llvm::zip_equal(slots, types))
    *slot = type;
  return success();
}

static void printSharedTypeList(OpAsmPrinter &printer, ArrayRef<Type> types) {
  if (llvm::all_equal(types))
    printer << types.front();
  else
    llvm::interleaveComma(types, printer);
}

static ParseResult parseSharedTypes(OpAsmParser &parser, Type &first, Type &second) {
  return parseSharedTypeList(parser, {&first, &second});
}

static ParseResult parseSharedTypes(OpAsmParser &parser, Type &first, Type &second,
                                    Type &third) {
  return parseSharedTypeList(parser, {&first, &second, &third});
}

static void printSharedTypes(OpAsmPrinter &printer, Operation *, Type first, Type second) {
  printSharedTypeList(printer, {first, second});
}

static void printSharedTypes(OpAsmPrinter &printer, Operation *, Type first, Type second,
                             Type third) {
  printSharedTypeList(printer, {first, second, third});
}

/// `T, scalar` or `Tdst, Tsrc, scalar`.
static ParseResult parseSharedTypesAndScalar(OpAsmParser &parser, Type &dst, Type &src,
                                             Type &scalar) {
  Type next;
  if (parser.parseType(dst) || parser.parseComma() || parser.parseType(next))
    return failure();
  if (!isa<MemRefType>(next)) {
    src = dst;
    scalar = next;
    return success();
  }
  src = next;
  return failure(parser.parseComma() || parser.parseType(scalar));
}

static void printSharedTypesAndScalar(OpAsmPrinter &printer, Operation *, Type dst, Type src,
                                      Type scalar) {
  printer << dst << ", ";
  if (src != dst)
    printer << src << ", ";
  printer << scalar;
}

/// `Tdst, Tmask` or `Tdst, Tmask, Ta, Tb`.
static ParseResult parseSelectTypes(OpAsmParser &parser, Type &dst, Type &mask, Type &a,
                                    Type &b) {
  if (parser.parseType(dst) || parser.parseComma() || parser.parseType(mask))
    return failure();
  if (failed(parser.parseOptionalComma())) {
    a = b = dst;
    return success();
  }
  return failure(parser.parseType(a) || parser.parseComma() || parser.parseType(b));
}

static void printSelectTypes(OpAsmPrinter &printer, Operation *, Type dst, Type mask, Type a,
                             Type b) {
  printer << dst << ", " << mask;
  if (a != dst || b != dst)
    printer << ", " << a << ", " << b;
}

//===----------------------------------------------------------------------===//
// CoreOp
//===----------------------------------------------------------------------===//

LogicalResult CoreOp::verify() {
  if (getCore() == CoreType::mix)
    return emitOpError() << "expected aic or aiv but got mix";
  if (auto outer = (*this)->getParentOfType<CoreOp>())
    return emitOpError() << "expected no enclosing 'ascend.core' region but got 'ascend.core "
                         << stringifyCoreType(outer.getCore()) << "'";
  auto func = (*this)->getParentOfType<FunctionOpInterface>();
  auto kernel = func ? dyn_cast_or_null<CoreTypeAttr>(
                           func->getAttr(AscendDialect::kKernelAttrName))
                     : CoreTypeAttr();
  if (!kernel)
    return emitOpError() << "expected an enclosing mix kernel but got a function that is not "
                            "a kernel";
  if (kernel.getValue() != CoreType::mix)
    return emitOpError() << "expected an enclosing mix kernel but got an "
                         << stringifyCoreType(kernel.getValue()) << " kernel";
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// The pipe of each legal `ascend.copy` path.
static std::optional<Pipe> copyPipe(MemSpace src, MemSpace dst) {
  using S = MemSpace;
  if (src == S::gm && (dst == S::ub || dst == S::l1))
    return Pipe::mte2;
  if (src == S::ub && dst == S::gm)
    return Pipe::mte3;
  if (src == S::ub && dst == S::ub)
    return Pipe::v;
  if ((src == S::l1 && dst == S::ub) || (src == S::ub && dst == S::l1))
    return Pipe::mte3;
  return std::nullopt;
}

Pipe CopyOp::getPipe() {
  std::optional<MemSpace> src = getMemSpace(getSrc().getType());
  std::optional<MemSpace> dst = getMemSpace(getDst().getType());
  std::optional<Pipe> pipe = src && dst ? copyPipe(*src, *dst) : std::nullopt;
  // Only meaningful on a verified op, whose path is legal.
  return pipe.value_or(Pipe::all);
}

LogicalResult CopyOp::verify() {
  // src, src_offsets, dst, dst_offsets
  if (failed(tilec::verifyOperandSegments(*this, getProperties().operandSegmentSizes, "1*1*")))
    return failure();
  std::optional<MemSpace> src = getMemSpace(getSrc().getType());
  std::optional<MemSpace> dst = getMemSpace(getDst().getType());
  if (!src)
    return emitOpError() << "expected src in an #ascend.mem memory space but got "
                         << describeSpace(getSrc().getType());
  if (!dst)
    return emitOpError() << "expected dst in an #ascend.mem memory space but got "
                         << describeSpace(getDst().getType());
  if (!copyPipe(*src, *dst))
    return emitOpError() << "expected a copy path gm -> ub, ub -> gm, gm -> l1, ub -> ub, "
                            "l1 -> ub or ub -> l1 but got "
                         << stringifyMemSpace(*src) << " -> " << stringifyMemSpace(*dst);
  if (failed(verifySameElementType(*this, getSrc(), "src", getDst(), "dst")))
    return failure();
  if (getAtomicAdd()) {
    if (*src != MemSpace::ub || *dst != MemSpace::gm)
      return emitOpError() << "expected an atomic_add copy from ub to gm but got "
                           << stringifyMemSpace(*src) << " -> " << stringifyMemSpace(*dst);
    Type element = elementTypeOf(getDst());
    if (!element.isF32() && !element.isF16() && !element.isBF16() &&
        !element.isSignlessInteger(32) && !element.isSignlessInteger(16) &&
        !element.isSignlessInteger(8))
      return emitOpError() << "expected an atomic_add element type f32, f16, bf16, i32, i16 or "
                              "i8 but got "
                           << str(element);
  }

  ArrayRef<int64_t> sizes = getSizes();
  int64_t rank = cast<MemRefType>(getSrc().getType()).getRank();
  if (sizes.size() != static_cast<size_t>(rank))
    return emitOpError() << "expected sizes with one entry per dimension of src (" << rank
                         << ") but got " << formatList(sizes);
  if (failed(verifySizes(*this, sizes, rank, "")) ||
      failed(verifyRank(*this, getDst(), "dst", rank)) ||
      failed(verifyOffsets(*this, getSrcOffsets(), "src", rank)) ||
      failed(verifyOffsets(*this, getDstOffsets(), "dst", rank)))
    return failure();

  // Only the GM side may be partly out of range (edge tiles).
  for (auto [value, offsets, name, space] :
       {std::tuple(getSrc(), getSrcOffsets(), "src", *src),
        std::tuple(getDst(), getDstOffsets(), "dst", *dst)}) {
    if (space == MemSpace::gm)
      continue;
    if (failed(verifyRegionFits(*this, value, name, offsets, sizes)))
      return failure();
  }
  return verifyCorePlacement(*this, {getPipe()}, {getSrc(), getDst()});
}

Pipe CopyNd2NzOp::getPipe() { return Pipe::mte2; }

LogicalResult CopyNd2NzOp::verify() {
  if (failed(verifySpace(*this, getSrc(), "src", {MemSpace::gm})) ||
      failed(verifySpace(*this, getDst(), "dst", {MemSpace::l1})) ||
      failed(verifyRank(*this, getSrc(), "src", 2)) ||
      failed(verifyOffsets(*this, getSrcOffsets(), "src", 2)) ||
      failed(verifySizes(*this, getSizes(), 2, "[rows, cols]")) ||
      failed(verifySameElementType(*this, getSrc(), "src", getDst(), "dst")) ||
      failed(verifyFractalElementType(*this, getDst(), "dst")))
    return failure();
  if (getTranspose() && getZz())
    return emitOpError() << "expected at most one of transpose (Nz of the transpose) and zz";
  if (getDstRow() && (getTranspose() || getZz()))
    return emitOpError() << "expected dst_row only with the Nz layout (no transpose, no zz)";
  int64_t rows = getSizes()[0], cols = getSizes()[1];
  if (failed(getTranspose()
                 ? verifyFractalShapeHolds(*this, getDst(), "dst", Fractal::Nz, cols, rows)
             : getZz() ? verifyFractalShapeHolds(*this, getDst(), "dst", Fractal::Zz, rows, cols)
                       : verifyFractalShapeHolds(*this, getDst(), "dst", Fractal::Nz, rows, cols)))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {getSrc(), getDst()});
}

/// Shared by the two L1 -> L0 loads: `dst` holds the rows x cols operand in
/// `dstLayout`; `src` holds it, or its transpose, in Nz (Zz with `zz`).
static LogicalResult verifyL0Load(Operation *op, Value src, Value dst, MemSpace dstSpace,
                                  Fractal dstLayout, ArrayRef<int64_t> sizes, bool transpose,
                                  bool zz, StringRef form) {
  if (failed(verifySpace(op, src, "src", {MemSpace::l1})) ||
      failed(verifySpace(op, dst, "dst", {dstSpace})) ||
      failed(verifySizes(op, sizes, 2, form)) ||
      failed(verifySameElementType(op, src, "src", dst, "dst")) ||
      failed(verifyFractalElementType(op, dst, "dst")))
    return failure();
  int64_t rows = sizes[0], cols = sizes[1];
  Fractal srcLayout = zz ? Fractal::Zz : Fractal::Nz;
  if (failed(transpose ? verifyFractalShape(op, src, "src", srcLayout, cols, rows)
                       : verifyFractalShape(op, src, "src", srcLayout, rows, cols)) ||
      failed(verifyFractalShape(op, dst, "dst", dstLayout, rows, cols)))
    return failure();
  return verifyCorePlacement(op, {Pipe::mte1}, {src, dst});
}

Pipe LoadL0AOp::getPipe() { return Pipe::mte1; }

LogicalResult LoadL0AOp::verify() {
  return verifyL0Load(*this, getSrc(), getDst(), MemSpace::l0a, Fractal::Zz, getSizes(),
                      getTranspose(), getZz(), "[M, K]");
}

Pipe LoadL0BOp::getPipe() { return Pipe::mte1; }

LogicalResult LoadL0BOp::verify() {
  return verifyL0Load(*this, getSrc(), getDst(), MemSpace::l0b, Fractal::Zn, getSizes(),
                      getTranspose(), getZz(), "[K, N]");
}

Pipe MmadOp::getPipe() { return Pipe::m; }

/// Whether the cube multiplies (a, b) element types into c.
static bool isLegalMmadTypes(Type a, Type b, Type c) {
  if (a != b)
    return false;
  if (a.isF16() || a.isBF16() || a.isF32() || isa<Float8E4M3FNType, Float8E5M2Type>(a))
    return c.isF32();
  return a.isSignlessInteger(8) && c.isSignlessInteger(32);
}

LogicalResult MmadOp::verify() {
  if (failed(verifySpace(*this, getA(), "a", {MemSpace::l0a})) ||
      failed(verifySpace(*this, getB(), "b", {MemSpace::l0b})) ||
      failed(verifySpace(*this, getC(), "c", {MemSpace::l0c})) ||
      failed(verifySizes(*this, getSizes(), 3, "[M, N, K]")))
    return failure();
  Type a = elementTypeOf(getA()), b = elementTypeOf(getB()), c = elementTypeOf(getC());
  if (!isLegalMmadTypes(a, b, c))
    return emitOpError() << "expected element types (a, b) -> c among (f16, f16) -> f32, "
                            "(bf16, bf16) -> f32, (f32, f32) -> f32, (i8, i8) -> i32, "
                            "(f8E4M3FN, f8E4M3FN) -> f32, (f8E5M2, f8E5M2) -> f32 but got ("
                         << str(a) << ", " << str(b) << ") -> " << str(c);
  int64_t m = getSizes()[0], n = getSizes()[1], k = getSizes()[2];
  if (failed(verifyFractalShape(*this, getA(), "a", Fractal::Zz, m, k)) ||
      failed(verifyFractalShape(*this, getB(), "b", Fractal::Zn, k, n)) ||
      failed(verifyFractalShape(*this, getC(), "c", Fractal::L0C, m, n)))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {getA(), getB(), getC()});
}

Pipe FixpipeOp::getPipe() { return Pipe::fix; }

LogicalResult FixpipeOp::verify() {
  if (failed(verifySpace(*this, getSrc(), "src", {MemSpace::l0c})) ||
      failed(verifySpace(*this, getDst(), "dst", {MemSpace::gm, MemSpace::l1, MemSpace::ub})) ||
      failed(verifySizes(*this, getSizes(), 2, "[M, N]")) ||
      failed(verifyOffsets(*this, getDstOffsets(), "dst", 2)))
    return failure();

  Type src = elementTypeOf(getSrc()), dst = elementTypeOf(getDst());
  if (src.isF32()) {
    if (!dst.isF16() && !dst.isBF16() && !dst.isF32())
      return emitOpError() << "expected dst element type f16, bf16 or f32 for an f32 "
                              "accumulator but got "
                           << str(dst);
  } else if (src.isSignlessInteger(32)) {
    if (!dst.isSignlessInteger(32) && !dst.isF16())
      return emitOpError() << "expected dst element type i32 or f16 for an i32 accumulator "
                              "but got "
                           << str(dst);
  } else {
    return emitOpError() << "expected src element type f32 or i32 but got " << str(src);
  }

  int64_t m = getSizes()[0], n = getSizes()[1];
  if (failed(verifyFractalShape(*this, getSrc(), "src", Fractal::L0C, m, n)))
    return failure();

  if (getMemSpace(getDst().getType()) == MemSpace::l1) {
    // An L1 destination is the Nz layout of a matrix that holds the M x N
    // region at the (logical) offsets.
    if (failed(verifyRank(*this, getDst(), "dst", 4)))
      return failure();
    int64_t c0 = fractalC0(dst);
    ArrayRef<int64_t> shape = shapeOf(getDst());
    if (ShapedType::isDynamicShape(shape) || shape[2] != 16 || shape[3] != c0 ||
        shape[0] < ceilDiv(n, c0) || shape[1] < ceilDiv(m, 16))
      return emitOpError() << "expected dst shaped C1xR1x16x" << c0 << " with C1 >= "
                           << ceilDiv(n, c0) << " and R1 >= " << ceilDiv(m, 16) << " (Nz of "
                           << m << "x" << n << " " << str(dst) << " or larger) but got "
                           << formatShape(shape);
  } else {
    if (failed(verifyRank(*this, getDst(), "dst", 2)))
      return failure();
    // With dual_dst each AIV's UB receives half of the rows.
    SmallVector<int64_t> held{getDualDst() ? m / 2 : m, n};
    if (getMemSpace(getDst().getType()) == MemSpace::ub &&
        failed(verifyRegionFits(*this, getDst(), "dst", getDstOffsets(), held)))
      return failure();
  }
  if (getDualDst()) {
    if (getMemSpace(getDst().getType()) != MemSpace::ub)
      return emitOpError() << "expected dst in ub with dual_dst (it writes the UBs of both "
                              "AIVs) but got "
                           << describeSpace(getDst().getType());
    if (m % 2)
      return emitOpError() << "expected an even M with dual_dst (M/2 rows to each AIV) but got "
                           << m;
    if (src != dst || getRelu())
      return emitOpError() << "expected no cast and no relu with dual_dst (the dual "
                              "destination bypasses the fixpipe's conversions)";
  }
  return verifyCorePlacement(*this, {getPipe()}, {getSrc()});
}

//===----------------------------------------------------------------------===//
// Vector
//===----------------------------------------------------------------------===//

using NamedValue = std::pair<Value, StringRef>;

static LogicalResult verifyInUB(Operation *op, ArrayRef<NamedValue> operands) {
  for (auto [value, name] : operands)
    if (failed(verifySpace(op, value, name, {MemSpace::ub})))
      return failure();
  return success();
}

/// Every operand has the shape and element type of the first.
static LogicalResult verifyAlike(Operation *op, ArrayRef<NamedValue> operands) {
  auto [ref, refName] = operands.front();
  for (auto [value, name] : operands.drop_front())
    if (failed(verifySameShape(op, ref, refName, value, name)) ||
        failed(verifySameElementType(op, ref, refName, value, name)))
      return failure();
  return success();
}

static LogicalResult verifyScalar(Operation *op, Value dst, Value scalar) {
  if (scalar.getType() == elementTypeOf(dst))
    return success();
  return op->emitOpError() << "expected scalar of type " << str(elementTypeOf(dst))
                           << " (the element type of dst) but got " << str(scalar.getType());
}

static LogicalResult verifyMask(Operation *op, Value mask) {
  Type type = elementTypeOf(mask);
  if (type.isSignlessInteger(1) || type.isSignlessInteger(8))
    return success();
  return op->emitOpError() << "expected mask element type i1 or i8 but got " << str(type);
}

/// `small` has the shape of `large` without its last dimension, or with it
/// set to 1; a 1-D `large` pairs with a 1-element `small`.
static LogicalResult verifyLastDimDropped(Operation *op, Value large, StringRef largeName,
                                          Value small, StringRef smallName) {
  ArrayRef<int64_t> shape = shapeOf(large);
  SmallVector<int64_t> dropped(shape.drop_back());
  SmallVector<int64_t> kept(dropped);
  kept.push_back(1);
  if (shape.empty() || (!dropped.empty() && shapesAgree(shapeOf(small), dropped)) ||
      shapesAgree(shapeOf(small), kept))
    return success();
  InFlightDiagnostic diag = op->emitOpError() << "expected " << smallName << " of shape ";
  if (!dropped.empty())
    diag << formatShape(dropped) << " or ";
  return diag << formatShape(kept) << " (" << largeName << " " << formatShape(shape)
              << " without its last dimension) but got " << formatShape(shapeOf(small));
}

LogicalResult VBinOp::verify() {
  SmallVector<NamedValue> operands = {{getDst(), "dst"}, {getA(), "a"}, {getB(), "b"}};
  if (failed(verifyInUB(*this, operands)) || failed(verifyAlike(*this, operands)))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {});
}

LogicalResult VBinsOp::verify() {
  SmallVector<NamedValue> operands = {{getDst(), "dst"}, {getSrc(), "src"}};
  if (failed(verifyInUB(*this, operands)) || failed(verifyAlike(*this, operands)) ||
      failed(verifyScalar(*this, getDst(), getScalar())))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {});
}

LogicalResult VUnaryOp::verify() {
  SmallVector<NamedValue> operands = {{getDst(), "dst"}, {getSrc(), "src"}};
  if (failed(verifyInUB(*this, operands)) || failed(verifyAlike(*this, operands)))
    return failure();
  switch (getKind()) {
  case VUnaryKind::exp:
  case VUnaryKind::ln:
  case VUnaryKind::sqrt:
  case VUnaryKind::rsqrt:
  case VUnaryKind::rec:
    if (!isa<FloatType>(elementTypeOf(getDst())))
      return emitOpError() << "expected a float element type for " << stringifyEnum(getKind())
                           << " but got " << str(elementTypeOf(getDst()));
    break;
  default:
    break;
  }
  return verifyCorePlacement(*this, {getPipe()}, {});
}

LogicalResult VDupOp::verify() {
  if (failed(verifyInUB(*this, {{getDst(), "dst"}})) ||
      failed(verifyScalar(*this, getDst(), getScalar())))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {});
}

LogicalResult VCastOp::verify() {
  SmallVector<NamedValue> operands = {{getDst(), "dst"}, {getSrc(), "src"}};
  if (failed(verifyInUB(*this, operands)) ||
      failed(verifySameShape(*this, getDst(), "dst", getSrc(), "src")))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {});
}

LogicalResult VReduceOp::verify() {
  SmallVector<NamedValue> operands = {{getDst(), "dst"}, {getSrc(), "src"}};
  if (failed(verifyInUB(*this, operands)) ||
      failed(verifySameElementType(*this, getSrc(), "src", getDst(), "dst")) ||
      failed(verifyLastDimDropped(*this, getSrc(), "src", getDst(), "dst")))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {});
}

LogicalResult VBrcbOp::verify() {
  SmallVector<NamedValue> operands = {{getDst(), "dst"}, {getSrc(), "src"}};
  if (failed(verifyInUB(*this, operands)) ||
      failed(verifySameElementType(*this, getDst(), "dst", getSrc(), "src")) ||
      failed(verifyLastDimDropped(*this, getDst(), "dst", getSrc(), "src")))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {});
}

LogicalResult VCmpOp::verify() {
  SmallVector<NamedValue> operands = {{getMask(), "mask"}, {getA(), "a"}, {getB(), "b"}};
  if (failed(verifyInUB(*this, operands)) || failed(verifyMask(*this, getMask())) ||
      failed(verifyAlike(*this, {{getA(), "a"}, {getB(), "b"}})) ||
      failed(verifySameShape(*this, getA(), "a", getMask(), "mask")))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {});
}

LogicalResult VSelOp::verify() {
  SmallVector<NamedValue> operands = {
      {getDst(), "dst"}, {getMask(), "mask"}, {getA(), "a"}, {getB(), "b"}};
  if (failed(verifyInUB(*this, operands)) || failed(verifyMask(*this, getMask())) ||
      failed(verifyAlike(*this, {{getDst(), "dst"}, {getA(), "a"}, {getB(), "b"}})) ||
      failed(verifySameShape(*this, getDst(), "dst", getMask(), "mask")))
    return failure();
  return verifyCorePlacement(*this, {getPipe()}, {});
}

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

static constexpr int64_t kMaxEventId = 7;
static constexpr int64_t kMaxCrossCoreFlagId = 10;

static LogicalResult verifySinglePipe(Operation *op, StringRef name, Pipe pipe) {
  if (pipe != Pipe::all)
    return success();
  return op->emitOpError() << "expected " << name << " to be a single pipe but got all";
}

static LogicalResult verifyFlag(Operation *op, Pipe src, Pipe dst, int64_t event) {
  if (event < 0 || event > kMaxEventId)
    return op->emitOpError() << "expected event id in [0, " << kMaxEventId << "] but got "
                             << event;
  if (failed(verifySinglePipe(op, "src", src)) || failed(verifySinglePipe(op, "dst", dst)))
    return failure();
  if (src == dst)
    return op->emitOpError() << "expected different src and dst pipes but got "
                             << stringifyPipe(src) << " -> " << stringifyPipe(dst)
                             << " (order one pipe with ascend.pipe_barrier)";
  std::optional<CoreType> srcCore = coreOfPipe(src), dstCore = coreOfPipe(dst);
  if (srcCore && dstCore && *srcCore != *dstCore)
    return op->emitOpError() << "expected src and dst pipes of one core but got "
                             << stringifyPipe(src) << " on the " << stringifyCoreType(*srcCore)
                             << " and " << stringifyPipe(dst) << " on the "
                             << stringifyCoreType(*dstCore)
                             << " (synchronize cores with ascend.cross_core_set_flag)";
  return verifyCorePlacement(op, {src, dst}, {});
}

LogicalResult SetFlagOp::verify() {
  return verifyFlag(*this, getSrc(), getDst(), getEventAttr().getInt());
}

LogicalResult WaitFlagOp::verify() {
  return verifyFlag(*this, getSrc(), getDst(), getEventAttr().getInt());
}

LogicalResult PipeBarrierOp::verify() { return verifyCorePlacement(*this, {getPipe()}, {}); }

static LogicalResult verifyCrossCoreFlag(Operation *op, int64_t flag, Pipe pipe) {
  if (flag < 0 || flag > kMaxCrossCoreFlagId)
    return op->emitOpError() << "expected flag id in [0, " << kMaxCrossCoreFlagId
                             << "] but got " << flag;
  if (failed(verifySinglePipe(op, "pipe", pipe)))
    return failure();
  return verifyCorePlacement(op, {pipe}, {});
}

LogicalResult CrossCoreSetFlagOp::verify() {
  int64_t mode = getModeAttr().getInt();
  if (mode != 0 && mode != 1 && mode != 2 && mode != 4)
    return emitOpError() << "expected mode 0, 1, 2 or 4 but got " << mode;
  return verifyCrossCoreFlag(*this, getFlagAttr().getInt(), getPipe());
}

LogicalResult CrossCoreWaitFlagOp::verify() {
  return verifyCrossCoreFlag(*this, getFlagAttr().getInt(), getPipe());
}

#define GET_OP_CLASSES
#include "ascend/AscendOps.cpp.inc"
