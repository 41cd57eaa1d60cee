#ifndef ASCEND_OPS_TD
#define ASCEND_OPS_TD

include "ascend/AscendDialect.td"
include "ascend/AscendAttrs.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

// Every op that occupies a pipe answers `getPipe()`; the verifier derives the
// pipe of data-movement ops from their memory spaces.
defvar PipeMethod = [{
  /// The pipe this op is issued to.
  ::mlir::ascend::Pipe getPipe();
}];

//===----------------------------------------------------------------------===//
// Core and grid
//===----------------------------------------------------------------------===//

class Ascend_IndexOp<string mnemonic, string name> : Ascend_Op<mnemonic,
    [Pure, DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>]> {
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let extraClassDeclaration = PipeMethod;
  let extraClassDefinition = [{
    ::mlir::ascend::Pipe $cppClass::getPipe() { return ::mlir::ascend::Pipe::s; }
    void $cppClass::getAsmResultNames(::mlir::OpAsmSetValueNameFn setNameFn) {
      setNameFn(getResult(), "}] # name # [{");
    }
  }];
}

def Ascend_BlockIdxOp : Ascend_IndexOp<"block_idx", "block_idx"> {
  let summary = "index of the AI core (block) running the kernel";
  let description = [{
    The index of this block in the launch grid, in `[0, block_num)`: a
    scalar (S pipe) value, AscendC's `GetBlockIdx()`. In a `mix` kernel the
    AIC and its two AIVs share one block index. The tile-to-ascend lowering
    produces it from the block indices of `tile.kernel`.

    Example:

    ```mlir
    func.func @block_idx(%x: memref<?xf32, #ascend.mem<gm>>)
        attributes {ascend.kernel = #ascend.core<aiv>} {
      %c256 = arith.constant 256 : index
      %block = ascend.block_idx : index
      %offset = arith.muli %block, %c256 : index
      return
    }
    ```
  }];
}

def Ascend_BlockNumOp : Ascend_IndexOp<"block_num", "block_num"> {
  let summary = "number of blocks in the launch grid";
  let description = [{
    The number of blocks the kernel was launched with (S pipe), AscendC's
    `GetBlockNum()`. The tile-to-ascend lowering steps grid-stride loops by
    it when the grid of `tile.kernel` is larger than the launch.

    Example:

    ```mlir
    func.func @block_num(%n: index) attributes {ascend.kernel = #ascend.core<aiv>} {
      %block = ascend.block_idx : index
      %blocks = ascend.block_num : index
      scf.for %i = %block to %n step %blocks {
      }
      return
    }
    ```
  }];
}

def Ascend_SubBlockIdxOp : Ascend_IndexOp<"sub_block_idx", "sub_block_idx"> {
  let summary = "index of the vector core within its AI core";
  let description = [{
    0 or 1 on the two AIVs of an AI core, 0 on the AIC (S pipe); AscendC's
    `GetSubBlockIdx()`. The tile-to-ascend lowering splits the work that the
    AIC hands to the vector side of a `mix` kernel between the two AIVs
    with it.

    Example:

    ```mlir
    func.func @sub_block_idx() attributes {ascend.kernel = #ascend.core<mix>} {
      ascend.core aiv {
        %c32 = arith.constant 32 : index
        %sub = ascend.sub_block_idx : index
        %row = arith.muli %sub, %c32 : index
      }
      return
    }
    ```
  }];
}

def Ascend_CoreOp : Ascend_Op<"core",
    [SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "region executed only on one kind of core of a mix kernel";
  let description = [{
    The body runs only on the AIC (`aic`) or only on the two AIVs (`aiv`);
    AscendC's `if ASCEND_IS_AIC { ... }` / `if ASCEND_IS_AIV { ... }`. Legal
    only directly or indirectly inside a function with
    `ascend.kernel = #ascend.core<mix>`, and not nested in another
    `ascend.core`; in an `aic` or `aiv` kernel every op already runs on that
    core kind. The tile-to-ascend lowering produces it when it splits cube
    work from vector work; ops that need a particular core (by pipe or by
    memory space) must sit in a region of that kind.

    Example:

    ```mlir
    func.func @core(%ws: memref<?x?xf32, #ascend.mem<gm>>)
        attributes {ascend.kernel = #ascend.core<mix>} {
      ascend.core aic {
        ascend.cross_core_set_flag mode 2, fix, 0
      }
      ascend.core aiv {
        ascend.cross_core_wait_flag 0
      }
      return
    }
    ```
  }];
  let arguments = (ins Ascend_CoreTypeAttr:$core);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "custom<Keyword>($core) attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Ascend_CopyOp : Ascend_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "row-major (ND) copy of a rectangular region between buffers";
  let description = [{
    Copies the region of extent `sizes` that starts at `src[src_offsets]` to
    the region starting at `dst[dst_offsets]`; both buffers are row-major and
    have the rank of `sizes`, with one offset per dimension. The pipe follows
    from the path:

    | path | pipe |
    |---|---|
    | gm -> ub, gm -> l1 | mte2 |
    | ub -> gm | mte3 |
    | ub -> ub | v |
    | l1 -> ub, ub -> l1 | mte3 (950 profile only: accepted here, rejected by the 910b simulator) |

    Every other pair is illegal: data leaves L0C only through
    `ascend.fixpipe`, reaches L1 in fractal layout through
    `ascend.copy_nd2nz` and L0A/L0B through `ascend.load_l0a`/`load_l0b`.
    Out-of-range parts of the region on the GM side (dynamic shapes, edge
    tiles) read as zero and are not written; on-chip buffers must hold the
    whole region. Element types match. AscendC `DataCopy`/`DataCopyPad`;
    produced from `tile.copy` by the tile-to-ascend lowering.

    With the `atomic_add` unit attribute the copy adds instead of storing:
    each destination element becomes `dst + src`, atomically with respect to
    the other cores, so several blocks may accumulate into the same GM bytes
    without a race (AscendC `SetAtomicAdd<T>()`, `DataCopy`,
    `SetAtomicNone()`). Only a ub -> gm copy may add, with an element type the
    hardware adds atomically: f32, f16, bf16, i32, i16 or i8. Out-of-range
    elements are dropped as for a plain copy. Produced from `tile.atomic_add`.

    Example:

    ```mlir
    func.func @copy(%x: memref<?x?xf32, #ascend.mem<gm>>, %i: index, %j: index)
        attributes {ascend.kernel = #ascend.core<aiv>} {
      %c0 = arith.constant 0 : index
      %buf = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
      ascend.copy %x[%i, %j], %buf[%c0, %c0] sizes [64, 128]
          : memref<?x?xf32, #ascend.mem<gm>>, memref<64x128xf32, #ascend.mem<ub>>
      ascend.copy %buf[%c0, %c0], %x[%i, %j] sizes [64, 128]
          : memref<64x128xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
      ascend.copy %buf[%c0, %c0], %x[%i, %j] sizes [64, 128] atomic_add
          : memref<64x128xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "source buffer", [MemRead]>:$src,
                       Variadic<Index>:$src_offsets,
                       Arg<AnyMemRef, "destination buffer", [MemWrite]>:$dst,
                       Variadic<Index>:$dst_offsets,
                       DenseI64ArrayAttr:$sizes,
                       UnitAttr:$atomic_add);
  let assemblyFormat = [{
    $src `[` $src_offsets `]` `,` $dst `[` $dst_offsets `]` `sizes` $sizes
    (`atomic_add` $atomic_add^)? attr-dict `:` type($src) `,` type($dst)
  }];
  let extraClassDeclaration = PipeMethod;
  let hasVerifier = 1;
}

def Ascend_CopyNd2NzOp : Ascend_Op<"copy_nd2nz", [AttrSizedOperandSegments]> {
  let summary = "GM to L1 copy that converts a row-major matrix to the Nz fractal layout";
  let description = [{
    Reads the R x C region (`sizes [R, C]`) of the 2-D row-major GM matrix
    `src` starting at `src[i, j]` and writes it to the L1 buffer `dst` in Nz
    layout: `dst` is the 4-D memref `(C1, R1, 16, C0)` with C0 = 32 bytes /
    element size, R1 = ceil(R / 16), C1 = ceil(C / C0), and element (r, c) at
    `[c / C0, r / 16, r % 16, c % C0]`. `dst` may be larger (more fractals
    along either outer dimension): it is the tile of a larger matrix whose
    leading R x C corner the region fills. Padding, out-of-range GM reads and
    the rest of `dst` are zero. MTE2 pipe; AscendC `DataCopy(l1, gm, Nd2NzParams{...})`. The
    tile-to-ascend lowering produces it for a `tile.copy` of a cube operand
    from global memory; `ascend.load_l0a`/`load_l0b` consume its output.

    With `dst_row` (Nz only), the region is rows `[dst_row, dst_row + R)` of
    the matrix `dst` holds: only those rows are written (each padded with zero
    to its 32-byte block, as Nd2Nz pads), the rest of `dst` keeps its contents.
    A paged KV cache's rows gathered one DMA each (AscendC: the destination
    tensor at element `dst_row * C0`, `dstNzC0Stride` the tile's rows).

    Two other L1 layouts serve 32-bit operands that the cube needs transposed
    (no L1 -> L0 load transposes 16 x 8 fractals out of Nz):

    - `{transpose}`: `dst` holds the Nz layout of the region's C x R transpose,
      shape `(ceil(R/C0), ceil(C/16), 16, C0)`, element (r, c) at
      `[r / C0, c / 16, c % 16, r % C0]` (AscendC `DataCopy(l1, gm,
      Dn2NzParams{...})`, arch 3510: the GM matrix read column-major);
    - `{zz}`: `dst` holds the region in Zz layout, shape
      `(ceil(R/16), ceil(C/C0), 16, C0)`, element (r, c) at
      `[r / 16, c / C0, r % 16, c % C0]` (one `Nd2NzParams` matrix per 16 rows),
      where two fractals side by side are the 16 x 16 square that
      `LoadDataWithTranspose` transposes (`ascend.load_l0a`/`load_l0b` `{zz}`).

    Example:

    ```mlir
    func.func @copy_nd2nz(%a: memref<?x?xf16, #ascend.mem<gm>>, %i: index, %k: index)
        attributes {ascend.kernel = #ascend.core<aic>} {
      %l1 = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
      ascend.copy_nd2nz %a[%i, %k], %l1 sizes [64, 32]
          : memref<?x?xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "row-major GM matrix", [MemRead]>:$src,
                       Variadic<Index>:$src_offsets,
                       Arg<AnyMemRef, "L1 buffer in Nz layout", [MemWrite]>:$dst,
                       Optional<Index>:$dst_row,
                       DenseI64ArrayAttr:$sizes,
                       UnitAttr:$transpose,
                       UnitAttr:$zz);
  let assemblyFormat = [{
    $src `[` $src_offsets `]` `,` $dst (`[` $dst_row^ `]`)? `sizes` $sizes attr-dict `:`
    type($src) `,` type($dst)
  }];
  let extraClassDeclaration = PipeMethod;
  let hasVerifier = 1;
}

def Ascend_LoadL0AOp : Ascend_Op<"load_l0a"> {
  let summary = "L1 to L0A load of the cube's left operand (Nz to Zz)";
  let description = [{
    Loads the M x K left operand (`sizes [M, K]`) from L1 into L0A: `src` is
    the Nz layout of the M x K matrix, shape `(ceil(K/C0), ceil(M/16), 16, C0)`;
    `dst` is its Zz layout, shape `(ceil(M/16), ceil(K/C0), 16, C0)` with
    element (m, k) at `[m/16, k/C0, m%16, k%C0]`. With `transpose`, `src`
    holds the K x M matrix in Nz layout, shape `(ceil(M/C0), ceil(K/16), 16, C0)`,
    and it is transposed on the way (A = srcᵀ). With `zz` (and `transpose`),
    `src` holds that K x M matrix in Zz layout, shape `(ceil(K/16), ceil(M/C0),
    16, C0)` (`ascend.copy_nd2nz {zz}`), whose 16 x 16 squares of two fractals
    are transposed. MTE1 pipe; AscendC `LoadData(..., LoadData2DParams{...,
    ifTranspose})`, with `zz` `LoadDataWithTranspose`. Produced by the
    tile-to-ascend lowering of `tile.gemm`; feeds `ascend.mmad`.

    Note: the optional `{transpose}` is the op's attribute dictionary and
    sits before `sizes`, as written in the dialect spec.

    Example:

    ```mlir
    func.func @load_l0a() attributes {ascend.kernel = #ascend.core<aic>} {
      %l1 = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
      %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
      ascend.load_l0a %l1, %l0a sizes [64, 32]
          : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
      %l1t = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l1>>
      ascend.load_l0a %l1t, %l0a {transpose} sizes [64, 32]
          : memref<4x2x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "L1 buffer in Nz layout", [MemRead]>:$src,
                       Arg<AnyMemRef, "L0A buffer in Zz layout", [MemWrite]>:$dst,
                       UnitAttr:$transpose,
                       UnitAttr:$zz,
                       DenseI64ArrayAttr:$sizes);
  let assemblyFormat = [{
    $src `,` $dst attr-dict `sizes` $sizes `:` type($src) `,` type($dst)
  }];
  let extraClassDeclaration = PipeMethod;
  let hasVerifier = 1;
}

def Ascend_LoadL0BOp : Ascend_Op<"load_l0b"> {
  let summary = "L1 to L0B load of the cube's right operand (Nz to Zn)";
  let description = [{
    Loads the K x N right operand (`sizes [K, N]`) from L1 into L0B: `src` is
    the Nz layout of the K x N matrix, shape `(ceil(N/C0), ceil(K/16), 16, C0)`;
    `dst` is its Zn layout, shape `(ceil(K/C0), ceil(N/16), 16, C0)` with
    element (k, n) at `[k/C0, n/16, n%16, k%C0]` (the fractals are
    column-major). With `transpose`, `src` holds the N x K matrix in Nz
    layout, shape `(ceil(K/C0), ceil(N/16), 16, C0)` (byte-for-byte the Zn
    layout of B), and B = srcᵀ. With `zz` (and no `transpose`), `src` holds
    the K x N matrix in Zz layout, shape `(ceil(K/16), ceil(N/C0), 16, C0)`
    (`ascend.copy_nd2nz {zz}`), whose 16 x 16 squares of two fractals are
    transposed into Zn. MTE1 pipe; AscendC `LoadData`, with `zz`
    `LoadDataWithTranspose`. Produced by the tile-to-ascend lowering of
    `tile.gemm`; feeds `ascend.mmad`.

    Example:

    ```mlir
    func.func @load_l0b() attributes {ascend.kernel = #ascend.core<aic>} {
      %l1 = memref.alloc() : memref<3x2x16x16xf16, #ascend.mem<l1>>
      %l0b = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l0b>>
      ascend.load_l0b %l1, %l0b sizes [32, 48]
          : memref<3x2x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>
      %l1t = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l1>>
      ascend.load_l0b %l1t, %l0b {transpose} sizes [32, 48]
          : memref<2x3x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "L1 buffer in Nz layout", [MemRead]>:$src,
                       Arg<AnyMemRef, "L0B buffer in Zn layout", [MemWrite]>:$dst,
                       UnitAttr:$transpose,
                       UnitAttr:$zz,
                       DenseI64ArrayAttr:$sizes);
  let assemblyFormat = [{
    $src `,` $dst attr-dict `sizes` $sizes `:` type($src) `,` type($dst)
  }];
  let extraClassDeclaration = PipeMethod;
  let hasVerifier = 1;
}

def Ascend_MmadOp : Ascend_Op<"mmad"> {
  let summary = "cube matrix multiply-accumulate C (+)= A x B";
  let description = [{
    With `sizes [M, N, K]`, computes C(M x N) += A(M x K) * B(K x N), or
    C = A * B with `init` (AscendC's `cmatrixInitVal`). `a` is in L0A (Zz,
    shape `(ceil(M/16), ceil(K/C0), 16, C0)`), `b` in L0B (Zn, shape
    `(ceil(K/C0), ceil(N/16), 16, C0)`), `c` in L0C (Nz with 16 x 16
    fractals, shape `(ceil(N/16), ceil(M/16), 16, 16)`). M pipe. Legal
    element types (a, b) -> c: (f16, f16) -> f32, (bf16, bf16) -> f32,
    (f32, f32) -> f32, (i8, i8) -> i32, (f8E4M3FN, f8E4M3FN) -> f32,
    (f8E5M2, f8E5M2) -> f32; fp8 exists only on the 950 profile (accepted
    here, rejected by the 910b simulator). AscendC `Mmad`; produced from
    `tile.gemm` by the tile-to-ascend lowering; `ascend.fixpipe` drains `c`.

    Example:

    ```mlir
    func.func @mmad() attributes {ascend.kernel = #ascend.core<aic>} {
      %a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
      %b = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l0b>>
      %c = memref.alloc() : memref<3x4x16x16xf32, #ascend.mem<l0c>>
      ascend.mmad %a, %b, %c sizes [64, 48, 32] {init}
          : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>,
            memref<3x4x16x16xf32, #ascend.mem<l0c>>
      ascend.mmad %a, %b, %c sizes [64, 48, 32]
          : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>,
            memref<3x4x16x16xf32, #ascend.mem<l0c>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "left operand in L0A (Zz)", [MemRead]>:$a,
                       Arg<AnyMemRef, "right operand in L0B (Zn)", [MemRead]>:$b,
                       Arg<AnyMemRef, "accumulator in L0C (Nz)", [MemRead, MemWrite]>:$c,
                       DenseI64ArrayAttr:$sizes,
                       UnitAttr:$init);
  let assemblyFormat = [{
    $a `,` $b `,` $c `sizes` $sizes attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let extraClassDeclaration = PipeMethod;
  let hasVerifier = 1;
}

def Ascend_FixpipeOp : Ascend_Op<"fixpipe"> {
  let summary = "drain the L0C accumulator: Nz to ND, cast, optional relu";
  let description = [{
    Reads the M x N accumulator (`sizes [M, N]`) from L0C (Nz with 16 x 16
    fractals, shape `(ceil(N/16), ceil(M/16), 16, 16)`, f32 or i32),
    optionally applies relu, casts to the destination element type
    (f32 -> f16, bf16 or f32; i32 -> i32 or f16) and writes it at
    `dst[i, j]` (logical row and column):

    - `dst` in GM: a row-major 2-D matrix (NZ -> ND); out-of-range writes are
      dropped (edge tiles);
    - `dst` in L1 (950): Nz layout `(C1, R1, 16, C0)` of a matrix at least
      M x N, for the next matmul;
    - `dst` in UB (950): a row-major 2-D buffer that holds M x N, in the UB
      of sub-block 0 (an AIC's UB buffer names bytes of its AIVs' UBs).

    With `dual_dst` (950, a fixpipe of the AIC of a mix kernel into UB) the
    fixpipe writes the UBs of both AIVs of its AI core, split by rows: rows
    [0, M/2) go to sub-block 0's UB and rows [M/2, M) to sub-block 1's, each
    at `dst[i, j]` of the same UB bytes (`dst` names a buffer both AIVs
    place at that offset, and holds M/2 x N). M is even, and nothing else
    happens on the way: no cast and no relu (FixpipeParamsArch3510's
    `dualDstCtl` split in M). It hands a tile from the cube to the vector
    cores without a trip through GM.

    FIX pipe; AscendC `Fixpipe(..., FixpipeParamsV220{...})`, into UB
    `FixpipeParamsArch3510` (`dualDstCtl`, `subBlockId`). The
    tile-to-ascend lowering produces it for the copy out of a `tile.gemm`
    accumulator.

    Example:

    ```mlir
    func.func @fixpipe(%out: memref<?x?xf16, #ascend.mem<gm>>, %i: index, %j: index)
        attributes {ascend.kernel = #ascend.core<aic>} {
      %acc = memref.alloc() : memref<3x4x16x16xf32, #ascend.mem<l0c>>
      ascend.fixpipe %acc, %out[%i, %j] sizes [64, 48] {relu}
          : memref<3x4x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf16, #ascend.mem<gm>>
      ascend.fixpipe %acc, %out[%i, %j] sizes [64, 48]
          : memref<3x4x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf16, #ascend.mem<gm>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "accumulator in L0C (Nz)", [MemRead]>:$src,
                       Arg<AnyMemRef, "destination buffer", [MemWrite]>:$dst,
                       Variadic<Index>:$dst_offsets,
                       DenseI64ArrayAttr:$sizes,
                       UnitAttr:$relu,
                       UnitAttr:$dual_dst);
  let assemblyFormat = [{
    $src `,` $dst `[` $dst_offsets `]` `sizes` $sizes attr-dict `:` type($src) `,` type($dst)
  }];
  let extraClassDeclaration = PipeMethod;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Vector (V pipe). Operands are whole UB memrefs (use memref.subview for
// parts); the element count of an op is the number of elements of dst.
// When the memref operands share one type it is written once.
//===----------------------------------------------------------------------===//

class Ascend_VectorOp<string mnemonic, list<Trait> traits = []>
    : Ascend_Op<mnemonic, traits> {
  let extraClassDeclaration = PipeMethod;
  let extraClassDefinition = [{
    ::mlir::ascend::Pipe $cppClass::getPipe() { return ::mlir::ascend::Pipe::v; }
  }];
  let hasVerifier = 1;
}

def Ascend_VBinOp : Ascend_VectorOp<"vbin"> {
  let summary = "element-wise binary vector op: add, sub, mul, div, max, min";
  let description = [{
    `dst[i] = a[i] OP b[i]` for every element; `dst`, `a` and `b` are UB
    buffers of one shape and element type (they may alias). V pipe;
    AscendC `Add/Sub/Mul/Div/Max/Min(dst, a, b, count)`. Produced from
    element-wise `tile` ops by the tile-to-ascend lowering.

    Example:

    ```mlir
    func.func @vbin() attributes {ascend.kernel = #ascend.core<aiv>} {
      %x = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
      %y = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
      ascend.vbin add %x, %x, %y : memref<256xf32, #ascend.mem<ub>>
      %z = memref.alloc() : memref<2x256xf32, #ascend.mem<ub>>
      %z1 = memref.subview %z[1, 0] [1, 256] [1, 1]
          : memref<2x256xf32, #ascend.mem<ub>> to memref<256xf32, strided<[1], offset: 256>, #ascend.mem<ub>>
      ascend.vbin max %z1, %x, %y
          : memref<256xf32, strided<[1], offset: 256>, #ascend.mem<ub>>,
            memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<ub>>
      return
    }
    ```
  }];
  let arguments = (ins Ascend_VBinKindAttr:$kind,
                       Arg<AnyMemRef, "result buffer", [MemWrite]>:$dst,
                       Arg<AnyMemRef, "left operand", [MemRead]>:$a,
                       Arg<AnyMemRef, "right operand", [MemRead]>:$b);
  let assemblyFormat = [{
    custom<Keyword>($kind) $dst `,` $a `,` $b attr-dict `:`
    custom<SharedTypes>(type($dst), type($a), type($b))
  }];
}

def Ascend_VBinsOp : Ascend_VectorOp<"vbins"> {
  let summary = "element-wise vector op with a scalar: adds, muls, maxs, mins";
  let description = [{
    `dst[i] = src[i] OP scalar`; `scalar` has the element type of the
    buffers. V pipe; AscendC `Adds/Muls/Maxs/Mins(dst, src, scalar, count)`.

    Example:

    ```mlir
    func.func @vbins(%scale: f32) attributes {ascend.kernel = #ascend.core<aiv>} {
      %x = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
      ascend.vbins muls %x, %x, %scale : memref<64x128xf32, #ascend.mem<ub>>, f32
      %y = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
      ascend.vbins maxs %y, %x, %scale
          : memref<64x128xf32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>, f32
      return
    }
    ```
  }];
  let arguments = (ins Ascend_VBinsKindAttr:$kind,
                       Arg<AnyMemRef, "result buffer", [MemWrite]>:$dst,
                       Arg<AnyMemRef, "vector operand", [MemRead]>:$src,
                       AnyTypeOf<[AnyInteger, AnyFloat]>:$scalar);
  let assemblyFormat = [{
    custom<Keyword>($kind) $dst `,` $src `,` $scalar attr-dict `:`
    custom<SharedTypesAndScalar>(type($dst), type($src), type($scalar))
  }];
}

def Ascend_VUnaryOp : Ascend_VectorOp<"vunary"> {
  let summary = "element-wise unary vector op: exp, ln, abs, sqrt, rsqrt, relu, rec, neg";
  let description = [{
    `dst[i] = OP(src[i])` with `rec` = 1/x, `rsqrt` = 1/sqrt(x) and
    `relu` = max(x, 0). `exp`, `ln`, `sqrt`, `rsqrt` and `rec` need a float
    element type. V pipe; AscendC `Exp/Ln/Abs/Sqrt/Rsqrt/Relu/Reciprocal`
    (`neg` is `Muls` by -1).

    Example:

    ```mlir
    func.func @vunary() attributes {ascend.kernel = #ascend.core<aiv>} {
      %x = memref.alloc() : memref<128xf16, #ascend.mem<ub>>
      %y = memref.alloc() : memref<128xf16, #ascend.mem<ub>>
      ascend.vunary exp %y, %x : memref<128xf16, #ascend.mem<ub>>
      ascend.vunary relu %y, %y : memref<128xf16, #ascend.mem<ub>>
      return
    }
    ```
  }];
  let arguments = (ins Ascend_VUnaryKindAttr:$kind,
                       Arg<AnyMemRef, "result buffer", [MemWrite]>:$dst,
                       Arg<AnyMemRef, "operand", [MemRead]>:$src);
  let assemblyFormat = [{
    custom<Keyword>($kind) $dst `,` $src attr-dict `:` custom<SharedTypes>(type($dst), type($src))
  }];
}

def Ascend_VDupOp : Ascend_VectorOp<"vdup"> {
  let summary = "fill a UB buffer with a scalar (Duplicate)";
  let description = [{
    `dst[i] = scalar`; `scalar` has the element type of `dst`. V pipe;
    AscendC `Duplicate(dst, scalar, count)`. Produced from `tile.fill` on UB.

    Example:

    ```mlir
    func.func @vdup() attributes {ascend.kernel = #ascend.core<aiv>} {
      %zero = arith.constant 0.0 : f32
      %acc = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
      ascend.vdup %acc, %zero : memref<64xf32, #ascend.mem<ub>>, f32
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "result buffer", [MemWrite]>:$dst,
                       AnyTypeOf<[AnyInteger, AnyFloat]>:$scalar);
  let assemblyFormat = "$dst `,` $scalar attr-dict `:` type($dst) `,` type($scalar)";
}

def Ascend_VCastOp : Ascend_VectorOp<"vcast"> {
  let summary = "element-wise conversion between element types";
  let description = [{
    `dst[i] = convert(src[i])` with the rounding mode `round` (default
    `none`, which is not printed). `dst` and `src` have one shape. V pipe;
    AscendC `Cast(dst, src, RoundMode::CAST_*, count)`. Produced by the
    tile-to-ascend lowering for conversions in element-wise `tile` code
    (for example an f32 accumulator stored as f16).

    Example:

    ```mlir
    func.func @vcast() attributes {ascend.kernel = #ascend.core<aiv>} {
      %x = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
      %h = memref.alloc() : memref<128xf16, #ascend.mem<ub>>
      ascend.vcast %h, %x round rint : memref<128xf16, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
      ascend.vcast %x, %h : memref<128xf32, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "result buffer", [MemWrite]>:$dst,
                       Arg<AnyMemRef, "operand", [MemRead]>:$src,
                       DefaultValuedAttr<Ascend_RoundModeAttr,
                                         "::mlir::ascend::RoundMode::none">:$round);
  let assemblyFormat = [{
    $dst `,` $src `` custom<RoundMode>($round) attr-dict `:` type($dst) `,` type($src)
  }];
}

def Ascend_VReduceOp : Ascend_VectorOp<"vreduce"> {
  let summary = "reduce the last dimension: sum, max, min";
  let description = [{
    Reduces `src` along its last dimension: src (R, C) -> dst (R) or (R, 1);
    src (C) -> dst (1); in general `dst` has the shape of `src` without its
    last dimension, or with it set to 1. Element types match. V pipe;
    AscendC `WholeReduceSum/Max/Min` per row (`ReduceSum/Max/Min` for 1-D;
    the emitter allocates the work buffer). Produced from `tile.reduce`.

    Example:

    ```mlir
    func.func @vreduce() attributes {ascend.kernel = #ascend.core<aiv>} {
      %x = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
      %rowmax = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
      ascend.vreduce max %rowmax, %x : memref<64xf32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
      %v = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
      %sum = memref.alloc() : memref<1xf32, #ascend.mem<ub>>
      ascend.vreduce sum %sum, %v : memref<1xf32, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
      return
    }
    ```
  }];
  let arguments = (ins Ascend_ReduceKindAttr:$kind,
                       Arg<AnyMemRef, "result buffer", [MemWrite]>:$dst,
                       Arg<AnyMemRef, "operand", [MemRead]>:$src);
  let assemblyFormat = [{
    custom<Keyword>($kind) $dst `,` $src attr-dict `:` type($dst) `,` type($src)
  }];
}

def Ascend_VBrcbOp : Ascend_VectorOp<"vbrcb"> {
  let summary = "broadcast each element along the last dimension";
  let description = [{
    `dst[r, c] = src[r]`: `src` has the shape of `dst` without its last
    dimension, or with it set to 1 (a 1-D `dst` takes a 1-element `src`).
    Element types match. V pipe; AscendC `Brcb`. The inverse of
    `ascend.vreduce`; used to apply a per-row statistic (softmax, norms).

    Example:

    ```mlir
    func.func @vbrcb() attributes {ascend.kernel = #ascend.core<aiv>} {
      %rowmax = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
      %wide = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
      ascend.vbrcb %wide, %rowmax : memref<64x128xf32, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<ub>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "result buffer", [MemWrite]>:$dst,
                       Arg<AnyMemRef, "operand", [MemRead]>:$src);
  let assemblyFormat = "$dst `,` $src attr-dict `:` type($dst) `,` type($src)";
}

def Ascend_VCmpOp : Ascend_VectorOp<"vcmp"> {
  let summary = "element-wise comparison into a mask";
  let description = [{
    `mask[i] = a[i] CMP b[i]` (1 or 0). `mask` is a UB buffer of the shape
    of `a` with element type i1 or i8, one element per lane (not a packed
    bit mask); `a` and `b` share shape and element type. V pipe; AscendC
    `Compare`. Produced with `ascend.vsel` from `arith.cmpf`/`arith.select`
    in element-wise `tile` code (masking, causal attention).

    Example:

    ```mlir
    func.func @vcmp() attributes {ascend.kernel = #ascend.core<aiv>} {
      %a = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
      %b = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
      %mask = memref.alloc() : memref<128xi1, #ascend.mem<ub>>
      ascend.vcmp lt %mask, %a, %b : memref<128xi1, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
      return
    }
    ```
  }];
  let arguments = (ins Ascend_CmpKindAttr:$kind,
                       Arg<AnyMemRef, "result mask", [MemWrite]>:$mask,
                       Arg<AnyMemRef, "left operand", [MemRead]>:$a,
                       Arg<AnyMemRef, "right operand", [MemRead]>:$b);
  let assemblyFormat = [{
    custom<Keyword>($kind) $mask `,` $a `,` $b attr-dict `:`
    type($mask) `,` custom<SharedTypes>(type($a), type($b))
  }];
}

def Ascend_VSelOp : Ascend_VectorOp<"vsel"> {
  let summary = "element-wise select between two buffers by a mask";
  let description = [{
    `dst[i] = mask[i] ? a[i] : b[i]`. `mask` (i1 or i8, from
    `ascend.vcmp`) has the shape of the other operands; `dst`, `a` and `b`
    share shape and element type. Types are written `dst, mask` when `a` and
    `b` have the type of `dst`, else `dst, mask, a, b`. V pipe; AscendC
    `Select`. Consumes the mask of `ascend.vcmp`.

    Example:

    ```mlir
    func.func @vsel() attributes {ascend.kernel = #ascend.core<aiv>} {
      %a = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
      %b = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
      %mask = memref.alloc() : memref<128xi1, #ascend.mem<ub>>
      ascend.vcmp gt %mask, %a, %b : memref<128xi1, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
      ascend.vsel %a, %mask, %a, %b : memref<128xf32, #ascend.mem<ub>>, memref<128xi1, #ascend.mem<ub>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "result buffer", [MemWrite]>:$dst,
                       Arg<AnyMemRef, "selection mask", [MemRead]>:$mask,
                       Arg<AnyMemRef, "taken where the mask is set", [MemRead]>:$a,
                       Arg<AnyMemRef, "taken where the mask is clear", [MemRead]>:$b);
  let assemblyFormat = [{
    $dst `,` $mask `,` $a `,` $b attr-dict `:`
    custom<SelectTypes>(type($dst), type($mask), type($a), type($b))
  }];
}

//===----------------------------------------------------------------------===//
// Synchronization
//===----------------------------------------------------------------------===//

class Ascend_FlagOp<string mnemonic> : Ascend_Op<mnemonic> {
  let arguments = (ins Ascend_PipeAttr:$src, Ascend_PipeAttr:$dst, I32Attr:$event);
  let assemblyFormat = "custom<Keyword>($src) `->` custom<Keyword>($dst) `,` $event attr-dict";
  let extraClassDeclaration = PipeMethod;
  let hasVerifier = 1;
}

def Ascend_SetFlagOp : Ascend_FlagOp<"set_flag"> {
  let summary = "signal from one pipe to another (SetFlag)";
  let description = [{
    Runs on the `src` pipe once everything issued to that pipe before it has
    finished, and sets the 1-bit flag of (src, dst, event). Event ids are
    0..7 per (src, dst) pair; `src` and `dst` differ (order one pipe with
    `ascend.pipe_barrier`), are not `all`, and exist on one core. Setting a
    flag that is already set is undefined behaviour (the simulator reports
    it). AscendC `SetFlag<HardEvent::SRC_DST>(event)`. Inserted by the
    tile-to-ascend lowering from read/write hazards between pipes.

    Example:

    ```mlir
    func.func @set_flag() attributes {ascend.kernel = #ascend.core<aiv>} {
      ascend.set_flag mte2 -> v, 0
      ascend.wait_flag mte2 -> v, 0
      return
    }
    ```
  }];
  let extraClassDefinition = [{
    ::mlir::ascend::Pipe $cppClass::getPipe() { return getSrc(); }
  }];
}

def Ascend_WaitFlagOp : Ascend_FlagOp<"wait_flag"> {
  let summary = "wait for a signal from another pipe (WaitFlag)";
  let description = [{
    Stalls the `dst` pipe until the flag of (src, dst, event) is set, then
    clears it; ops issued to `dst` after the wait start only then. A wait
    whose flag is never set is a deadlock (the simulator reports it). Same
    operand rules as `ascend.set_flag`. AscendC
    `WaitFlag<HardEvent::SRC_DST>(event)`.

    Example:

    ```mlir
    func.func @wait_flag() attributes {ascend.kernel = #ascend.core<aic>} {
      ascend.set_flag m -> fix, 3
      ascend.wait_flag m -> fix, 3
      return
    }
    ```
  }];
  let extraClassDefinition = [{
    ::mlir::ascend::Pipe $cppClass::getPipe() { return getDst(); }
  }];
}

def Ascend_PipeBarrierOp : Ascend_Op<"pipe_barrier"> {
  let summary = "wait until all earlier work on one pipe (or all pipes) has finished";
  let description = [{
    Later ops on `pipe` start only after every earlier op on that pipe has
    finished; with `all`, later ops on every pipe wait for every earlier op
    (correct but slow). AscendC `PipeBarrier<PIPE_*>()`. The tile-to-ascend
    lowering uses it between ops of one pipe that the pipe does not order by
    itself (a vector op reading what the previous one wrote), and `tile`
    barriers lower to `all`.

    Example:

    ```mlir
    func.func @pipe_barrier() attributes {ascend.kernel = #ascend.core<aiv>} {
      ascend.pipe_barrier v
      ascend.pipe_barrier all
      return
    }
    ```
  }];
  let arguments = (ins Ascend_PipeAttr:$pipe);
  let assemblyFormat = "custom<Keyword>($pipe) attr-dict";
  let hasVerifier = 1;
}

def Ascend_CrossCoreSetFlagOp : Ascend_Op<"cross_core_set_flag"> {
  let summary = "increment a cross-core semaphore (CrossCoreSetFlag)";
  let description = [{
    Issued on `pipe` after everything before it on that pipe has finished,
    increments the counting semaphore `flag` (0..10) of the cores selected
    by `mode`: 0 every core of this kind in the grid, 1 the two AIVs of this
    AI core, 2 AIC -> both AIVs or AIV -> AIC of this AI core, 4 AIC <-> one
    AIV (950). At most 15 sets may be outstanding. `pipe` is a single pipe
    (not `all`). AscendC `CrossCoreSetFlag<mode, PIPE_*>(flag)`. The
    tile-to-ascend lowering puts it after the fixpipe that writes the GM
    workspace the vector side reads.

    Example:

    ```mlir
    func.func @cross_core_set_flag() attributes {ascend.kernel = #ascend.core<mix>} {
      ascend.core aic {
        ascend.cross_core_set_flag mode 2, fix, 3
      }
      ascend.core aiv {
        ascend.cross_core_wait_flag 3
      }
      return
    }
    ```
  }];
  let arguments = (ins I32Attr:$mode, Ascend_PipeAttr:$pipe, I32Attr:$flag);
  let assemblyFormat = "`mode` $mode `,` custom<Keyword>($pipe) `,` $flag attr-dict";
  let hasVerifier = 1;
}

def Ascend_CrossCoreWaitFlagOp : Ascend_Op<"cross_core_wait_flag"> {
  let summary = "wait on a cross-core semaphore (CrossCoreWaitFlag)";
  let description = [{
    Stalls `pipe` until the semaphore `flag` (0..10) of this core is
    positive, then decrements it. Without `, pipe` the wait is on the scalar
    pipe `s`, which stalls the issue of everything after it. AscendC
    `CrossCoreWaitFlag(flag)`. The tile-to-ascend lowering puts it before the
    first read of a GM workspace that the other core kind writes.

    Example:

    ```mlir
    func.func @cross_core_wait_flag() attributes {ascend.kernel = #ascend.core<mix>} {
      ascend.core aic {
        ascend.cross_core_set_flag mode 2, fix, 0
        ascend.cross_core_set_flag mode 2, fix, 1
      }
      ascend.core aiv {
        ascend.cross_core_wait_flag 0
        ascend.cross_core_wait_flag 1, mte2
      }
      return
    }
    ```
  }];
  let arguments = (ins I32Attr:$flag,
                       DefaultValuedAttr<Ascend_PipeAttr, "::mlir::ascend::Pipe::s">:$pipe);
  let assemblyFormat = "$flag `` custom<OptionalPipe>($pipe) attr-dict";
  let hasVerifier = 1;
}

def Ascend_SyncAllOp : Ascend_Op<"sync_all"> {
  let summary = "grid-wide barrier across all cores";
  let description = [{
    Every core of the launch waits here until all have arrived and all
    their earlier work has finished (AscendC `SyncAll()`). The tile-to-ascend
    lowering uses it between phases that exchange data through GM across
    blocks (for example a split-K reduction).

    Example:

    ```mlir
    func.func @sync_all() attributes {ascend.kernel = #ascend.core<aiv>} {
      ascend.sync_all
      return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
  let extraClassDeclaration = PipeMethod;
  let extraClassDefinition = [{
    ::mlir::ascend::Pipe $cppClass::getPipe() { return ::mlir::ascend::Pipe::all; }
  }];
}

#endif // ASCEND_OPS_TD
