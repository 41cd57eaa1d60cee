// C[64x64] f32 = A[64x512] f16 * B[512x64] f16 with a double-buffered K loop
// (8 steps of 64), AIC kernel. Per step: nd2nz GM->L1 for the A and B tiles
// (fractal NZ layout), mmadL1 (which itself moves L1->L0A/L0B and runs the cube
// into the L0C accumulator; init_condition is k == 0), and after the loop one
// fixpipe L0C->GM. The L1 tiles are marked `hivm.multi_buffer = 2`.
#gm = #hivm.address_space<gm>
#l1 = #hivm.address_space<cbuf>
#l0c = #hivm.address_space<cc>
!a_gm = memref<64x64xf16, strided<[512, 1], offset: ?>, #gm>
!b_gm = memref<64x64xf16, strided<[64, 1], offset: ?>, #gm>
module {
  func.func @gemm_db(%a: memref<64x512xf16, #gm>, %b: memref<512x64xf16, #gm>,
                     %c: memref<64x64xf32, #gm>)
      attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c512 = arith.constant 512 : index
    %acc = memref.alloc() : memref<4x4x16x16xf32, #l0c>
    scf.for %k = %c0 to %c512 step %c64 {
      %ga = memref.subview %a[0, %k] [64, 64] [1, 1] : memref<64x512xf16, #gm> to !a_gm
      %gb = memref.subview %b[%k, 0] [64, 64] [1, 1] : memref<512x64xf16, #gm> to !b_gm
      %la = memref.alloc() : memref<4x4x16x16xf16, #l1>
      annotation.mark %la {hivm.multi_buffer = 2 : i32} : memref<4x4x16x16xf16, #l1>
      %lb = memref.alloc() : memref<4x4x16x16xf16, #l1>
      annotation.mark %lb {hivm.multi_buffer = 2 : i32} : memref<4x4x16x16xf16, #l1>
      hivm.hir.nd2nz {dst_continuous} ins(%ga : !a_gm)
                     outs(%la : memref<4x4x16x16xf16, #l1>)
      hivm.hir.nd2nz {dst_continuous} ins(%gb : !b_gm)
                     outs(%lb : memref<4x4x16x16xf16, #l1>)
      %first = arith.cmpi eq, %k, %c0 : index
      hivm.hir.mmadL1 ins(%la, %lb, %first, %c64, %c64, %c64
                          : memref<4x4x16x16xf16, #l1>, memref<4x4x16x16xf16, #l1>,
                            i1, index, index, index)
                      outs(%acc : memref<4x4x16x16xf32, #l0c>)
    }
    hivm.hir.fixpipe {enable_nz2nd} ins(%acc : memref<4x4x16x16xf32, #l0c>)
                     outs(%c : memref<64x64xf32, #gm>)
    return
  }
}
