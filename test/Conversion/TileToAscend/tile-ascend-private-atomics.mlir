// RUN: tile-opt %s --tile-ascend-private-atomics | filecheck %s

// Scalar atomic adds into on-chip tiles (a vector core's own UB, whose threads
// run as its loops) become a load, an add and a store; `return_prev`'s value is
// the loaded one. Adds into global memory stay atomic: the DMA path adds them.

// CHECK-LABEL: func.func @histogram
// CHECK-NOT: tile.atomic_add %{{.*}}, %[[HIST:.*]][
// CHECK: %[[OLD:.*]] = memref.load %[[H:.*]][%[[BIN:.*]]] : memref<257xi32, #tile.scope<shared>>
// CHECK: %[[SUM:.*]] = arith.addi %[[OLD]], %{{.*}} : i32
// CHECK: memref.store %[[SUM]], %[[H]][%[[BIN]]] : memref<257xi32, #tile.scope<shared>>
// CHECK: %[[PREV:.*]] = memref.load %[[N:.*]][%{{.*}}] : memref<2xi32, #tile.scope<shared>>
// CHECK: %[[NEXT:.*]] = arith.addi %[[PREV]], %{{.*}} : i32
// CHECK: memref.store %[[NEXT]], %[[N]]
// CHECK: %[[P:.*]] = arith.index_cast %[[PREV]] : i32 to index
// CHECK: memref.store %{{.*}}, %{{.*}}[%[[P]]] : memref<?xi32>
// CHECK: %[[F:.*]] = memref.load %{{.*}} : memref<4xf32, #tile.scope<local>>
// CHECK: arith.addf %[[F]], %{{.*}} : f32
// CHECK: tile.atomic_add %{{.*}}, %{{.*}}[%{{.*}}] : i32, memref<?xi32>
// CHECK-NOT: memref.atomic_rmw
func.func @histogram(%out: memref<?xi32>, %bin: index, %x: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %hist = tile.alloc : memref<257xi32, #tile.scope<shared>>
    %n = tile.alloc : memref<2xi32, #tile.scope<shared>>
    %acc = tile.alloc : memref<4xf32, #tile.scope<local>>
    tile.atomic_add %one, %hist[%bin] : i32, memref<257xi32, #tile.scope<shared>>
    %pos = memref.atomic_rmw addi %one, %n[%c0] : (i32, memref<2xi32, #tile.scope<shared>>) -> i32
    %p = arith.index_cast %pos : i32 to index
    memref.store %one, %out[%p] : memref<?xi32>
    tile.atomic_add %x, %acc[%c1] : f32, memref<4xf32, #tile.scope<local>>
    tile.atomic_add %one, %out[%bin] : i32, memref<?xi32>
    tile.yield
  }
  return
}
