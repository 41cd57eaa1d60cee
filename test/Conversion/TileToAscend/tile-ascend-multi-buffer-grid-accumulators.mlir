// RUN: tile-opt %s -split-input-file --tile-ascend-multi-buffer="target=ascend:950" | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-ascend-multi-buffer="target=ascend:910b" \
// RUN:   | filecheck %s --check-prefix=ONE
// RUN: tile-opt %S/Inputs/gemm-k-slabs-950.mlir --tile-ascend-multi-buffer="target=ascend:950" \
// RUN:   | filecheck %s --check-prefix=KLOOP

// A cube kernel's grid loop whose 128 x 256 f32 accumulator (128 KiB) holds
// nothing from one block to the next (its mmad is `init`): on the 950 two
// slots fit L0C (256 KiB), so the loop is unrolled by two, the second copy
// (under `scf.if`: a core's block count may be odd) on the second slot, while
// the L1 and L0 buffers stay shared. `ascend.twin_copies` tells the sync pass
// that the body holds two copies. The 910b's L0C (128 KiB) holds one slot.
// CHECK-LABEL: func.func @slots
// CHECK-COUNT-2: memref.alloc() : memref<16x8x16x16xf32, #ascend.mem<l0c>>
// CHECK-NOT: #ascend.mem<l0c>>
// CHECK: %[[NUM:.*]] = ascend.block_num
// CHECK: %[[TWO:.*]] = arith.muli %[[NUM]], %{{.*}} : index
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %[[TWO]] {
// CHECK: ascend.mmad %{{.*}}, %{{.*}}, %[[SLOT0:[^ ]*]] sizes [128, 256, 64] {init}
// CHECK: ascend.fixpipe %[[SLOT0]], %arg2
// CHECK: %[[NEXT:.*]] = arith.addi %[[B]], %{{.*}} : index
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %{{.*}} : index
// CHECK: scf.if %[[MORE]] {
// CHECK-NOT: %[[SLOT0]]
// CHECK: ascend.mmad %{{.*}}, %{{.*}}, %[[SLOT1:[^ ]*]] sizes [128, 256, 64] {init}
// CHECK: ascend.fixpipe %[[SLOT1]], %arg2
// CHECK: } {ascend.multi_buffer_slots = 2 : i64, ascend.twin_copies}
// ONE-LABEL: func.func @slots
// ONE: memref.alloc() : memref<16x8x16x16xf32, #ascend.mem<l0c>>
// ONE-NEXT: memref.alloc() : memref<16x4x16x16xf16, #ascend.mem<l1>>
// ONE-NOT: ascend.twin_copies
func.func @slots(%arg0: memref<256x64xf16, #ascend.mem<gm>>, %arg1: memref<64x512xf16, #ascend.mem<gm>>, %arg2: memref<256x512xf32, #ascend.mem<gm>>) attributes {ascend.grid = 4 : i64, ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c2 = arith.constant 2 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  %alloc = memref.alloc() : memref<16x8x16x16xf32, #ascend.mem<l0c>>
  %alloc_0 = memref.alloc() : memref<16x4x16x16xf16, #ascend.mem<l1>>
  %alloc_1 = memref.alloc() : memref<4x8x16x16xf16, #ascend.mem<l1>>
  %alloc_2 = memref.alloc() : memref<4x16x16x16xf16, #ascend.mem<l0b>>
  %alloc_3 = memref.alloc() : memref<8x4x16x16xf16, #ascend.mem<l0a>>
  %block_idx = ascend.block_idx : index
  %block_num = ascend.block_num : index
  scf.for %arg3 = %block_idx to %c4 step %block_num {
    %0 = arith.remui %arg3, %c2 : index
    %1 = arith.divui %arg3, %c2 : index
    %2 = arith.muli %1, %c128 : index
    ascend.copy_nd2nz %arg0[%2, %c0], %alloc_1 sizes [128, 64] : memref<256x64xf16, #ascend.mem<gm>>, memref<4x8x16x16xf16, #ascend.mem<l1>>
    %3 = arith.muli %0, %c256 : index
    ascend.copy_nd2nz %arg1[%c0, %3], %alloc_0 sizes [64, 256] : memref<64x512xf16, #ascend.mem<gm>>, memref<16x4x16x16xf16, #ascend.mem<l1>>
    ascend.load_l0a %alloc_1, %alloc_3 sizes [128, 64] : memref<4x8x16x16xf16, #ascend.mem<l1>>, memref<8x4x16x16xf16, #ascend.mem<l0a>>
    ascend.load_l0b %alloc_0, %alloc_2 sizes [64, 256] : memref<16x4x16x16xf16, #ascend.mem<l1>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>
    ascend.mmad %alloc_3, %alloc_2, %alloc sizes [128, 256, 64] {init} : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>, memref<16x8x16x16xf32, #ascend.mem<l0c>>
    ascend.fixpipe %alloc, %arg2[%2, %3] sizes [128, 256] : memref<16x8x16x16xf32, #ascend.mem<l0c>>, memref<256x512xf32, #ascend.mem<gm>>
  }
  return
}

// -----

// An accumulator that adds up every block of a core (its mmad reads what the
// previous block left) is not private to the grid loop: one slot.
// CHECK-LABEL: func.func @carried
// CHECK: memref.alloc() : memref<16x8x16x16xf32, #ascend.mem<l0c>>
// CHECK-NEXT: memref.alloc() : memref<8x4x16x16xf16, #ascend.mem<l0a>>
// CHECK-NOT: ascend.twin_copies
func.func @carried(%arg2: memref<128x256xf32, #ascend.mem<gm>>) attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %alloc = memref.alloc() : memref<16x8x16x16xf32, #ascend.mem<l0c>>
  %alloc_a = memref.alloc() : memref<8x4x16x16xf16, #ascend.mem<l0a>>
  %alloc_b = memref.alloc() : memref<4x16x16x16xf16, #ascend.mem<l0b>>
  %block_idx = ascend.block_idx : index
  %block_num = ascend.block_num : index
  scf.for %arg3 = %block_idx to %c4 step %block_num {
    ascend.mmad %alloc_a, %alloc_b, %alloc sizes [128, 256, 64] : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>, memref<16x8x16x16xf32, #ascend.mem<l0c>>
  }
  ascend.fixpipe %alloc, %arg2[%c0, %c0] sizes [128, 256] : memref<16x8x16x16xf32, #ascend.mem<l0c>>, memref<128x256xf32, #ascend.mem<gm>>
  return
}

// The K loop of the 950's slabs (its first mmad `init` under `%k == 0`, then
// unrolled by two for the slabs): read on its first iteration, the accumulator
// is written whole before it is read, so it is private to the grid loop too.
// KLOOP-LABEL: func.func @gemm
// KLOOP-COUNT-2: memref.alloc() : memref<16x8x16x16xf32, #ascend.mem<l0c>>
// KLOOP: } {ascend.multi_buffer_slots = 2 : i64, ascend.twin_copies}
