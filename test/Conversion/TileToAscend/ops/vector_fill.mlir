// RUN: tile-opt %s --convert-tile-to-ascend | filecheck %s

// CHECK-LABEL: func.func @fill
// CHECK-SAME: %[[T:.*]]: memref<4x20xf32, #ascend.mem<ub>>, %[[V:.*]]: f32, %[[I:.*]]: memref<16xi32, #ascend.mem<ub>>
// CHECK: ascend.vdup %[[T]], %[[V]] : memref<4x20xf32, #ascend.mem<ub>>, f32
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: ascend.vdup %[[I]], %[[ZERO]] : memref<16xi32, #ascend.mem<ub>>, i32
// CHECK-NOT: tile.
func.func @fill(%t: memref<4x20xf32, #tile.scope<ub>>, %v: f32, %i: memref<16xi32, #tile.scope<ub>>) {
  tile.fill %t, %v : memref<4x20xf32, #tile.scope<ub>>, f32
  tile.clear %i : memref<16xi32, #tile.scope<ub>>
  return
}
