// RUN: tile-opt %s --convert-tile-to-cpu=ops=tile.parallel | filecheck %s

// The region becomes a loop nest with the body in the innermost loop.
// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%[[T:.*]]: memref<4x8xf32, {{.*}}>, %[[S:.*]]: f32)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[T]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[S]] : f32
// CHECK-NEXT: memref.store %[[Y]], %[[T]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NOT: tile.parallel
func.func @scale(%t: memref<4x8xf32, #tile.scope<fragment>>, %s: f32) {
  tile.parallel (%i, %j) in (4, 8) {
    %x = memref.load %t[%i, %j] : memref<4x8xf32, #tile.scope<fragment>>
    %y = arith.mulf %x, %s : f32
    memref.store %y, %t[%i, %j] : memref<4x8xf32, #tile.scope<fragment>>
  }
  return
}
