// RUN: tile-opt %s -split-input-file --tile-cuda-distribute-thread-loops | filecheck %s

// Thread t runs iteration t of each loop over the threads, between barriers; the
// (threads, 8) tile whose rows the loops read at their own thread is one private row
// per thread, its subviews casts of it; its fill stays the thread's own.
// CHECK-LABEL: func.func @rows
// CHECK: %[[ROW:.*]] = tile.alloc {tile.cuda_placement = "private"} : memref<8xf32, #tile.scope<local>>
// CHECK-NOT: memref<64x8xf32
// CHECK: tile.barrier
// CHECK-NEXT: %[[TID:.*]] = gpu.thread_id x
// CHECK-NEXT: %[[STEP:.*]] = arith.constant 64 : index
// CHECK-NEXT: scf.for %[[T:.*]] = %[[TID]] to %{{.*}} step %[[STEP]] {
// CHECK-NEXT: %[[VIEW:.*]] = memref.cast %[[ROW]] : memref<8xf32, #tile.scope<local>> to memref<8xf32, strided<[1], offset: ?>, #tile.scope<local>>
// CHECK-NEXT: tile.clear %[[VIEW]]
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[T]]] : memref<64xf32, #tile.scope<shared>>
// CHECK: } {tile.cuda_per_thread}
// CHECK-NEXT: tile.barrier
// CHECK: memref.load %[[ROW]][%[[K:.*]]] : memref<8xf32, #tile.scope<local>>
// CHECK: } {tile.cuda_per_thread}
// CHECK-NEXT: tile.barrier
func.func @rows(%A: memref<512xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 64 {
    %rows = tile.alloc : memref<64x8xf32, #tile.scope<local>>
    %c0 = arith.constant 0 : index
    %c3 = arith.constant 3 : index
    %c64 = arith.constant 64 : index
    %s = tile.alloc : memref<64xf32, #tile.scope<shared>>
    scf.for %t = %c0 to %c64 step %c1 {
      %row = memref.subview %rows[%t, 0] [1, 8] [1, 1] : memref<64x8xf32, #tile.scope<local>> to memref<8xf32, strided<[1], offset: ?>, #tile.scope<local>>
      tile.clear %row : memref<8xf32, strided<[1], offset: ?>, #tile.scope<local>>
      %v = memref.load %row[%c0] : memref<8xf32, strided<[1], offset: ?>, #tile.scope<local>>
      memref.store %v, %s[%t] : memref<64xf32, #tile.scope<shared>>
    } {tile.threads}
    scf.for %t = %c0 to %c64 step %c1 {
      %v = memref.load %rows[%t, %c3] : memref<64x8xf32, #tile.scope<local>>
      memref.store %v, %A[%t] : memref<512xf32>
    } {tile.threads}
  }
  return
}

// -----

// A loop holding a tile op of the block (a copy into the thread's tile) stays a loop
// that every thread runs; the (threads, 8) tile it and a distributed loop read is moved to
// shared memory, where the lowering of that loop keeps it.
// CHECK-LABEL: func.func @block_op
// CHECK: %[[ROWS:.*]] = tile.alloc : memref<64x8xf32, #tile.scope<shared>>
// CHECK: scf.for
// CHECK: memref.subview %[[ROWS]]{{.*}} to memref<8xf32, strided<[1], offset: ?>, #tile.scope<shared>>
// CHECK: tile.copy
// CHECK: } {tile.threads}
// CHECK: gpu.thread_id x
// CHECK: memref.load %[[ROWS]]
// CHECK: } {tile.cuda_per_thread}
func.func @block_op(%A: memref<64x8xf32>, %B: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 64 {
    %rows = tile.alloc : memref<64x8xf32, #tile.scope<local>>
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    scf.for %t = %c0 to %c64 step %c1 {
      %row = memref.subview %rows[%t, 0] [1, 8] [1, 1] : memref<64x8xf32, #tile.scope<local>> to memref<8xf32, strided<[1], offset: ?>, #tile.scope<local>>
      tile.copy %A[%t, %c0], %row[%c0] sizes [1, 8] : memref<64x8xf32>, memref<8xf32, strided<[1], offset: ?>, #tile.scope<local>>
    } {tile.threads}
    scf.for %t = %c0 to %c64 step %c1 {
      %v = memref.load %rows[%t, %c0] : memref<64x8xf32, #tile.scope<local>>
      memref.store %v, %B[%t] : memref<64xf32>
    } {tile.threads}
  }
  return
}
