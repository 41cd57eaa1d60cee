// RUN: tile-opt %s --convert-tile-to-cuda --canonicalize --cse | filecheck %s

// A register tile is added by the threads that hold it, slot by slot,
// dropping elements past the end of the destination; a scalar is added once
// per block, by thread 0.
// CHECK-LABEL: func.func @atomic_add
// CHECK-SAME: (%[[G:arg[0-9]+]]: memref<?x?xf32>, %[[V:arg[0-9]+]]: f32
// CHECK: %[[R:.*]] = memref.alloca() {tile.cuda_layout = "cyclic"{{.*}}} : memref<2xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c8 : index
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c8 : index
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
// CHECK: %[[ROWS:.*]] = memref.dim %[[G]], %c0
// CHECK: arith.cmpi ult, %[[AT]], %[[ROWS]] : index
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[R]][%c0] : memref<2xf32>
// CHECK-NEXT: memref.atomic_rmw addf %[[X]], %[[G]][%[[AT]], %[[COL]]] : (f32, memref<?x?xf32>) -> f32
// CHECK: memref.load %[[R]][%c1] : memref<2xf32>
// CHECK: memref.atomic_rmw addf
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0 : index
// CHECK: %[[ONCE:.*]] = arith.andi %[[FIRST]], %{{.*}} : i1
// CHECK: scf.if %[[ONCE]] {
// CHECK-NEXT: memref.atomic_rmw addf %[[V]], %[[G]][%c0, %{{.*}}] : (f32, memref<?x?xf32>) -> f32
func.func @atomic_add(%G: memref<?x?xf32>, %v: f32, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %c0 = arith.constant 0 : index
    %r = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
    tile.fill %r, %v : memref<8x8xf32, #tile.scope<fragment>>, f32
    tile.atomic_add %r, %G[%bx, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<?x?xf32>
    tile.atomic_add %v, %G[%c0, %bx] : f32, memref<?x?xf32>
  }
  return
}
