// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// A 2-D grid is one grid-stride loop over its linearized blocks, the first
// dimension fastest; tiles are allocated once, before the loop.

// CHECK-LABEL: func.func @grid
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32, #ascend.mem<gm>>, %[[GX:.*]]: index, %[[GY:.*]]: index
// CHECK-SAME: attributes {ascend.kernel = #ascend.core<aiv>}
// CHECK: %[[T:.*]] = memref.alloc() : memref<16x32xf32, #ascend.mem<ub>>
// CHECK: %[[N:.*]] = arith.muli %[[GX]], %[[GY]] : index
// CHECK: %[[B0:.*]] = ascend.block_idx : index
// CHECK: %[[NB:.*]] = ascend.block_num : index
// CHECK: scf.for %[[B:.*]] = %[[B0]] to %[[N]] step %[[NB]] {
// CHECK:   %[[BX:.*]] = arith.remui %[[B]], %[[GX]] : index
// CHECK:   %[[BY:.*]] = arith.divui %[[B]], %[[GX]] : index
// CHECK:   ascend.copy %[[X]][%[[BY]], %[[BX]]], %[[T]]
// CHECK-NOT: tile.
func.func @grid(%x: memref<?x?xf32>, %gx: index, %gy: index) {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx, %by) in (%gx, %gy) threads = 128 {
    %t = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
    tile.copy %x[%by, %bx], %t[%c0, %c0] : memref<?x?xf32>, memref<16x32xf32, #tile.scope<ub>>
  }
  return
}

// -----

// A pipelined loop keeps its stage count for multi-buffering; one stage is a
// plain loop, and barriers are left to the flags.

// CHECK-LABEL: func.func @pipelined
// CHECK: scf.for {{.*}} {
// CHECK: } {tile.num_stages = 2 : i64}
// CHECK: scf.for {{.*}} {
// CHECK-NEXT: ascend.vdup
// CHECK-NEXT: }
// CHECK-NOT: tile.num_stages
// CHECK-NOT: tile.barrier
func.func @pipelined(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %t = tile.alloc : memref<64xf32, #tile.scope<ub>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      tile.fill %t, %v : memref<64xf32, #tile.scope<ub>>, f32
    }
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 1 {
      tile.fill %t, %v : memref<64xf32, #tile.scope<ub>>, f32
    }
    tile.barrier
  }
  return
}
