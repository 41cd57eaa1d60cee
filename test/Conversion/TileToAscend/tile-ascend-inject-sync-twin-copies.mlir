// RUN: tile-opt %s --tile-ascend-inject-sync="target=ascend:950" | filecheck %s
// RUN: tile-opt %s --tile-ascend-inject-sync="target=ascend:950" \
// RUN:   | tile-sim - --profile 950 --block-dim 3 --arg ones:256x64xf16 --arg ones:64x512xf16 \
// RUN:       --arg zeros:256x512xf32 --print-outputs | filecheck %s --check-prefix=SIM
// RUN: tile-opt %s --tile-ascend-inject-sync="target=ascend:950" \
// RUN:   | tile-sim - --profile 950 --block-dim 1 --arg ones:256x64xf16 --arg ones:64x512xf16 \
// RUN:       --arg zeros:256x512xf32 --flag-identity source --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM

// A grid loop that tile-ascend-multi-buffer unrolled by two for two L0C slots
// (`ascend.twin_copies`; the second copy under `scf.if`), planned. Both copies
// load the same L1 and L0 buffers: each hazard on them gets one flag for both
// copies, set once before the grid loop and waited once after it, so that the
// second copy's wait takes the first copy's set (no flag from one copy to the
// other, nothing to balance in the `else`). The accumulator slots differ:
// each has its own FIX -> M flag, so the second copy's mmad waits only for the
// fixpipe of the block two back (its own slot), not for the first copy's.
// CHECK-LABEL: func.func @slots
// CHECK: ascend.set_flag mte1 -> mte2, [[A:[0-9]+]]
// CHECK: ascend.set_flag mte1 -> mte2, [[B:[0-9]+]]
// CHECK: ascend.set_flag fix -> m, [[SLOT0:[0-9]+]]
// CHECK: ascend.set_flag fix -> m, [[SLOT1:[0-9]+]]
// CHECK: scf.for
// CHECK: ascend.wait_flag mte1 -> mte2, [[A]]
// CHECK-NEXT: ascend.copy_nd2nz %arg0
// CHECK: ascend.wait_flag mte1 -> mte2, [[B]]
// CHECK-NEXT: ascend.copy_nd2nz %arg1
// CHECK: ascend.load_l0a
// CHECK-NEXT: ascend.set_flag mte1 -> mte2, [[A]]
// CHECK: ascend.load_l0b
// CHECK: ascend.set_flag mte1 -> mte2, [[B]]
// CHECK: ascend.wait_flag fix -> m, [[SLOT0]]
// CHECK-NEXT: ascend.mmad %{{.*}}, %{{.*}}, %alloc_0
// CHECK: ascend.fixpipe %alloc_0
// CHECK-NEXT: ascend.set_flag fix -> m, [[SLOT0]]
// CHECK: scf.if
// CHECK: ascend.wait_flag mte1 -> mte2, [[A]]
// CHECK-NEXT: ascend.copy_nd2nz %arg0
// CHECK: ascend.wait_flag mte1 -> mte2, [[B]]
// CHECK-NEXT: ascend.copy_nd2nz %arg1
// CHECK: ascend.load_l0a
// CHECK-NEXT: ascend.set_flag mte1 -> mte2, [[A]]
// CHECK: ascend.wait_flag fix -> m, [[SLOT1]]
// CHECK-NEXT: ascend.mmad %{{.*}}, %{{.*}}, %alloc sizes
// CHECK: ascend.fixpipe %alloc,
// CHECK-NEXT: ascend.set_flag fix -> m, [[SLOT1]]
// CHECK-NEXT: }
// CHECK-NEXT: } {ascend.multi_buffer_slots = 2 : i64, ascend.twin_copies}
// CHECK: ascend.wait_flag fix -> m, [[SLOT0]]
// CHECK: ascend.wait_flag fix -> m, [[SLOT1]]
// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM: %arg2 = [[64. 64. 64. ... 64. 64. 64.]
// SIM-NEXT: [64. 64. 64. ... 64. 64. 64.]
// SIM: [64. 64. 64. ... 64. 64. 64.]]
func.func @slots(%arg0: memref<256x64xf16, #ascend.mem<gm>>, %arg1: memref<64x512xf16, #ascend.mem<gm>>, %arg2: memref<256x512xf32, #ascend.mem<gm>>) attributes {ascend.grid = 4 : i64, ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %alloc = memref.alloc() {ascend.offset = 0 : i64} : memref<16x8x16x16xf32, #ascend.mem<l0c>>
  %alloc_0 = memref.alloc() {ascend.offset = 131072 : i64} : memref<16x8x16x16xf32, #ascend.mem<l0c>>
  %alloc_1 = memref.alloc() {ascend.offset = 0 : i64} : memref<16x4x16x16xf16, #ascend.mem<l1>>
  %alloc_2 = memref.alloc() {ascend.offset = 32768 : i64} : memref<4x8x16x16xf16, #ascend.mem<l1>>
  %alloc_3 = memref.alloc() {ascend.offset = 0 : i64} : memref<4x16x16x16xf16, #ascend.mem<l0b>>
  %alloc_4 = memref.alloc() {ascend.offset = 0 : i64} : memref<8x4x16x16xf16, #ascend.mem<l0a>>
  %block_idx = ascend.block_idx : index
  %block_num = ascend.block_num : index
  %c2_5 = arith.constant 2 : index
  %0 = arith.muli %block_num, %c2_5 : index
  scf.for %arg3 = %block_idx to %c4 step %0 {
    %1 = arith.remui %arg3, %c2 : index
    %2 = arith.divui %arg3, %c2 : index
    %3 = arith.muli %2, %c128 : index
    ascend.copy_nd2nz %arg0[%3, %c0], %alloc_2 sizes [128, 64] : memref<256x64xf16, #ascend.mem<gm>>, memref<4x8x16x16xf16, #ascend.mem<l1>>
    %4 = arith.muli %1, %c256 : index
    ascend.copy_nd2nz %arg1[%c0, %4], %alloc_1 sizes [64, 256] : memref<64x512xf16, #ascend.mem<gm>>, memref<16x4x16x16xf16, #ascend.mem<l1>>
    ascend.load_l0a %alloc_2, %alloc_4 sizes [128, 64] : memref<4x8x16x16xf16, #ascend.mem<l1>>, memref<8x4x16x16xf16, #ascend.mem<l0a>>
    ascend.load_l0b %alloc_1, %alloc_3 sizes [64, 256] : memref<16x4x16x16xf16, #ascend.mem<l1>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>
    ascend.mmad %alloc_4, %alloc_3, %alloc_0 sizes [128, 256, 64] {init} : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>, memref<16x8x16x16xf32, #ascend.mem<l0c>>
    ascend.fixpipe %alloc_0, %arg2[%3, %4] sizes [128, 256] : memref<16x8x16x16xf32, #ascend.mem<l0c>>, memref<256x512xf32, #ascend.mem<gm>>
    %c1 = arith.constant 1 : index
    %5 = arith.muli %block_num, %c1 : index
    %6 = arith.addi %arg3, %5 : index
    %7 = arith.cmpi slt, %6, %c4 : index
    scf.if %7 {
      %8 = arith.remui %6, %c2 : index
      %9 = arith.divui %6, %c2 : index
      %10 = arith.muli %9, %c128 : index
      ascend.copy_nd2nz %arg0[%10, %c0], %alloc_2 sizes [128, 64] : memref<256x64xf16, #ascend.mem<gm>>, memref<4x8x16x16xf16, #ascend.mem<l1>>
      %11 = arith.muli %8, %c256 : index
      ascend.copy_nd2nz %arg1[%c0, %11], %alloc_1 sizes [64, 256] : memref<64x512xf16, #ascend.mem<gm>>, memref<16x4x16x16xf16, #ascend.mem<l1>>
      ascend.load_l0a %alloc_2, %alloc_4 sizes [128, 64] : memref<4x8x16x16xf16, #ascend.mem<l1>>, memref<8x4x16x16xf16, #ascend.mem<l0a>>
      ascend.load_l0b %alloc_1, %alloc_3 sizes [64, 256] : memref<16x4x16x16xf16, #ascend.mem<l1>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>
      ascend.mmad %alloc_4, %alloc_3, %alloc sizes [128, 256, 64] {init} : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>, memref<16x8x16x16xf32, #ascend.mem<l0c>>
      ascend.fixpipe %alloc, %arg2[%10, %11] sizes [128, 256] : memref<16x8x16x16xf32, #ascend.mem<l0c>>, memref<256x512xf32, #ascend.mem<gm>>
    }
  } {ascend.multi_buffer_slots = 2 : i64, ascend.twin_copies}
  return
}
