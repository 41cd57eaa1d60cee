// One f16 GEMM tile on the cube core (AIC): C (64x48, f32) = A (64x32) * B (32x48).
//
// The sizes are distinct multiples of 16 so that a mix-up of M, N and K or of
// a fractal layout shows up. Layouts (C0 = 16 for f16):
//   A in L1: Nz of 64x32  -> (K/16, M/16, 16, 16) = 2x4x16x16
//   B in L1: Nz of 32x48  -> (N/16, K/16, 16, 16) = 3x2x16x16
//   A in L0A: Zz          -> (M/16, K/16, 16, 16) = 4x2x16x16
//   B in L0B: Zn          -> (K/16, N/16, 16, 16) = 2x3x16x16
//   C in L0C: Nz, 16x16   -> (N/16, M/16, 16, 16) = 3x4x16x16
//
// Pipes and flags: copy_nd2nz (MTE2) -> mte2 -> mte1 -> load_l0a/l0b (MTE1)
// -> mte1 -> m -> mmad (M) -> m -> fix -> fixpipe (FIX, NZ -> ND into GM).
func.func @gemm_tile(%a: memref<64x32xf16, #ascend.mem<gm>>, %b: memref<32x48xf16, #ascend.mem<gm>>,
                     %c: memref<64x48xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %l1_a = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  %l1_b = memref.alloc() : memref<3x2x16x16xf16, #ascend.mem<l1>>
  %l0_a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  %l0_b = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l0b>>
  %l0_c = memref.alloc() : memref<3x4x16x16xf32, #ascend.mem<l0c>>

  ascend.copy_nd2nz %a[%c0, %c0], %l1_a sizes [64, 32]
      : memref<64x32xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
  ascend.copy_nd2nz %b[%c0, %c0], %l1_b sizes [32, 48]
      : memref<32x48xf16, #ascend.mem<gm>>, memref<3x2x16x16xf16, #ascend.mem<l1>>
  ascend.set_flag mte2 -> mte1, 0
  ascend.wait_flag mte2 -> mte1, 0

  ascend.load_l0a %l1_a, %l0_a sizes [64, 32]
      : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
  ascend.load_l0b %l1_b, %l0_b sizes [32, 48]
      : memref<3x2x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>
  ascend.set_flag mte1 -> m, 0
  ascend.wait_flag mte1 -> m, 0

  ascend.mmad %l0_a, %l0_b, %l0_c sizes [64, 48, 32] {init}
      : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>,
        memref<3x4x16x16xf32, #ascend.mem<l0c>>
  ascend.set_flag m -> fix, 0
  ascend.wait_flag m -> fix, 0

  ascend.fixpipe %l0_c, %c[%c0, %c0] sizes [64, 48]
      : memref<3x4x16x16xf32, #ascend.mem<l0c>>, memref<64x48xf32, #ascend.mem<gm>>
  return
}
