// RUN: tile-opt %s -split-input-file --convert-tile-to-cuda --canonicalize --cse | filecheck %s

// Register tiles at the loop indices: the body runs once per slot of their
// layout (8x8 over 32 threads, cyclic: 2 slots), at the slot's coordinates
// (element tid + 32 * slot), reading and writing the slots; no barrier
// before the copy into %out, which the kernel writes.
// CHECK-LABEL: func.func @registers
// CHECK-SAME: (%[[G:arg[0-9]+]]: memref<?x?xf32>, %[[S:arg[0-9]+]]: f32
// CHECK-COUNT-2: memref.alloca() {tile.cuda_layout = "cyclic"{{.*}}} : memref<2xf32>
// CHECK-NOT: gpu.barrier
// CHECK: %[[V0:.*]] = memref.load %[[X:alloca[_0-9]*]][%c0] : memref<2xf32>
// CHECK-NEXT: %[[W0:.*]] = arith.mulf %[[V0]], %[[S]] : f32
// CHECK-NEXT: memref.store %[[W0]], %[[Y:alloca[_0-9]*]][%c0] : memref<2xf32>
// CHECK-NEXT: %[[V1:.*]] = memref.load %[[X]][%c1] : memref<2xf32>
// CHECK-NEXT: %[[W1:.*]] = arith.mulf %[[V1]], %[[S]] : f32
// CHECK-NEXT: memref.store %[[W1]], %[[Y]][%c1] : memref<2xf32>
// CHECK-NEXT: gpu.barrier
func.func @registers(%G: memref<?x?xf32>, %s: f32, %n: index, %out: memref<?x?xf32>) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %c0 = arith.constant 0 : index
    %x = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
    %y = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
    tile.copy %G[%c0, %c0], %x[%c0, %c0] : memref<?x?xf32>, memref<8x8xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (8, 8) {
      %v = memref.load %x[%i, %j] : memref<8x8xf32, #tile.scope<fragment>>
      %w = arith.mulf %v, %s : f32
      memref.store %w, %y[%i, %j] : memref<8x8xf32, #tile.scope<fragment>>
    }
    tile.copy %y[%c0, %c0], %out[%c0, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<?x?xf32>
  }
  return
}

// -----

// A tile read at another index (%row[%i] in a 2-D loop) is in shared memory:
// the points are dealt out from the thread id in steps of the thread count,
// between barriers.
// CHECK-LABEL: func.func @shared
// CHECK-DAG: %[[T:.*]] = memref.view {{.*}} to memref<4x16xf32, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[ROW:.*]] = memref.view {{.*}} to memref<4xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: scf.for %[[P:.*]] = %[[TID]] to %c64 step %c32 {
// CHECK: %[[J:.*]] = arith.remui %[[P]], %c16 : index
// CHECK: %[[I:.*]] = arith.divui %[[P]], %c16 : index
// CHECK: %[[R:.*]] = memref.load %[[ROW]][%[[I]]]
// CHECK: memref.store %[[R]], %[[T]][%[[I]], %[[J]]]
// CHECK: gpu.barrier
func.func @shared(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %row = tile.alloc : memref<4xf32, #tile.scope<fragment>>
    %t = tile.alloc : memref<4x16xf32, #tile.scope<shared>>
    tile.parallel (%i, %j) in (4, 16) {
      %r = memref.load %row[%i] : memref<4xf32, #tile.scope<fragment>>
      memref.store %r, %t[%i, %j] : memref<4x16xf32, #tile.scope<shared>>
    }
  }
  return
}
