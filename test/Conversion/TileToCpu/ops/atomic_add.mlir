// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu=ops=tile.atomic_add | filecheck %s

// A tile added into a dynamic buffer: one atomic_rmw per element, skipped
// past the end of dst.
// CHECK-LABEL: func.func @tile_into_dynamic
// CHECK-SAME: (%[[OUT:.*]]: memref<?x?xf32>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[ROW:.*]] = arith.addi %[[I]], %[[R]] : index
// CHECK: %[[COL:.*]] = arith.addi %[[J]], %[[C]] : index
// CHECK: arith.cmpi ult, %[[ROW]]
// CHECK: arith.cmpi ult, %[[COL]]
// CHECK: %[[OK:.*]] = arith.andi
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[R]], %[[C]]]
// CHECK: scf.if %[[OK]] {
// CHECK: memref.atomic_rmw addf %[[V]], %[[OUT]][%[[ROW]], %[[COL]]] : (f32, memref<?x?xf32>) -> f32
// CHECK-NOT: tile.atomic_add
func.func @tile_into_dynamic(%out: memref<?x?xf32>, %i: index, %j: index) {
  %t = tile.alloc : memref<2x4xf32, #tile.scope<fragment>>
  tile.atomic_add %t, %out[%i, %j] : memref<2x4xf32, #tile.scope<fragment>>, memref<?x?xf32>
  return
}

// -----

// A scalar into a static buffer at a constant in-bounds offset needs no check.
// CHECK-LABEL: func.func @scalar_static
// CHECK-NOT: scf.if
// CHECK: memref.atomic_rmw addi %{{.*}}, %{{.*}}[%{{.*}}] : (i32, memref<4xi32>) -> i32
func.func @scalar_static(%sum: memref<4xi32>, %v: i32) {
  %c3 = arith.constant 3 : index
  tile.atomic_add %v, %sum[%c3] : i32, memref<4xi32>
  return
}

// -----

// Bools marked by tile-widen-bools are or-ed; 8-bit floats are added in f32 in a
// compare-and-swap loop and rounded.
// CHECK-LABEL: func.func @bytes
// CHECK: memref.atomic_rmw ori %{{.*}}, %{{.*}}[%{{.*}}] : (i8, memref<?xi8>) -> i8
// CHECK: memref.generic_atomic_rmw %{{.*}}[%{{.*}}] : memref<?xf8E4M3FN> {
// CHECK: ^bb0(%[[OLD:.*]]: f8E4M3FN):
// CHECK: %[[WIDE:.*]] = arith.extf %[[OLD]] : f8E4M3FN to f32
// CHECK: %[[SUM:.*]] = arith.addf %[[WIDE]], %{{.*}} : f32
// CHECK: %[[NEW:.*]] = arith.truncf %[[SUM]] : f32 to f8E4M3FN
// CHECK: memref.atomic_yield %[[NEW]] : f8E4M3FN
func.func @bytes(%flags: memref<?xi8>, %b: i8, %sums: memref<?xf8E4M3FN>, %v: f8E4M3FN,
                 %i: index) {
  tile.atomic_add %b, %flags[%i] {tile.bool_any} : i8, memref<?xi8>
  tile.atomic_add %v, %sums[%i] : f8E4M3FN, memref<?xf8E4M3FN>
  return
}
