// RUN: tile-opt %s --convert-tile-to-cuda --canonicalize | filecheck %s

// The kernel is a gpu.launch of 64 threads with the shared tiles' bytes of
// dynamic shared memory; the fragment is a private array of 128 / 64 = 2
// slots per thread, element tid + 64 * slot. Its copies and the parallel
// loop touch only the thread's slots (no barrier); the copy into shared
// memory is between barriers, and the scalar store of the kernel body is
// made by thread 0 alone. The copy into %Y, which the kernel writes, is
// between barriers too.
// CHECK-LABEL: func.func @scale
// CHECK-SAME: (%[[X:arg[0-9]+]]: memref<?xf32>, %[[Y:arg[0-9]+]]: memref<?xf32>, %[[N:arg[0-9]+]]: index, %[[S:arg[0-9]+]]: f32)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[SMEM:.*]] = arith.constant 512 : i32
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %[[N]], %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) threads(%{{.*}}) in (%{{.*}} = %[[C64]], %{{.*}}) dynamic_shared_memory_size %[[SMEM]] {
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[SH:.*]] = memref.view %[[BASE]][%{{.*}}][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: %[[REGS:.*]] = memref.alloca() {tile.cuda_layout = "cyclic", tile.cuda_shape = array<i64: 128>, tile.cuda_threads = 64 : i64} : memref<2xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: memref.load %[[X]]
// CHECK: memref.store %{{.*}}, %[[REGS]][%c0] : memref<2xf32>
// CHECK: memref.store %{{.*}}, %[[REGS]][%c1] : memref<2xf32>
// CHECK-NOT: gpu.barrier
// CHECK: %[[V:.*]] = memref.load %[[REGS]][%c0] : memref<2xf32>
// CHECK: %[[W:.*]] = arith.mulf %[[V]], %[[S]] : f32
// CHECK: memref.store %[[W]], %[[REGS]][%c0] : memref<2xf32>
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[SH]][%{{.*}}] : memref<128xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK: scf.if %[[FIRST]] {
// CHECK-NEXT: memref.store %[[S]], %[[SH]][%c0]
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %[[C64]] {
// CHECK: gpu.barrier
// CHECK-NEXT: gpu.terminator
// CHECK-NOT: tile.
func.func @scale(%X: memref<?xf32>, %Y: memref<?xf32>, %n: index, %s: f32) {
  tile.kernel blocks(%bx) in (%n) threads = 64 {
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %i = arith.muli %bx, %c128 : index
    %t = tile.alloc : memref<128xf32, #tile.scope<fragment>>
    %sh = tile.alloc : memref<128xf32, #tile.scope<shared>>
    tile.copy %X[%i], %t[%c0] : memref<?xf32>, memref<128xf32, #tile.scope<fragment>>
    tile.parallel (%j) in (128) {
      %v = memref.load %t[%j] : memref<128xf32, #tile.scope<fragment>>
      %w = arith.mulf %v, %s : f32
      memref.store %w, %t[%j] : memref<128xf32, #tile.scope<fragment>>
    }
    tile.copy %t[%c0], %sh[%c0] : memref<128xf32, #tile.scope<fragment>>, memref<128xf32, #tile.scope<shared>>
    memref.store %s, %sh[%c0] : memref<128xf32, #tile.scope<shared>>
    tile.copy %sh[%c0], %Y[%i] : memref<128xf32, #tile.scope<shared>>, memref<?xf32>
  }
  return
}
