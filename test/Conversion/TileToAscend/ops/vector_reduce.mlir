// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// Along the last dim: one vreduce; clear = false folds the old result in.

// CHECK-LABEL: func.func @row_max
// CHECK-SAME: %[[S:.*]]: memref<16x128xf32, #ascend.mem<ub>>, %[[M:.*]]: memref<16xf32, #ascend.mem<ub>>
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
// CHECK: ascend.vreduce max %[[TMP]], %[[S]]
// CHECK: ascend.vbin max %[[M]], %[[M]], %[[TMP]]
func.func @row_max(%s: memref<16x128xf32, #tile.scope<ub>>, %m: memref<16xf32, #tile.scope<ub>>) {
  tile.reduce max %s, %m dim = 1 clear = false : memref<16x128xf32, #tile.scope<ub>>, memref<16xf32, #tile.scope<ub>>
  return
}

// -----

// abssum takes the absolute values first.

// CHECK-LABEL: func.func @row_abssum
// CHECK-SAME: %[[S:.*]]: memref<4x32xf16, #ascend.mem<ub>>, %[[M:.*]]: memref<4xf16, #ascend.mem<ub>>
// CHECK: ascend.vunary abs %[[ABS:.*]], %[[S]]
// CHECK: ascend.vreduce sum %[[M]], %[[ABS]]
func.func @row_abssum(%s: memref<4x32xf16, #tile.scope<ub>>, %m: memref<4xf16, #tile.scope<ub>>) {
  tile.reduce abssum %s, %m dim = 1 : memref<4x32xf16, #tile.scope<ub>>, memref<4xf16, #tile.scope<ub>>
  return
}

// -----

// Along another dim: rows 0 and 1 combined, then a loop over the rest.

// CHECK-LABEL: func.func @column_sum
// CHECK-SAME: %[[S:.*]]: memref<8x64xf32, #ascend.mem<ub>>, %[[D:.*]]: memref<64xf32, #ascend.mem<ub>>
// CHECK: %[[R0:.*]] = memref.subview %[[S]][0, 0] [1, 64] [1, 1]
// CHECK: %[[R1:.*]] = memref.subview %[[S]][1, 0] [1, 64] [1, 1]
// CHECK: ascend.vbin add %[[D]], %[[R0]], %[[R1]]
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[RI:.*]] = memref.subview %[[S]][%[[I]], 0] [1, 64] [1, 1]
// CHECK: ascend.vbin add %[[D]], %[[D]], %[[RI]]
func.func @column_sum(%s: memref<8x64xf32, #tile.scope<ub>>, %d: memref<64xf32, #tile.scope<ub>>) {
  tile.reduce sum %s, %d dim = 0 : memref<8x64xf32, #tile.scope<ub>>, memref<64xf32, #tile.scope<ub>>
  return
}

// -----

// A cumsum along the last dim runs element by element on the scalar unit: its
// columns are strided, and a vector instruction (AscendC's Add) reads consecutive
// elements.

// CHECK-LABEL: func.func @cumsum_columns
// CHECK-SAME: %[[S:.*]]: memref<4x16xf32, #ascend.mem<ub>>, %[[D:.*]]: memref<4x16xf32, #ascend.mem<ub>>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[FIRST:.*]] = memref.load %[[S]][%[[I]], %{{.*}}]
// CHECK: memref.store %[[FIRST]], %[[D]][%[[I]], %{{.*}}]
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[PREV:.*]] = arith.subi %[[J]], %{{.*}} : index
// CHECK: %[[TOTAL:.*]] = memref.load %[[D]][%[[I]], %[[PREV]]]
// CHECK: %[[X:.*]] = memref.load %[[S]][%[[I]], %[[J]]]
// CHECK: %[[SUM:.*]] = arith.addf %[[TOTAL]], %[[X]] : f32
// CHECK: memref.store %[[SUM]], %[[D]][%[[I]], %[[J]]]
// CHECK-NOT: ascend.vbin
func.func @cumsum_columns(%s: memref<4x16xf32, #tile.scope<ub>>, %d: memref<4x16xf32, #tile.scope<ub>>) {
  tile.cumsum %s, %d dim = 1 : memref<4x16xf32, #tile.scope<ub>>, memref<4x16xf32, #tile.scope<ub>>
  return
}

// -----

// CHECK-LABEL: func.func @cumsum_rows_reverse
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[POS:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK: ascend.vbin add
func.func @cumsum_rows_reverse(%s: memref<4x16xi32, #tile.scope<ub>>) {
  tile.cumsum %s, %s dim = 0 reverse = true : memref<4x16xi32, #tile.scope<ub>>, memref<4x16xi32, #tile.scope<ub>>
  return
}
