// RUN: tile-opt %s --convert-tile-to-cuda --canonicalize --cse | filecheck %s

// A 2-D grid is the launch's x and y (z is 1), the block's 64 threads are
// along x; the shared tiles are 128-byte aligned views of the dynamic shared
// memory (40 bytes at 0, 32 at 128: 160 bytes); a one-stage pipelined loop
// is an scf.for, and tile.barrier a gpu.barrier (merged with the fill's).
// CHECK-LABEL: func.func @grid
// CHECK-SAME: (%[[M:arg[0-9]+]]: index, %[[N:arg[0-9]+]]: index, %[[KT:arg[0-9]+]]: index)
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[SMEM:.*]] = arith.constant 160 : i32
// CHECK: gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[M]], %{{.*}} = %[[N]], %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C64]], %{{.*}} = %c1, %{{.*}} = %c1) dynamic_shared_memory_size %[[SMEM]] {
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK: %[[A:.*]] = memref.view %[[BASE]][%c0][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<10xf32, #gpu.address_space<workgroup>>
// CHECK: scf.for %[[K:.*]] = %c0 to %[[KT]] step %c1 {
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[A]]
// CHECK: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: gpu.terminator
func.func @grid(%m: index, %n: index, %kt: index) {
  tile.kernel blocks(%bx, %by) in (%m, %n) threads = 64 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = tile.alloc : memref<10xf32, #tile.scope<shared>>
    %b = tile.alloc : memref<4x4xf16, #tile.scope<shared>>
    %i = arith.addi %bx, %by : index
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 1 {
      %v = arith.index_cast %k : index to i32
      %f = arith.sitofp %v : i32 to f32
      tile.fill %a, %f : memref<10xf32, #tile.scope<shared>>, f32
      tile.barrier
    }
  }
  return
}
