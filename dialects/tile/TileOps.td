#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tile/TileDialect.td"
include "tile/TileAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_FillOp : Tile_Op<"fill"> {
  let summary = "set every element of a tile to a scalar";
  let description = [{
    Example:

    ```mlir
    %c0 = arith.constant 0.0 : f32
    tile.fill %acc, %c0 : memref<64x64xf32, #tile.scope<fragment>>, f32
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemWrite]>:$dst, AnyType:$value);
  let assemblyFormat = "$dst `,` $value attr-dict `:` type($dst) `,` type($value)";
  let hasVerifier = 1;
}

#endif // TILE_OPS_TD
