// RUN: tile-opt %s -split-input-file --tile-ascend-split-aivs | filecheck %s

// `T.Kernel(4, is_npu=True, threads=2)` over a vector-only body: each block becomes
// two blocks of the grid (block b's halves are 2b and 2b + 1), each with half of
// the 64 rows of the tile; its tile.parallel runs on 32 rows and its copies move
// that half's rows (the global row offset plus 32 times the half).

// CHECK-LABEL: func.func @scale
// CHECK:       %[[C8:.*]] = arith.constant 8 : index
// CHECK:       tile.kernel blocks(%[[B:.*]]) in (%[[C8]])
// CHECK-NOT:     ascend.aiv_split
// CHECK-NEXT:    %[[T:.*]] = tile.alloc : memref<32x16xf32, #tile.scope<ub>>
// CHECK-NEXT:    %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:    %[[HALF:.*]] = arith.remui %[[B]], %[[TWO]]
// CHECK-NEXT:    %[[ROWS:.*]] = arith.constant 32 : index
// CHECK-NEXT:    %[[SHIFT:.*]] = arith.muli %[[HALF]], %[[ROWS]]
// CHECK-NEXT:    %[[CID:.*]] = arith.divui %[[B]], %[[TWO]]
// CHECK-NEXT:    %[[R:.*]] = arith.muli %[[CID]]
// CHECK-NEXT:    %[[IN:.*]] = arith.addi %[[R]], %[[SHIFT]]
// CHECK-NEXT:    tile.copy %{{.*}}[%[[IN]], %{{.*}}], %[[T]]
// CHECK-NEXT:    tile.parallel (%{{.*}}, %{{.*}}) in (32, 16)
// CHECK:         %[[OUT:.*]] = arith.addi %[[R]], %[[SHIFT]]
// CHECK-NEXT:    tile.copy %[[T]][%{{.*}}, %{{.*}}], %{{.*}}[%[[OUT]], %{{.*}}]
func.func @scale(%A: memref<256x16xf32>, %B: memref<256x16xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%cid) in (%c4) threads = 128 attributes {ascend.aiv_split} {
    %t = tile.alloc : memref<64x16xf32, #tile.scope<ub>>
    %r = arith.muli %cid, %c64 : index
    tile.copy %A[%r, %c0], %t[%c0, %c0] : memref<256x16xf32>, memref<64x16xf32, #tile.scope<ub>>
    tile.parallel (%i, %j) in (64, 16) {
      %x = memref.load %t[%i, %j] : memref<64x16xf32, #tile.scope<ub>>
      %y = arith.addf %x, %x : f32
      memref.store %y, %t[%i, %j] : memref<64x16xf32, #tile.scope<ub>>
    }
    tile.copy %t[%c0, %c0], %B[%r, %c0] : memref<64x16xf32, #tile.scope<ub>>, memref<256x16xf32>
  }
  return
}

// -----

// The column sums of the block go to global memory whole (an atomic add): both halves
// would add them, so the block stays on one AIV, as do one of odd rows and one
// without the mark (`threads=1`).

// CHECK-LABEL: func.func @whole
// CHECK-COUNT-3: tile.alloc : memref<{{64|33}}x16xf32, #tile.scope<ub>>
// CHECK-NOT:   ascend.aiv_split
// CHECK-NOT:   arith.remui
func.func @whole(%A: memref<64x16xf32>, %S: memref<16xf32>, %C: memref<66x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.kernel blocks(%cid) in (%c1) threads = 128 attributes {ascend.aiv_split} {
    %t = tile.alloc : memref<64x16xf32, #tile.scope<ub>>
    %s = tile.alloc : memref<16xf32, #tile.scope<ub>>
    tile.copy %A[%c0, %c0], %t[%c0, %c0] : memref<64x16xf32>, memref<64x16xf32, #tile.scope<ub>>
    tile.reduce sum %t, %s dim = 0 : memref<64x16xf32, #tile.scope<ub>>, memref<16xf32, #tile.scope<ub>>
    tile.atomic_add %s, %S[%c0] : memref<16xf32, #tile.scope<ub>>, memref<16xf32>
  }
  tile.kernel blocks(%cid) in (%c2) threads = 128 attributes {ascend.aiv_split} {
    %t = tile.alloc : memref<33x16xf32, #tile.scope<ub>>
    tile.copy %C[%c0, %c0], %t[%c0, %c0] : memref<66x16xf32>, memref<33x16xf32, #tile.scope<ub>>
    tile.copy %t[%c0, %c0], %C[%c0, %c0] : memref<33x16xf32, #tile.scope<ub>>, memref<66x16xf32>
  }
  tile.kernel blocks(%cid) in (%c1) threads = 128 {
    %t = tile.alloc : memref<64x16xf32, #tile.scope<ub>>
    tile.copy %A[%c0, %c0], %t[%c0, %c0] : memref<64x16xf32>, memref<64x16xf32, #tile.scope<ub>>
    tile.copy %t[%c0, %c0], %A[%c0, %c0] : memref<64x16xf32, #tile.scope<ub>>, memref<64x16xf32>
  }
  return
}
