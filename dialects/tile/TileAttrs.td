#ifndef TILE_ATTRS_TD
#define TILE_ATTRS_TD

include "tile/TileDialect.td"

def Tile_Scope : I32EnumAttr<"Scope", "where a tile buffer lives", [
    I32EnumAttrCase<"global", 0>,
    I32EnumAttrCase<"shared", 1>,
    I32EnumAttrCase<"fragment", 2>,
    I32EnumAttrCase<"local", 3>,
    I32EnumAttrCase<"l1", 4>,
    I32EnumAttrCase<"l0a", 5>,
    I32EnumAttrCase<"l0b", 6>,
    I32EnumAttrCase<"l0c", 7>,
    I32EnumAttrCase<"ub", 8>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

def Tile_ScopeAttr : EnumAttr<Tile_Dialect, Tile_Scope, "scope"> {
  let summary = "memory scope of a tile buffer, used as a memref memory space";
  let assemblyFormat = "`<` $value `>`";
}

#endif // TILE_ATTRS_TD
