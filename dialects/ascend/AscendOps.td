#ifndef ASCEND_OPS_TD
#define ASCEND_OPS_TD

include "ascend/AscendDialect.td"
include "ascend/AscendAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Ascend_SyncAllOp : Ascend_Op<"sync_all"> {
  let summary = "grid-wide barrier across all cores";
  let description = [{
    Example:

    ```mlir
    ascend.sync_all
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // ASCEND_OPS_TD
