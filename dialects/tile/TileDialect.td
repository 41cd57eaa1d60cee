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
    attribute; a memref without a memory space lives in global memory (the
    arguments a framework passes in). On-chip tiles have static shapes. The
    on-chip scopes form two families that one op never mixes: the generic
    scopes `shared`, `fragment` and `local`, which every target maps, and
    the Ascend expert scopes `l1`, `l0a`, `l0b`, `l0c` and `ub`, which name
    the buffers of an Ascend AI core.

    The ops are the structure (`tile.kernel`, `tile.parallel`,
    `tile.pipelined`, `tile.yield`, `tile.barrier`), the buffers and data
    movement (`tile.alloc`, `tile.copy`, `tile.atomic_add`) and whole-tile
    compute (`tile.fill`, `tile.clear`, `tile.gemm`, `tile.reduce`,
    `tile.cumsum`); scalar code inside regions uses upstream `arith`,
    `math`, `memref` and `scf`. The dialect is lowered to the `cpu` target
    (loops and vectors through LLVM), the `cuda` target (`gpu`, `nvgpu`,
    `nvvm`) and the `ascend` target dialect.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

class Tile_Op<string mnemonic, list<Trait> traits = []> :
    Op<Tile_Dialect, mnemonic, traits>;

#endif // TILE_DIALECT_TD
