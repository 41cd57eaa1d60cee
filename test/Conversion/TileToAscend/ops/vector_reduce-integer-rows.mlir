// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend=target=ascend:910b | filecheck %s
// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend=target=ascend:950 | filecheck %s --check-prefix=A5

// The 910b's ReduceMax and ReduceMin take f16 and f32, not i32, and i32 in f32
// is not exact above 2^24: the rows are combined element by element on the S
// pipe (signed, as the tile op means). The 950's ReduceMax takes i32.
// CHECK-LABEL: func.func @int_max
// CHECK-SAME: (%[[S:.*]]: memref<16x24xi32, #ascend.mem<ub>>, %[[D:.*]]: memref<16xi32, #ascend.mem<ub>>)
// CHECK-NOT: ascend.vreduce
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[FIRST:.*]] = memref.load %[[S]][%[[R]], %{{.*}}]
// CHECK: memref.store %[[FIRST]], %[[D]][%[[R]]]
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[X:.*]] = memref.load %[[S]][%[[R]], %[[C]]]
// CHECK: %[[OLD:.*]] = memref.load %[[D]][%[[R]]]
// CHECK: %[[NEW:.*]] = arith.maxsi %[[OLD]], %[[X]] : i32
// CHECK: memref.store %[[NEW]], %[[D]][%[[R]]]
// A5-LABEL: func.func @int_max
// A5: ascend.vreduce max
func.func @int_max(%s: memref<16x24xi32, #tile.scope<ub>>, %d: memref<16xi32, #tile.scope<ub>>) {
  tile.reduce max %s, %d dim = 1 clear = true : memref<16x24xi32, #tile.scope<ub>>, memref<16xi32, #tile.scope<ub>>
  return
}

// -----

// Without clear, the old result is the first operand of the first combine.
// CHECK-LABEL: func.func @int_min_accumulating
// CHECK: scf.for
// CHECK-NOT: memref.store
// CHECK: scf.for %{{.*}} = %[[ZERO:.*]] to
// CHECK: arith.minsi
// A5-LABEL: func.func @int_min_accumulating
// A5: ascend.vreduce min
func.func @int_min_accumulating(%s: memref<8x32xi32, #tile.scope<ub>>, %d: memref<8xi32, #tile.scope<ub>>) {
  tile.reduce min %s, %d dim = 1 clear = false : memref<8x32xi32, #tile.scope<ub>>, memref<8xi32, #tile.scope<ub>>
  return
}
