// RUN: tile-opt %s -split-input-file --tile-cpu-hoist-allocas | filecheck %s

// A static alloca in a loop moves to the function entry.
// CHECK-LABEL: func.func @loop
// CHECK-NEXT: %[[T:.*]] = memref.alloca() : memref<64xf32>
// CHECK: scf.for
// CHECK-NOT: memref.alloca
// CHECK: memref.store %{{.*}}, %[[T]]
func.func @loop(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = memref.alloca() : memref<64xf32>
    memref.store %v, %t[%c0] : memref<64xf32>
  }
  return
}

// -----

// Iterations of an scf.parallel may run at once: the alloca stays in the
// parallel body (moved to its start), and a dynamic alloca stays put.
// CHECK-LABEL: func.func @parallel
// CHECK: scf.parallel
// CHECK-NEXT: %[[T:.*]] = memref.alloca() : memref<64xf32>
// CHECK: scf.for
// CHECK: memref.alloca(%{{.*}}) : memref<?xf32>
func.func @parallel(%n: index, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.parallel (%b) = (%c0) to (%n) step (%c1) {
    scf.for %i = %c0 to %n step %c1 {
      %t = memref.alloca() : memref<64xf32>
      %d = memref.alloca(%n) : memref<?xf32>
      memref.store %v, %t[%c0] : memref<64xf32>
      memref.store %v, %d[%c0] : memref<?xf32>
    }
    scf.reduce
  }
  return
}
