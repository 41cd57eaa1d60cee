// RUN: tile-opt %s --tile-ascend-place-tiles --tile-ascend-split-cores | filecheck %s
// RUN: tile-opt %s --tile-to-ascend="target=ascend:910b" | filecheck %s --check-prefix=MIX
// RUN: tile-opt %s --tile-to-ascend="target=ascend:950" | filecheck %s --check-prefix=MIX

// A state handed down before the gemm that adds to it (linear attention's h,
// copied into a gemm operand at the top of each chunk) holds the zeros of its
// clear on the first trip, which no fixpipe can copy (a clear is no
// instruction). The copy moves to the end of the trip before, after the
// gemm: the AIVs fill their half of the staged tile with zeros before the
// loop, and at the end of each trip but the last they take the state the
// AIC hands down after its gemm.
// CHECK-LABEL: func.func @state_handed_before_its_gemm
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[N:.*]] step %[[STEP:[^ ]*]] {
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[H:.*]] : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
// CHECK: tile.gemm
// CHECK: tile.copy %[[H]][%{{.*}}, %{{.*}}], %arg4
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix
// CHECK-NEXT: }
// CHECK: ascend.core_region = #ascend.core<aic>
// CHECK: %[[STAGED:.*]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: tile.fill %[[STAGED]], %{{.*}} : memref<16x32xf32, #tile.scope<ub>>, f32
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %[[M:.*]] step %[[S:[^ ]*]] {
// CHECK: tile.copy %[[STAGED]][%{{.*}}, %{{.*}}], %arg3
// CHECK: %[[NEXT:.*]] = arith.addi %[[J]], %[[S]] : index
// CHECK-NEXT: %[[AGAIN:.*]] = arith.cmpi slt, %[[NEXT]], %[[M]] : index
// CHECK: tile.copy %arg4[%{{.*}}, %{{.*}}], %[[HALF:.*]][%{{.*}}, %{{.*}}]
// CHECK: scf.if %[[AGAIN]] {
// CHECK-NEXT: tile.copy %[[HALF]][%{{.*}}, %{{.*}}], %[[STAGED]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: ascend.core_region = #ascend.core<aiv>
// MIX-LABEL: func.func @state_handed_before_its_gemm
// MIX-SAME: ascend.kernel = #ascend.core<mix>
func.func @state_handed_before_its_gemm(%a: memref<32x32xf16>, %c: memref<?x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %r = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %h = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %hs = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %o = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %r[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.clear %h : memref<32x32xf32, #tile.scope<fragment>>
    scf.for %k = %c0 to %n step %c1 {
      tile.copy %h[%c0, %c0], %hs[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<shared>>
      tile.gemm %l, %r, %h : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.gemm %hs, %r, %o clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      %row = arith.muli %k, %c1 : index
      tile.copy %o[%c0, %c0], %c[%row, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<?x32xf32>
    }
  }
  return
}
