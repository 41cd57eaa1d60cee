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
  let description = [{
    The memory space of a `memref` that holds a tile. `global` is device
    memory (a memref without a memory space means the same); `shared`,
    `fragment` and `local` are the generic on-chip scopes (block-shared
    memory, a register tile distributed over the threads of a block, and
    per-thread memory); `l1`, `l0a`, `l0b`, `l0c` and `ub` are the Ascend
    expert scopes, which name the physical buffers of an Ascend AI core.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tile_ReduceKind : I32EnumAttr<"ReduceKind", "how tile.reduce combines elements", [
    I32EnumAttrCase<"sum", 0>,
    I32EnumAttrCase<"max", 1>,
    I32EnumAttrCase<"min", 2>,
    I32EnumAttrCase<"abssum", 3>,
    I32EnumAttrCase<"absmax", 4>]> {
  let cppNamespace = "::mlir::tile";
  let genSpecializedAttr = 0;
}

def Tile_ReduceKindAttr : EnumAttr<Tile_Dialect, Tile_ReduceKind, "reduce_kind"> {
  let summary = "combining function of tile.reduce";
  let description = [{
    `sum`, `max` and `min` combine the elements themselves; `abssum` and
    `absmax` combine their absolute values. Written `#tile.reduce_kind<sum>`
    as a standalone attribute and as the bare keyword inside `tile.reduce`.
  }];
  let assemblyFormat = "`<` $value `>`";
}

#endif // TILE_ATTRS_TD
