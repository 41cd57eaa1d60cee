// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   | filecheck %s

// A handoff in an `scf.while` (stream-K walks its iterations with one): each
// core's copy of the loop carries a trip counter (0 on entry, +1 per trip)
// that numbers the slots of the ring, as an `scf.for`'s induction variable
// does. The AIC waits for a free slot from the third trip on and, after the
// loop, for the last min(trips, 2) "free" sets, its trip count being the
// counter's result; the AIVs free their slot on every trip.
// CHECK-LABEL: func.func @handoff_in_a_while
// CHECK: scf.execute_region {
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: %[[W:.*]]:2 = scf.while (%[[ROW:.*]] = %c0, %[[T:.*]] = %[[Z]]) : (index, index) -> (index, index) {
// CHECK: scf.condition(%{{.*}}) %[[ROW]], %[[T]] : index, index
// CHECK: ^bb0(%[[ROW2:.*]]: index, %[[T2:.*]]: index):
// CHECK: tile.gemm
// CHECK: %[[SLOT:.*]] = arith.remui %[[T2]], %{{.*}} : index
// CHECK: %[[REUSED:.*]] = arith.cmpi uge, %[[T2]], %{{.*}} : index
// CHECK: scf.if %[[REUSED]] {
// CHECK-NEXT: ascend.cross_core_wait_flag 1, fix
// CHECK: tile.copy %{{.*}}, %arg3[
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK: %[[NEXT:.*]] = arith.addi %[[T2]], %{{.*}} : index
// CHECK: scf.yield %{{.*}}, %[[NEXT]] : index, index
// CHECK-NOT: ascend.trip_counter
// CHECK: %[[PENDING:.*]] = arith.minui %[[W]]#1, %{{.*}} : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[PENDING]] step
// CHECK-NEXT: ascend.cross_core_wait_flag 1, fix
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK: scf.while (%{{.*}} = %c0, %{{.*}} = %{{.*}}) : (index, index) -> (index, index) {
// CHECK: ^bb0(%{{.*}}: index, %[[U:.*]]: index):
// CHECK: arith.remui %[[U]], %{{.*}} : index
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK: tile.copy %arg3[
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte2, 1
// CHECK: tile.parallel
// CHECK: arith.addi %[[U]], %{{.*}} : index
// CHECK-NOT: ascend.trip_counter
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @handoff_in_a_while(%a: memref<?x32xf16>, %c: memref<?x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %end = scf.while (%row = %c0) : (index) -> index {
      %more = arith.cmpi slt, %row, %n : index
      scf.condition(%more) %row : index
    } do {
    ^bb0(%row: index):
      tile.copy %a[%row, %c0], %l[%c0, %c0] : memref<?x32xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %r = arith.mulf %v, %two : f32
        memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.copy %acc[%c0, %c0], %c[%row, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<?x32xf32>
      %next = arith.addi %row, %c32 : index
      scf.yield %next : index
    }
  }
  return
}
