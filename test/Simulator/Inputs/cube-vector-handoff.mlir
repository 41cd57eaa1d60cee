// out = relu(A * B + bias) on a mix kernel (one AIC and two AIVs per block).
//
// A is M x 32 f16 (M dynamic), B is 32 x 64 f16, bias is 64 f32 (one value
// per column), ws and out are M x 64 f32. Block b owns rows [64 b, 64 b + 64):
//   AIC: A rows and B -> L1 (Nz) -> L0A/L0B -> mmad -> fixpipe into the GM
//        workspace ws, then cross_core_set_flag mode 2 on the FIX pipe, which
//        runs after the fixpipe has written ws and signals both AIVs.
//   AIV: sub-block s takes rows [64 b + 32 s, 64 b + 32 s + 32): it loads the
//        bias (independent of the AIC), waits for flag 0 on MTE2, loads its
//        32 x 64 rows of ws, adds the bias to every row, applies relu and
//        stores the rows to out.
// Rows past M read as zero and are not written (edge blocks).
func.func @matmul_bias_relu(%a: memref<?x32xf16, #ascend.mem<gm>>, %b: memref<32x64xf16, #ascend.mem<gm>>,
                            %bias: memref<64xf32, #ascend.mem<gm>>, %ws: memref<?x64xf32, #ascend.mem<gm>>,
                            %out: memref<?x64xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %block = ascend.block_idx : index
  %row0 = arith.muli %block, %c64 : index

  ascend.core aic {
    %l1_a = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
    %l1_b = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l1>>
    %l0_a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
    %l0_b = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l0b>>
    %l0_c = memref.alloc() : memref<4x4x16x16xf32, #ascend.mem<l0c>>
    ascend.copy_nd2nz %a[%row0, %c0], %l1_a sizes [64, 32]
        : memref<?x32xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
    ascend.copy_nd2nz %b[%c0, %c0], %l1_b sizes [32, 64]
        : memref<32x64xf16, #ascend.mem<gm>>, memref<4x2x16x16xf16, #ascend.mem<l1>>
    ascend.set_flag mte2 -> mte1, 0
    ascend.wait_flag mte2 -> mte1, 0
    ascend.load_l0a %l1_a, %l0_a sizes [64, 32]
        : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
    ascend.load_l0b %l1_b, %l0_b sizes [32, 64]
        : memref<4x2x16x16xf16, #ascend.mem<l1>>, memref<2x4x16x16xf16, #ascend.mem<l0b>>
    ascend.set_flag mte1 -> m, 0
    ascend.wait_flag mte1 -> m, 0
    ascend.mmad %l0_a, %l0_b, %l0_c sizes [64, 64, 32] {init}
        : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x4x16x16xf16, #ascend.mem<l0b>>,
          memref<4x4x16x16xf32, #ascend.mem<l0c>>
    ascend.set_flag m -> fix, 0
    ascend.wait_flag m -> fix, 0
    ascend.fixpipe %l0_c, %ws[%row0, %c0] sizes [64, 64]
        : memref<4x4x16x16xf32, #ascend.mem<l0c>>, memref<?x64xf32, #ascend.mem<gm>>
    ascend.cross_core_set_flag mode 2, fix, 0
  }

  ascend.core aiv {
    %sub = ascend.sub_block_idx : index
    %half = arith.muli %sub, %c32 : index
    %row = arith.addi %row0, %half : index
    %tile = memref.alloc() : memref<32x64xf32, #ascend.mem<ub>>
    %bias_ub = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
    ascend.copy %bias[%c0], %bias_ub[%c0] sizes [64]
        : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
    ascend.cross_core_wait_flag 0, mte2
    ascend.copy %ws[%row, %c0], %tile[%c0, %c0] sizes [32, 64]
        : memref<?x64xf32, #ascend.mem<gm>>, memref<32x64xf32, #ascend.mem<ub>>
    ascend.set_flag mte2 -> v, 0
    ascend.wait_flag mte2 -> v, 0
    scf.for %r = %c0 to %c32 step %c1 {
      %tile_row = memref.subview %tile[%r, 0] [1, 64] [1, 1]
          : memref<32x64xf32, #ascend.mem<ub>> to memref<64xf32, strided<[1], offset: ?>, #ascend.mem<ub>>
      ascend.vbin add %tile_row, %tile_row, %bias_ub
          : memref<64xf32, strided<[1], offset: ?>, #ascend.mem<ub>>,
            memref<64xf32, strided<[1], offset: ?>, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<ub>>
    }
    ascend.pipe_barrier v
    ascend.vunary relu %tile, %tile : memref<32x64xf32, #ascend.mem<ub>>
    ascend.set_flag v -> mte3, 0
    ascend.wait_flag v -> mte3, 0
    ascend.copy %tile[%c0, %c0], %out[%row, %c0] sizes [32, 64]
        : memref<32x64xf32, #ascend.mem<ub>>, memref<?x64xf32, #ascend.mem<gm>>
  }
  return
}
