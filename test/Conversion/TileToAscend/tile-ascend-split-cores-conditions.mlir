// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   | filecheck %s

// A handoff under an `if` on a kernel scalar: both cores run the `if`, the
// branch that hands the tile over keeps the copy and its flags, the other
// branch exchanges the same flags without the copy, so every grid trip waits
// and sets each flag once whichever way it goes.
// CHECK-LABEL: func.func @handoff_in_a_condition
// CHECK: scf.execute_region {
// CHECK: scf.if %arg2 {
// CHECK: tile.gemm
// CHECK: ascend.cross_core_wait_flag 1, fix
// CHECK: tile.copy %{{.*}}, %arg3[
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK: } else {
// CHECK-NOT: tile.copy
// CHECK: ascend.cross_core_wait_flag 1, fix
// CHECK-NOT: tile.copy
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK-NEXT: }
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK: scf.if %arg2 {
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK: tile.copy %arg3[
// CHECK: ascend.cross_core_set_flag mode 2, mte2, 1
// CHECK: tile.parallel
// CHECK: } else {
// CHECK-NOT: tile.copy
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK-NOT: tile.copy
// CHECK: ascend.cross_core_set_flag mode 2, mte2, 1
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @handoff_in_a_condition(%a: memref<32x32xf16>, %c: memref<32x32xf32>, %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    scf.if %p {
      tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %r = arith.mulf %v, %two : f32
        memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
    }
  }
  return
}

// -----

// Block-sparse attention's shape: in the key loop, an `if` on a mask row the
// kernel copied into a tile (which only the vector cores hold) from a tensor
// it only reads. Each core reads the mask element from the tensor itself
// (past its end: the copy's zero pad), so both take the same branch; the S
// handoff's flags are in both branches, the drain after the loop unchanged.
// CHECK-LABEL: func.func @handoff_under_a_mask
// CHECK: scf.execute_region {
// CHECK: scf.for %[[K:.*]] = %c0 to %c4 step %c1 {
// CHECK: %[[IN:.*]] = arith.cmpi ult, %{{.*}}, %{{.*}} : index
// CHECK: %[[M:.*]] = scf.if %{{.*}} -> (i8) {
// CHECK: memref.load %arg1[%{{.*}}, %{{.*}}] : memref<?x4xi8>
// CHECK: %[[ON:.*]] = arith.cmpi ne
// CHECK: scf.if %[[ON]] {
// CHECK: tile.gemm
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK: } else {
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK: scf.for
// CHECK: ascend.cross_core_wait_flag 1, fix
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK-NOT: tile.copy %arg1
// CHECK: scf.for
// CHECK: memref.load %arg1[%{{.*}}, %{{.*}}] : memref<?x4xi8>
// CHECK: scf.if
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK: tile.copy %arg3[
// CHECK: tile.parallel
// CHECK: } else {
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte2, 1
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @handoff_under_a_mask(%a: memref<32x32xf16>, %mask: memref<?x4xi8>,
                                %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0 : i8
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %sum = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %row = tile.alloc : memref<4xi8, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.clear %sum : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %mask[%bx, %c0], %row[%c0] sizes [1, 4] : memref<?x4xi8>, memref<4xi8, #tile.scope<fragment>>
    scf.for %k = %c0 to %c4 step %c1 {
      %m = memref.load %row[%k] : memref<4xi8, #tile.scope<fragment>>
      %on = arith.cmpi ne, %m, %zero : i8
      scf.if %on {
        tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
        tile.parallel (%i, %j) in (32, 32) {
          %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
          %s = memref.load %sum[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
          %r = arith.addf %v, %s : f32
          memref.store %r, %sum[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        }
      }
    }
    tile.copy %sum[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}
