#ifndef TILE_OPS_TD
#define TILE_OPS_TD

include "tile/TileDialect.td"
include "tile/TileAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def Tile_Scalar : AnyTypeOf<[AnySignlessIntegerOrIndex, AnyFloat]>;
def Tile_Buffer : MemRefOf<[AnySignlessIntegerOrIndex, AnyFloat]>;
def Tile_StaticBuffer : StaticShapeMemRefOf<[AnySignlessIntegerOrIndex, AnyFloat]>;
def Tile_Number : AnyTypeOf<[AnySignlessInteger, AnyFloat]>;
def Tile_NumericBuffer : MemRefOf<[AnySignlessInteger, AnyFloat]>;
def Tile_Addend : AnyTypeOf<[Tile_NumericBuffer, Tile_Number],
                            "signless integer or float scalar or memref">;
def Tile_Matrix : MemRefRankOf<[AnySignlessInteger, AnyFloat], [2]>;

//===----------------------------------------------------------------------===//
// Launch and structure
//===----------------------------------------------------------------------===//

def Tile_KernelOp : Tile_Op<"kernel", [
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "launch a 1-D to 3-D grid of blocks";
  let description = [{
    Runs its body once for every block of a grid of `grid_sizes` blocks
    (one to three `index` sizes, which may be dynamic). The body's block
    arguments are the block indices, one per grid dimension, in the order of
    the sizes. `threads` is the number of threads that cooperate inside a
    block; ops in the body are written for the block as a whole (a
    `tile.copy` or `tile.gemm` is executed by all its threads together),
    so `threads` only tells a target how to distribute them. Blocks run in
    no particular order and may run concurrently.

    Tile ops (`tile.alloc`, `tile.copy`, `tile.gemm`, ...) are meant to
    appear inside a kernel; the lowering passes check that. Kernels do not
    nest.

    The `cpu` target lowers a kernel to an `scf.parallel` over the block
    indices (spread over the cores by `async-parallel-for`), the `cuda`
    target to a `gpu.launch_func` with `threads` threads per block, and the
    `ascend` target to a kernel whose block index is `ascend.block_idx`.

    Example:

    ```mlir
    func.func @kernel(%A: memref<?x?xf16>, %gm: index, %gn: index) {
      %c0 = arith.constant 0 : index
      %c64 = arith.constant 64 : index
      tile.kernel blocks(%bx, %by) in (%gm, %gn) threads = 128 {
        %i = arith.muli %bx, %c64 : index
        %j = arith.muli %by, %c64 : index
        %t = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
        tile.copy %A[%i, %j], %t[%c0, %c0]
            : memref<?x?xf16>, memref<64x64xf16, #tile.scope<shared>>
      }
      return
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$grid_sizes,
                       ConfinedAttr<I64Attr, [IntPositive]>:$threads);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The block indices, one per grid dimension.
    ::mlir::Block::BlockArgListType getBlockIndices() {
      return getBody()->getArguments();
    }
  }];
}

def Tile_ParallelOp : Tile_Op<"parallel", [
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "element-wise region over a tile's index space";
  let description = [{
    Runs its body for every point of the static index space `extents`
    (the counterpart of TileLang's `T.Parallel`). The block arguments are
    the `index` coordinates, one per extent. The body is scalar code:
    `arith`, `math`, `memref.load`/`memref.store` on tiles, `scf.if`.
    Iterations are independent and may run in any order or all at once, so
    an iteration must not read what another one writes.

    It is the element-wise layer between the tile ops and the targets: the
    `cpu` target turns it into a vectorized loop nest, the `cuda` target
    distributes the index space over the threads of the block (following
    the layout of the fragments it touches), and the `ascend` target matches
    it to vector instructions (`ascend.vbin`, `ascend.vunary`, ...) over UB
    tiles.

    Example:

    ```mlir
    func.func @scale(%t: memref<64x128xf32, #tile.scope<fragment>>, %s: f32) {
      tile.parallel (%i, %j) in (64, 128) {
        %x = memref.load %t[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
        %y = arith.mulf %x, %s : f32
        memref.store %y, %t[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
      }
      return
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<DenseI64ArrayAttr,
                                    [DenseArrayStrictlyPositive<DenseI64ArrayAttr>]>:$extents);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The coordinates of the current point, one per extent.
    ::mlir::Block::BlockArgListType getIndices() {
      return getBody()->getArguments();
    }
  }];
}

def Tile_PipelinedOp : Tile_Op<"pipelined", [
    RecursiveMemoryEffects, SingleBlockImplicitTerminator<"YieldOp">]> {
  let summary = "serial loop that a target may software-pipeline";
  let description = [{
    A loop from `lb` (inclusive) to `ub` (exclusive) by `step`, with the
    induction variable as the body's only block argument (the counterpart
    of TileLang's `T.Pipelined`). Its meaning is that of a serial loop: a
    program must give the same result when it runs one iteration after the
    other. `num_stages` (at least 1) asks a target to overlap the copies of
    up to `num_stages - 1` later iterations with the compute of the current
    one. Plain serial loops use `scf.for`.

    The `cuda` target lowers it to a multi-stage software pipeline
    (`nvgpu.device_async_copy` or TMA into `num_stages` shared buffers, with
    the matching waits); the `ascend` target multi-buffers the tiles it
    copies (ping-pong) and orders the pipes with `ascend.set_flag` /
    `ascend.wait_flag`; the `cpu` target emits an `scf.for`.

    Example:

    ```mlir
    func.func @loop(%n: index, %acc: memref<64x64xf32, #tile.scope<fragment>>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      tile.pipelined %k = %c0 to %n step %c1 num_stages = 3 {
        tile.clear %acc : memref<64x64xf32, #tile.scope<fragment>>
      }
      return
    }
    ```
  }];
  let arguments = (ins Index:$lb, Index:$ub, Index:$step,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_stages);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The induction variable.
    ::mlir::BlockArgument getInductionVar() { return getBody()->getArgument(0); }
  }];
}

def Tile_YieldOp : Tile_Op<"yield", [
    Pure, Terminator, HasParent<"KernelOp, ParallelOp, PipelinedOp">]> {
  let summary = "terminator of the tile region ops";
  let description = [{
    Ends the body of `tile.kernel`, `tile.parallel` and `tile.pipelined`.
    It carries no values and is implicit in their custom syntax.

    Example:

    ```mlir
    func.func @yield() {
      tile.parallel (%i) in (4) {
        tile.yield
      }
      return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "synchronize the threads of a block";
  let description = [{
    Waits until every thread of the block has reached the barrier, and makes
    the writes to `shared` tiles made before it visible to the whole block
    after it (`__syncthreads`). Lowered to `gpu.barrier` on `cuda`; a no-op
    on `cpu`, where one thread runs a block; on `ascend` the pipes are
    ordered by flags instead, so it becomes an `ascend.pipe_barrier all`
    where still needed.

    Example:

    ```mlir
    func.func @barrier() {
      tile.barrier
      return
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// Buffers and data movement
//===----------------------------------------------------------------------===//

def Tile_AllocOp : Tile_Op<"alloc"> {
  let summary = "allocate a tile in an on-chip scope";
  let description = [{
    Allocates a tile with the result's static shape and element type in the
    scope given by its `#tile.scope` memory space, which must not be
    `global`. No extent may be zero, here or in the on-chip operands of
    any tile op: a tile without elements is a size computed wrong. The tile
    lives until the end of the enclosing `tile.kernel`; its contents are
    undefined until written.

    `cpu` places tiles on the stack (`memref.alloca`); `cuda` places
    `shared` tiles in workgroup memory (`#gpu.address_space<workgroup>`)
    and `fragment`/`local` tiles in registers; `ascend` maps each tile to a
    physical buffer (`l1`, `l0a`, `l0b`, `l0c` or `ub`, inferred for the
    generic scopes) and plans its offset statically.

    Example:

    ```mlir
    func.func @alloc() {
      %s = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
      %f = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
      %u = tile.alloc : memref<128xf32, #tile.scope<ub>>
      return
    }
    ```
  }];
  let results = (outs Res<Tile_StaticBuffer, "the new tile", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "copy a region between two buffers, with edge handling";
  let description = [{
    Copies the region of extent `sizes` that starts at `src_offsets` in
    `src` to the region that starts at `dst_offsets` in `dst`. There is one
    offset per dimension of each operand. Reads past the end of `src` give
    `pad` (zero when absent), and writes past the end of `dst` are dropped,
    so partial tiles at the edge of a global tensor need no special code.
    The element types may differ: each element is converted (`arith` cast
    semantics), e.g. to store an f32 accumulator into an f16 tensor.

    `sizes` has the rank of the higher-rank operand. The lower-rank operand,
    if any, sees the extent with its first unit dimensions dropped, so
    `%Q[%b, %i, %c0]` (3-D) copies into a 64x128 tile with
    `sizes [1, 64, 128]`, and `%Q[%i, %h, %c0]` with `sizes [64, 1, 128]`.
    When the ranks are equal `sizes` may be left out: it is then the shape
    of `dst` if `dst` is on-chip, else of `src` if `src` is on-chip, else
    of `dst`, which must be static. The extent must fit in every on-chip
    operand.

    A copy stays within one family of scopes: global with the generic
    scopes (`shared`, `fragment`, `local`), or global with the Ascend
    expert scopes, whose legal paths are the hardware data paths:
    global->l1, global->ub, ub->global, l1->l0a, l1->l0b, l0c->global,
    l0c->ub, ub->l1, l1->ub and ub->ub.

    `cpu` lowers it to a vectorized loop with masked edges; `cuda` to
    vectorized loads and stores, `nvgpu.device_async_copy` or TMA; `ascend`
    to `ascend.copy`, `ascend.copy_nd2nz` (into L1), `ascend.load_l0a` /
    `ascend.load_l0b` or `ascend.fixpipe` (out of L0C), chosen by the path.

    Example:

    ```mlir
    func.func @copy(%A: memref<?x?xf16>, %Q: memref<?x?x?xf16>, %C: memref<?x?xf16>,
                    %i: index, %j: index) {
      %c0 = arith.constant 0 : index
      %pad = arith.constant 0xFC00 : f16
      %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
      %q = tile.alloc : memref<64x128xf16, #tile.scope<shared>>
      %acc = tile.alloc : memref<64x32xf32, #tile.scope<fragment>>
      tile.copy %A[%i, %j], %a[%c0, %c0]
          : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
      tile.copy %Q[%i, %j, %c0], %q[%c0, %c0] sizes [1, 64, 128] pad(%pad : f16)
          : memref<?x?x?xf16>, memref<64x128xf16, #tile.scope<shared>>
      tile.copy %acc[%c0, %c0], %C[%i, %j]
          : memref<64x32xf32, #tile.scope<fragment>>, memref<?x?xf16>
      return
    }
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "", [MemRead]>:$src,
                       Variadic<Index>:$src_offsets,
                       Arg<Tile_Buffer, "", [MemWrite]>:$dst,
                       Variadic<Index>:$dst_offsets,
                       OptionalAttr<DenseI64ArrayAttr>:$sizes,
                       Optional<Tile_Scalar>:$pad);
  let assemblyFormat = [{
    $src `[` $src_offsets `]` `,` $dst `[` $dst_offsets `]`
    (`sizes` $sizes^)? (`pad` `(` $pad^ `:` type($pad) `)`)?
    attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_AtomicAddOp : Tile_Op<"atomic_add"> {
  let summary = "atomically add a tile or a scalar into a buffer";
  let description = [{
    Adds `src` (a tile, or a scalar) element-wise into `dst` at the region
    that starts at `offsets`, one per dimension of `dst`; each element is
    updated atomically, so blocks may add into the same region concurrently
    (split-K reductions, MoE combine). A tile `src` has the rank of `dst`
    and the element type of `dst`; elements that fall past the end of `dst`
    are dropped.

    `cuda` lowers it to atomic reductions (`red.global.add`), `cpu` to
    `memref.atomic_rmw`, and `ascend` to a UB->GM `ascend.copy` with atomic
    accumulation enabled.

    Example:

    ```mlir
    func.func @atomic_add(%out: memref<?x?xf32>, %sum: memref<?xf32>, %i: index, %j: index,
                          %v: f32) {
      %t = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
      tile.atomic_add %t, %out[%i, %j] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xf32>
      tile.atomic_add %v, %sum[%i] : f32, memref<?xf32>
      return
    }
    ```
  }];
  let arguments = (ins Arg<Tile_Addend, "", [MemRead]>:$src,
                       Arg<Tile_NumericBuffer, "", [MemRead, MemWrite]>:$dst,
                       Variadic<Index>:$offsets);
  let assemblyFormat = [{
    $src `,` $dst `[` $offsets `]` attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_FillOp : Tile_Op<"fill"> {
  let summary = "set every element of a tile to a scalar";
  let description = [{
    Writes `value`, which has the element type of `dst`, to every element
    of `dst`. Lowered to vector stores on `cpu` and `cuda` and to
    `ascend.vdup` on `ascend`; filling an L0C accumulator with zero becomes
    the `init` flag of the next `ascend.mmad`.

    Example:

    ```mlir
    func.func @fill(%acc: memref<64x64xf32, #tile.scope<fragment>>) {
      %ninf = arith.constant 0xFF800000 : f32
      tile.fill %acc, %ninf : memref<64x64xf32, #tile.scope<fragment>>, f32
      return
    }
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "", [MemWrite]>:$dst, Tile_Scalar:$value);
  let assemblyFormat = "$dst `,` $value attr-dict `:` type($dst) `,` type($value)";
  let hasVerifier = 1;
}

def Tile_ClearOp : Tile_Op<"clear"> {
  let summary = "set every element of a tile to zero";
  let description = [{
    Shorthand for `tile.fill` with zero (TileLang's `T.clear`); it is
    canonicalized into `tile.fill` before lowering.

    Example:

    ```mlir
    func.func @clear(%acc: memref<64x64xf32, #tile.scope<fragment>>) {
      tile.clear %acc : memref<64x64xf32, #tile.scope<fragment>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<Tile_Buffer, "", [MemWrite]>:$dst);
  let assemblyFormat = "$dst attr-dict `:` type($dst)";
  let hasVerifier = 1;
  let hasCanonicalizer = 0;
}

def Tile_GemmOp : Tile_Op<"gemm"> {
  let summary = "tile matrix multiply-accumulate";
  let description = [{
    Computes `C (+)= op(A) * op(B)` for an M x N tile `C`, where `op(A)` is
    M x K and `op(B)` is K x N; `op` transposes its operand when
    `transpose_a` / `transpose_b` is set (so `A` is then stored K x M, `B`
    N x K). With `clear_accum`, `C` is overwritten instead of accumulated
    into. `A` and `B` are on-chip tiles of one element type; `C` is an
    accumulator in `fragment`, `local` or `l0c`, and all three come from one
    family of scopes (on the Ascend cube path `A` is in `l1` or `l0a` and
    `B` in `l1` or `l0b`). Legal element types (A and B -> C): f16 -> f32 or
    f16, bf16 -> f32, f32 -> f32, 8-bit floats -> f32, i8 -> i32.

    `cpu` lowers it to register-tiled `vector.fma` code; `cuda` to
    `nvgpu.mma.sync` (sm_80) or `nvgpu.warpgroup.mma` (sm_90a); `ascend` to
    `ascend.load_l0a` / `ascend.load_l0b` and `ascend.mmad`.

    Example:

    ```mlir
    func.func @gemm(%a: memref<64x32xf16, #tile.scope<shared>>,
                    %b: memref<64x32xf16, #tile.scope<shared>>,
                    %c: memref<64x64xf32, #tile.scope<fragment>>) {
      tile.gemm %a, %b, %c transpose_b clear_accum
          : memref<64x32xf16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>,
            memref<64x64xf32, #tile.scope<fragment>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<Tile_Matrix, "", [MemRead]>:$a,
                       Arg<Tile_Matrix, "", [MemRead]>:$b,
                       Arg<Tile_Matrix, "", [MemRead, MemWrite]>:$c,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b, UnitAttr:$clear_accum);
  let assemblyFormat = [{
    $a `,` $b `,` $c (`transpose_a` $transpose_a^)? (`transpose_b` $transpose_b^)?
    (`clear_accum` $clear_accum^)? attr-dict `:` type($a) `,` type($b) `,` type($c)
  }];
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce"> {
  let summary = "reduce a tile along one dimension";
  let description = [{
    Combines the elements of `src` along dimension `dim` with `kind` (`sum`,
    `max`, `min`, `abssum` or `absmax`) and writes the result to `dst`,
    whose shape is that of `src` without `dim` (a 1-D `src` reduces to a
    1-element `dst`). With `clear = false` the previous values of `dst` are
    combined into the result too (a running max or sum across loop
    iterations); the default `clear = true` overwrites them. The element
    types of `src` and `dst` are the same, and neither has a zero extent,
    in any scope (a reduction over no elements has no value).

    `cpu` lowers it to `vector.reduction` over loops; `cuda` to per-thread
    partial reductions followed by warp shuffles (and shared memory across
    warps); `ascend` to `ascend.vreduce` on UB tiles.

    Example:

    ```mlir
    func.func @reduce(%s: memref<64x128xf32, #tile.scope<fragment>>,
                      %m: memref<64xf32, #tile.scope<fragment>>) {
      tile.reduce max %s, %m dim = 1 clear = false
          : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
      tile.reduce sum %s, %m dim = 1
          : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
      return
    }
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind,
                       Arg<Tile_StaticBuffer, "", [MemRead]>:$src,
                       Arg<Tile_StaticBuffer, "", [MemRead, MemWrite]>:$dst,
                       I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "true">:$clear);
  let assemblyFormat = [{
    custom<ReduceKind>($kind) $src `,` $dst `dim` `=` $dim (`clear` `=` $clear^)?
    attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_CumsumOp : Tile_Op<"cumsum"> {
  let summary = "inclusive prefix sum of a tile along one dimension";
  let description = [{
    Writes to `dst` the inclusive prefix sum of `src` along dimension `dim`:
    `dst[.., i, ..] = src[.., 0, ..] + ... + src[.., i, ..]`, or from the
    end of the dimension when `reverse = true`. `src` and `dst` have the
    same shape and element type and may be the same tile.

    `cpu` lowers it to a loop carried along `dim`; `cuda` to a scan over the
    threads that hold the dimension; `ascend` to a loop of vector adds.

    Example:

    ```mlir
    func.func @cumsum(%s: memref<64x128xf32, #tile.scope<fragment>>,
                      %d: memref<64x128xf32, #tile.scope<fragment>>) {
      tile.cumsum %s, %d dim = 1
          : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
      tile.cumsum %s, %s dim = 0 reverse = true
          : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
      return
    }
    ```
  }];
  let arguments = (ins Arg<Tile_StaticBuffer, "", [MemRead]>:$src,
                       Arg<Tile_StaticBuffer, "", [MemWrite]>:$dst,
                       I64Attr:$dim,
                       DefaultValuedAttr<BoolAttr, "false">:$reverse);
  let assemblyFormat = [{
    $src `,` $dst `dim` `=` $dim (`reverse` `=` $reverse^)?
    attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

#endif // TILE_OPS_TD
