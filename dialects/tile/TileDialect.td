#ifndef TILE_DIALECT_TD
#define TILE_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::tile";
  let summary = "Target-independent tile-level kernel IR";
  let description = [{
    The `tile` dialect expresses kernels at the level of tiles, in the
    programming model of TileLang: a kernel launches a grid of blocks, each
    block allocates tiles in fast memory, copies tiles in and out of global
    memory, multiplies and reduces them and runs element-wise code over them.
    Buffers are builtin `memref`s whose memory space is a `#tile.scope<...>`
    attribute; a memref without a memory space lives in global memory.
    It is lowered to the `cpu`, `cuda` and `ascend` targets.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []> :
    Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TD
