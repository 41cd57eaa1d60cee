#ifndef ASCEND_DIALECT_TD
#define ASCEND_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Ascend_Dialect : Dialect {
  let name = "ascend";
  let cppNamespace = "::mlir::ascend";
  let summary = "An Ascend-like NPU: cube and vector cores, on-chip buffers, pipes and flags";
  let description = [{
    The `ascend` dialect models the Da Vinci architecture described in
    shared/ASCEND.md at the level of AscendC: buffers are `memref`s in a
    `#ascend.mem<...>` memory space (gm, l1, l0a, l0b, l0c, ub, bt, fb), every
    data-movement or compute op runs on the pipe implied by its path, and
    ordering between pipes is explicit through `set_flag`/`wait_flag`.
    It is produced from `tile` and consumed by the simulator and the AscendC
    emitter.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

class Ascend_Op<string mnemonic, list<Trait> traits = []> :
    Op<Ascend_Dialect, mnemonic, traits>;

#endif // ASCEND_DIALECT_TD
