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
    It is produced from `tile` by the tile-to-ascend lowering and consumed by
    the simulator and the AscendC emitter.

    Kernels are `func.func`s carrying `ascend.kernel = #ascend.core<aic|aiv|mix>`.
    Their memref arguments live in `#ascend.mem<gm>` (dynamic dims allowed);
    scalar arguments are allowed. On-chip buffers are `memref.alloc`s with
    static shapes in their memory space. In a `mix` kernel, code that needs a
    particular core sits in an `ascend.core aic { ... }` or
    `ascend.core aiv { ... }` region. Inside a kernel the verifier checks
    that every op's pipes and buffers exist on the core that runs it: the
    AIC owns L1/L0A/L0B/L0C/BT/FB and the M, MTE1 and FIX pipes, the AIV owns
    UB and the V pipe; GM and the S, MTE2, MTE3 pipes exist on both. Buffers
    (`memref.alloc`) follow the same rule, except that a mix kernel may
    declare buffers of either core outside its `ascend.core` regions. The
    950-only L1 <-> UB copies are not tied to one core. Functions without
    `ascend.kernel` (helpers, tests) are not checked.

    Layouts. GM and UB buffers are row-major (ND), any rank. Cube-path
    buffers hold fractal layouts as 4-D memrefs whose shape is the blocked
    shape, so that the bytes of the memref are the on-chip order. With
    C0 = 32 bytes / element size (16 for f16/bf16, 8 for f32/i32, 32 for
    i8/f8) every fractal is 16 x C0 elements:

    | buffer | logical | layout | shape | element (r, c) at |
    |---|---|---|---|---|
    | L1 | R x C | Nz | (C1, R1, 16, C0) | [c/C0, r/16, r%16, c%C0] |
    | L0A | M x K | Zz | (M1, K1, 16, C0) | [m/16, k/C0, m%16, k%C0] |
    | L0B | K x N | Zn | (K1, N1, 16, C0) | [k/C0, n/16, n%16, k%C0] |
    | L0C | M x N | Nz, 16 x 16 | (N1, M1, 16, 16) | [n/16, m/16, m%16, n%16] |

    where X1 = ceil(X / 16) for a dimension split by 16 and ceil(X / C0) for
    one split by C0; padding is zero.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// The function attribute that marks a kernel and gives its core kind.
    static constexpr ::llvm::StringLiteral kKernelAttrName = "ascend.kernel";
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

class Ascend_Op<string mnemonic, list<Trait> traits = []> :
    Op<Ascend_Dialect, mnemonic, traits>;

#endif // ASCEND_DIALECT_TD
