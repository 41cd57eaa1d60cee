// A GEMM tile whose fixpipe is not ordered after the mmad (the m -> fix flag
// is missing): the fixpipe reads L0C while the mmad writes it.
//
// RUN: not tile-sim %s 2>&1 | filecheck %s

func.func @gemm_tile(%a: memref<32x32xf16, #ascend.mem<gm>>, %b: memref<32x32xf16, #ascend.mem<gm>>,
                     %c: memref<32x32xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %l1_a = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l1>>
  %l1_b = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l1>>
  %l0_a = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l0a>>
  %l0_b = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l0b>>
  %l0_c = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
  ascend.copy_nd2nz %a[%c0, %c0], %l1_a sizes [32, 32]
      : memref<32x32xf16, #ascend.mem<gm>>, memref<2x2x16x16xf16, #ascend.mem<l1>>
  ascend.copy_nd2nz %b[%c0, %c0], %l1_b sizes [32, 32]
      : memref<32x32xf16, #ascend.mem<gm>>, memref<2x2x16x16xf16, #ascend.mem<l1>>
  ascend.set_flag mte2 -> mte1, 0
  ascend.wait_flag mte2 -> mte1, 0
  ascend.load_l0a %l1_a, %l0_a sizes [32, 32]
      : memref<2x2x16x16xf16, #ascend.mem<l1>>, memref<2x2x16x16xf16, #ascend.mem<l0a>>
  ascend.load_l0b %l1_b, %l0_b sizes [32, 32]
      : memref<2x2x16x16xf16, #ascend.mem<l1>>, memref<2x2x16x16xf16, #ascend.mem<l0b>>
  ascend.set_flag mte1 -> m, 0
  ascend.wait_flag mte1 -> m, 0
  ascend.mmad %l0_a, %l0_b, %l0_c sizes [32, 32, 32] {init}
      : memref<2x2x16x16xf16, #ascend.mem<l0a>>, memref<2x2x16x16xf16, #ascend.mem<l0b>>,
        memref<2x2x16x16xf32, #ascend.mem<l0c>>
  ascend.fixpipe %l0_c, %c[%c0, %c0] sizes [32, 32]
      : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<32x32xf32, #ascend.mem<gm>>
  return
}

// CHECK: races: 1
// CHECK-NEXT: deadlocks: 0
// CHECK: {{.*}}gemm-race.mlir:27:3: error: race (write-after-read): ascend.mmad init on M of block 0 aic writes l0c of block 0 aic, bytes [0, 4096) (memref<2x2x16x16xf32, #ascend.mem<l0c>> allocated at {{.*}}gemm-race.mlir:14:11, offset 0) read by ascend.fixpipe l0c -> gm on FIX of block 0 aic at {{.*}}gemm-race.mlir:30:3, and no flag, barrier or cross-core sync orders them
// CHECK: {{.*}}gemm-race.mlir:30:3: note: the conflicting read is here
