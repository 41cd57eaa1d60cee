// C = A x B (f16 in, f32 out) on the cube cores, double-buffered.
//
// Block b computes the 128x128 tiles b, b + block_num, ... of C. K advances
// in pairs of 64-deep steps: step s of a pair (s = 0, 1) uses L1 slot s,
// L0A/L0B slot s and event id s, so the MTE2 loads (GM -> L1, ND -> Nz) of
// one step overlap the MTE1 loads and the mmad of the other. K must be a
// multiple of 128; M and N may be ragged (zero-padded reads, dropped writes).
//
// Flags, per slot s:
//   mte2 -> mte1, s   L1 slot loaded before MTE1 reads it           (RAW)
//   mte1 -> mte2, s   MTE1 has read the L1 slot before it is reloaded (WAR)
//   mte1 -> m, s      L0A/L0B slot loaded before mmad reads it       (RAW)
//   m -> mte1, 3 + s  mmad has read the L0 slot before it is reloaded (WAR; ids 0-2 are
//                     the 910b TPipe's own, kernel_tpipe_impl.h)
//   m -> fix, 0       the tile's last mmad is done before the fixpipe (RAW)
//   fix -> m, 0       the fixpipe has read L0C before the next tile   (WAR)
func.func @gemm(%a: memref<?x?xf16, #ascend.mem<gm>>, %b: memref<?x?xf16, #ascend.mem<gm>>,
                %c: memref<?x?xf32, #ascend.mem<gm>>, %m: index, %n: index, %k: index)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %block = ascend.block_idx : index
  %blocks = ascend.block_num : index
  %l1a0 = memref.alloc() : memref<4x8x16x16xf16, #ascend.mem<l1>>
  %l1b0 = memref.alloc() : memref<8x4x16x16xf16, #ascend.mem<l1>>
  %l0a0 = memref.alloc() : memref<8x4x16x16xf16, #ascend.mem<l0a>>
  %l0b0 = memref.alloc() : memref<4x8x16x16xf16, #ascend.mem<l0b>>
  %l1a1 = memref.alloc() : memref<4x8x16x16xf16, #ascend.mem<l1>>
  %l1b1 = memref.alloc() : memref<8x4x16x16xf16, #ascend.mem<l1>>
  %l0a1 = memref.alloc() : memref<8x4x16x16xf16, #ascend.mem<l0a>>
  %l0b1 = memref.alloc() : memref<4x8x16x16xf16, #ascend.mem<l0b>>
  %l0c = memref.alloc() : memref<8x8x16x16xf32, #ascend.mem<l0c>>
  %tiles_m = arith.ceildivui %m, %c128 : index
  %tiles_n = arith.ceildivui %n, %c128 : index
  %tiles = arith.muli %tiles_m, %tiles_n : index
  ascend.set_flag mte1 -> mte2, 0
  ascend.set_flag mte1 -> mte2, 1
  ascend.set_flag m -> mte1, 3
  ascend.set_flag m -> mte1, 4
  ascend.set_flag fix -> m, 0
  scf.for %t = %block to %tiles step %blocks {
    %tm = arith.divui %t, %tiles_n : index
    %tn = arith.remui %t, %tiles_n : index
    %row = arith.muli %tm, %c128 : index
    %col = arith.muli %tn, %c128 : index
    ascend.wait_flag fix -> m, 0
    scf.for %kk = %c0 to %k step %c128 {
      %k0 = arith.addi %kk, %c0 : index
      %k1 = arith.addi %kk, %c64 : index
      ascend.wait_flag mte1 -> mte2, 0
      ascend.copy_nd2nz %a[%row, %k0], %l1a0 sizes [128, 64]
          : memref<?x?xf16, #ascend.mem<gm>>, memref<4x8x16x16xf16, #ascend.mem<l1>>
      ascend.copy_nd2nz %b[%k0, %col], %l1b0 sizes [64, 128]
          : memref<?x?xf16, #ascend.mem<gm>>, memref<8x4x16x16xf16, #ascend.mem<l1>>
      ascend.set_flag mte2 -> mte1, 0
      ascend.wait_flag mte1 -> mte2, 1
      ascend.copy_nd2nz %a[%row, %k1], %l1a1 sizes [128, 64]
          : memref<?x?xf16, #ascend.mem<gm>>, memref<4x8x16x16xf16, #ascend.mem<l1>>
      ascend.copy_nd2nz %b[%k1, %col], %l1b1 sizes [64, 128]
          : memref<?x?xf16, #ascend.mem<gm>>, memref<8x4x16x16xf16, #ascend.mem<l1>>
      ascend.set_flag mte2 -> mte1, 1
      ascend.wait_flag mte2 -> mte1, 0
      ascend.wait_flag m -> mte1, 3
      ascend.load_l0a %l1a0, %l0a0 sizes [128, 64]
          : memref<4x8x16x16xf16, #ascend.mem<l1>>, memref<8x4x16x16xf16, #ascend.mem<l0a>>
      ascend.load_l0b %l1b0, %l0b0 sizes [64, 128]
          : memref<8x4x16x16xf16, #ascend.mem<l1>>, memref<4x8x16x16xf16, #ascend.mem<l0b>>
      ascend.set_flag mte1 -> mte2, 0
      ascend.set_flag mte1 -> m, 0
      ascend.wait_flag mte1 -> m, 0
      %first = arith.cmpi eq, %kk, %c0 : index
      scf.if %first {
        ascend.mmad %l0a0, %l0b0, %l0c sizes [128, 128, 64] {init}
            : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x8x16x16xf16, #ascend.mem<l0b>>,
              memref<8x8x16x16xf32, #ascend.mem<l0c>>
      } else {
        ascend.mmad %l0a0, %l0b0, %l0c sizes [128, 128, 64]
            : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x8x16x16xf16, #ascend.mem<l0b>>,
              memref<8x8x16x16xf32, #ascend.mem<l0c>>
      }
      ascend.set_flag m -> mte1, 3
      ascend.wait_flag mte2 -> mte1, 1
      ascend.wait_flag m -> mte1, 4
      ascend.load_l0a %l1a1, %l0a1 sizes [128, 64]
          : memref<4x8x16x16xf16, #ascend.mem<l1>>, memref<8x4x16x16xf16, #ascend.mem<l0a>>
      ascend.load_l0b %l1b1, %l0b1 sizes [64, 128]
            : memref<8x4x16x16xf16, #ascend.mem<l1>>, memref<4x8x16x16xf16, #ascend.mem<l0b>>
      ascend.set_flag mte1 -> mte2, 1
      ascend.set_flag mte1 -> m, 1
      ascend.wait_flag mte1 -> m, 1
      ascend.mmad %l0a1, %l0b1, %l0c sizes [128, 128, 64]
          : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x8x16x16xf16, #ascend.mem<l0b>>,
            memref<8x8x16x16xf32, #ascend.mem<l0c>>
      ascend.set_flag m -> mte1, 4
    }
    ascend.set_flag m -> fix, 0
    ascend.wait_flag m -> fix, 0
    ascend.fixpipe %l0c, %c[%row, %col] sizes [128, 128]
        : memref<8x8x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
    ascend.set_flag fix -> m, 0
  }
  ascend.wait_flag mte1 -> mte2, 0
  ascend.wait_flag mte1 -> mte2, 1
  ascend.wait_flag m -> mte1, 3
  ascend.wait_flag m -> mte1, 4
  ascend.wait_flag fix -> m, 0
  return
}
