// The C entry points of libTilecDialects.so: registration into a Python-owned
// context (called through ctypes with the context's C pointer), attribute
// constructors that need no string parsing, and the mlir-opt dialect plugin.
#include "ascend/AscendDialect.h"
#include "tile/TileDialect.h"

#include "mlir-c/IR.h"
#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Tools/Plugins/DialectPlugin.h"

using namespace mlir;

static void insertTilecDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, ascend::AscendDialect>();
}

/// The enum value of a tilec enum attribute, or -1 when `attr` is not an
/// attribute of that kind: Python reads scopes, reduce kinds and memory
/// spaces through these instead of slicing the attribute's printed text.
template <typename AttrT> static int32_t enumValueOf(MlirAttribute attr) {
  auto typed = llvm::dyn_cast_if_present<AttrT>(unwrap(attr));
  return typed ? static_cast<int32_t>(typed.getValue()) : -1;
}

extern "C" {

__attribute__((visibility("default"))) void tilecRegisterDialects(MlirContext ctx) {
  DialectRegistry registry;
  insertTilecDialects(registry);
  unwrap(ctx)->appendDialectRegistry(registry);
  unwrap(ctx)->getOrLoadDialect<tile::TileDialect>();
  unwrap(ctx)->getOrLoadDialect<ascend::AscendDialect>();
}

/// Builds `#tile.scope<...>` from its enum value; returns a null attribute
/// for a value outside the enum so Python can raise instead of aborting.
__attribute__((visibility("default"))) MlirAttribute tilecScopeAttrGet(MlirContext ctx,
                                                                        int32_t value) {
  auto scope = tile::symbolizeScope(value);
  if (!scope)
    return MlirAttribute{nullptr};
  return wrap(static_cast<Attribute>(tile::ScopeAttr::get(unwrap(ctx), *scope)));
}

__attribute__((visibility("default"))) MlirAttribute tilecMemSpaceAttrGet(MlirContext ctx,
                                                                           int32_t value) {
  auto space = ascend::symbolizeMemSpace(value);
  if (!space)
    return MlirAttribute{nullptr};
  return wrap(static_cast<Attribute>(ascend::MemSpaceAttr::get(unwrap(ctx), *space)));
}

__attribute__((visibility("default"))) MlirAttribute tilecPipeAttrGet(MlirContext ctx,
                                                                       int32_t value) {
  auto pipe = ascend::symbolizePipe(value);
  if (!pipe)
    return MlirAttribute{nullptr};
  return wrap(static_cast<Attribute>(ascend::PipeAttr::get(unwrap(ctx), *pipe)));
}

__attribute__((visibility("default"))) MlirAttribute tilecCoreTypeAttrGet(MlirContext ctx,
                                                                           int32_t value) {
  auto core = ascend::symbolizeCoreType(value);
  if (!core)
    return MlirAttribute{nullptr};
  return wrap(static_cast<Attribute>(ascend::CoreTypeAttr::get(unwrap(ctx), *core)));
}

__attribute__((visibility("default"))) int32_t tilecScopeAttrValue(MlirAttribute attr) {
  return enumValueOf<tile::ScopeAttr>(attr);
}

__attribute__((visibility("default"))) int32_t tilecReduceKindAttrValue(MlirAttribute attr) {
  return enumValueOf<tile::ReduceKindAttr>(attr);
}

__attribute__((visibility("default"))) int32_t tilecMemSpaceAttrValue(MlirAttribute attr) {
  return enumValueOf<ascend::MemSpaceAttr>(attr);
}

__attribute__((visibility("default"))) int32_t tilecPipeAttrValue(MlirAttribute attr) {
  return enumValueOf<ascend::PipeAttr>(attr);
}

__attribute__((visibility("default"))) int32_t tilecCoreTypeAttrValue(MlirAttribute attr) {
  return enumValueOf<ascend::CoreTypeAttr>(attr);
}

/// Parses a module like mlir-opt does (top-level ops are wrapped in an
/// implicit module) while naming the buffer, so that locations and
/// diagnostics carry the user's file name; the bindings' Module.parse always
/// names it "-". Errors go to the context's diagnostic handlers; returns a
/// null module on failure.
__attribute__((visibility("default"))) MlirModule tilecParseModule(MlirContext ctx,
                                                                    MlirStringRef source,
                                                                    MlirStringRef sourceName) {
  ParserConfig config(unwrap(ctx));
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(unwrap(source), config, unwrap(sourceName));
  if (!module)
    return MlirModule{nullptr};
  return wrap(module.release());
}

__attribute__((visibility("default"))) DialectPluginLibraryInfo mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "tilec", "0.1",
          [](DialectRegistry *registry) { insertTilecDialects(*registry); }};
}

} // extern "C"
