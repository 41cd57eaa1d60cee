// RUN: tile-opt %s --convert-tile-to-cuda --canonicalize --cse | filecheck %s

// A register tile (8x8 f32 over 32 threads, cyclic: 2 slots) is filled slot
// by slot, with no barrier; a shared tile is cleared element by element from
// the thread id in steps of the thread count, between barriers.
// CHECK-LABEL: func.func @fill
// CHECK-SAME: (%[[G:arg[0-9]+]]: memref<?x?xf32>, %[[V:arg[0-9]+]]: f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f16
// CHECK: %[[S:.*]] = memref.view {{.*}} to memref<40xf16, #gpu.address_space<workgroup>>
// CHECK: %[[R:.*]] = memref.alloca() {tile.cuda_layout = "cyclic", tile.cuda_shape = array<i64: 8, 8>, tile.cuda_threads = 32 : i64} : memref<2xf32>
// CHECK-NEXT: memref.store %[[V]], %[[R]][%c0] : memref<2xf32>
// CHECK-NEXT: memref.store %[[V]], %[[R]][%c1] : memref<2xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT: scf.for %[[E:.*]] = %[[TID]] to %c40 step %c32 {
// CHECK-NEXT: memref.store %[[ZERO]], %[[S]][%[[E]]] : memref<40xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
func.func @fill(%G: memref<?x?xf32>, %v: f32, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %c0 = arith.constant 0 : index
    %r = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
    %s = tile.alloc : memref<40xf16, #tile.scope<shared>>
    tile.fill %r, %v : memref<8x8xf32, #tile.scope<fragment>>, f32
    tile.clear %s : memref<40xf16, #tile.scope<shared>>
    tile.copy %r[%c0, %c0], %G[%c0, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<?x?xf32>
  }
  return
}
