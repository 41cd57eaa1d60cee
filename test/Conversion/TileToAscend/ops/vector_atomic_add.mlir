// RUN: tile-opt %s --convert-tile-to-ascend | filecheck %s
// RUN: tile-opt %S/../Inputs/atomic-column-sums.mlir --tile-to-ascend="target=ascend:910b" | filecheck %s --check-prefix=SYNC
// RUN: tile-opt %S/../Inputs/atomic-column-sums.mlir --tile-to-ascend="target=ascend:910b" | tile-sim - --kernel column_sums \
// RUN:     --arg arange:20x8xf32 --arg zeros:8xf32 --arg zeros:4xi32 --block-dim 3 --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM
// RUN: tile-opt %S/../Inputs/atomic-column-sums.mlir --tile-to-ascend="target=ascend:950" | tile-sim - --profile 950 --kernel column_sums \
// RUN:     --arg arange:20x8xf32 --arg zeros:8xf32 --arg zeros:4xi32 --block-dim 2 --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM

// A UB tile is added with one atomic UB -> GM copy of the tile's extent at
// the region's offsets; a scalar goes through a one-element UB temporary.
// CHECK-LABEL: func.func @forms
// CHECK-SAME: (%[[T:.*]]: memref<16x64xf16, #ascend.mem<ub>>, %[[OUT:.*]]: memref<?x?xf16, #ascend.mem<gm>>, %[[SUM:.*]]: memref<?xi32, #ascend.mem<gm>>, %[[I:.*]]: index, %[[V:.*]]: i32)
// CHECK: %[[ONE:.*]] = memref.alloc() : memref<1xi32, #ascend.mem<ub>>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: ascend.copy %[[T]][%[[C0]], %[[C0]]], %[[OUT]][%[[I]], %[[I]]] sizes [16, 64] atomic_add : memref<16x64xf16, #ascend.mem<ub>>, memref<?x?xf16, #ascend.mem<gm>>
// CHECK: ascend.vdup %[[ONE]], %[[V]] : memref<1xi32, #ascend.mem<ub>>, i32
// CHECK: ascend.copy %[[ONE]][%{{.*}}], %[[SUM]][%[[I]]] sizes [1] atomic_add : memref<1xi32, #ascend.mem<ub>>, memref<?xi32, #ascend.mem<gm>>
// CHECK-NOT: tile.
func.func @forms(%t: memref<16x64xf16, #tile.scope<ub>>, %out: memref<?x?xf16>, %sum: memref<?xi32>,
                 %i: index, %v: i32) {
  tile.atomic_add %t, %out[%i, %i] : memref<16x64xf16, #tile.scope<ub>>, memref<?x?xf16>
  tile.atomic_add %v, %sum[%i] : i32, memref<?xi32>
  return
}

// The whole pipeline on Inputs/atomic-column-sums.mlir: every block of a
// ragged grid (20 rows in tiles of 8) adds the column sums of its rows into
// one vector, and counts its rows (one scalar add per row, in a scalar loop)
// into a histogram of row / 8. The reduction's result (V) is flagged before the atomic store reads it
// (v -> mte3), and the UB temporary of the scalar add is not rewritten by
// the next vdup before the store of the previous point has read it
// (mte3 -> v).
// SYNC-LABEL: func.func @column_sums
// SYNC: ascend.vbin add
// SYNC: ascend.set_flag v -> mte3
// SYNC: ascend.wait_flag v -> mte3
// SYNC-NEXT: ascend.copy {{.*}} atomic_add : memref<8xf32, #ascend.mem<ub>>, memref<8xf32, #ascend.mem<gm>>
// SYNC: scf.for
// SYNC: ascend.wait_flag mte3 -> v
// SYNC: ascend.vdup
// SYNC: ascend.set_flag v -> mte3
// SYNC: ascend.wait_flag v -> mte3
// SYNC-NEXT: ascend.copy {{.*}} sizes [1] atomic_add : memref<1xi32, #ascend.mem<ub>>, memref<4xi32, #ascend.mem<gm>>
// SYNC: ascend.set_flag mte3 -> v

// Column j sums 20 rows of arange: 8 * 190 + 20 j; the 20 rows fall in
// bins 0, 1, 2 (8, 8 and 4 rows); no race among the unordered adds of the
// blocks.
// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM: %arg1 = [1520. 1540. 1560. 1580. 1600. 1620. 1640. 1660.]
// SIM: %arg2 = [8 8 4 0]
