// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu=ops=tile.fill,tile.clear | filecheck %s

// A static 4x20 tile: two 8-lane splat stores in a loop and a 4-lane tail
// per row.
// CHECK-LABEL: func.func @fill_static
// CHECK-SAME: (%[[T:.*]]: memref<4x20xf32, #tile.scope<fragment>>, %[[V:.*]]: f32)
// CHECK: %[[S:.*]] = vector.broadcast %[[V]] : f32 to vector<8xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: vector.store %[[S]], %[[T]][%[[I]], %[[J]]] : memref<4x20xf32, #tile.scope<fragment>>, vector<8xf32>
// CHECK: %[[S4:.*]] = vector.broadcast %[[V]] : f32 to vector<4xf32>
// CHECK: vector.store %[[S4]], %[[T]][%[[I]], %{{.*}}] : memref<4x20xf32, #tile.scope<fragment>>, vector<4xf32>
// CHECK-NOT: tile.fill
func.func @fill_static(%t: memref<4x20xf32, #tile.scope<fragment>>, %v: f32) {
  tile.fill %t, %v : memref<4x20xf32, #tile.scope<fragment>>, f32
  return
}

// -----

// tile.clear stores zeros; a dynamic last dim ends in masked stores.
// CHECK-LABEL: func.func @clear_dynamic
// CHECK-SAME: (%[[G:.*]]: memref<?xi32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[N:.*]] = memref.dim %[[G]]
// CHECK: %[[S:.*]] = vector.broadcast %[[ZERO]] : i32 to vector<8xi32>
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %[[N]] step %{{.*}} {
// CHECK: %[[M:.*]] = vector.create_mask %{{.*}} : vector<8xi1>
// CHECK: vector.maskedstore %[[G]][%[[J]]], %[[M]], %[[S]] : memref<?xi32>, vector<8xi1>, vector<8xi32>
// CHECK-NOT: tile.clear
func.func @clear_dynamic(%g: memref<?xi32>) {
  tile.clear %g : memref<?xi32>
  return
}
