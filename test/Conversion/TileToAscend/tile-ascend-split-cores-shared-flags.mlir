// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   | filecheck %s

// Six tiles handed down need twelve cross-core flags as pairs of ids and the
// 910b has eleven: each handoff takes one id for both its "ready" (the AIC's
// set, counted by the AIVs) and its "free" (the AIVs' set, counted by the AIC).
// CHECK-LABEL: func.func @one_id_each
// CHECK: tile.gemm
// CHECK: ascend.cross_core_wait_flag 0, fix {ascend.guards = 2 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: tile.copy %{{.*}}, %arg2
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix, 0 {ascend.guards = 2 : i64}
// CHECK: ascend.cross_core_wait_flag 5, fix {ascend.guards = 7 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: tile.copy %{{.*}}, %arg7
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix, 5 {ascend.guards = 7 : i64}
// CHECK: ascend.core_region = #ascend.core<aic>
// CHECK: ascend.cross_core_wait_flag 0, mte2 {ascend.guards = 2 : i64}
// CHECK: tile.copy %arg2
// CHECK: ascend.cross_core_set_flag mode 2, mte2, 0 {ascend.guards = 2 : i64}
// CHECK: ascend.cross_core_wait_flag 5, mte2 {ascend.guards = 7 : i64}
// CHECK: tile.copy %arg7
// CHECK: ascend.cross_core_set_flag mode 2, mte2, 5 {ascend.guards = 7 : i64}
// CHECK: ascend.core_region = #ascend.core<aiv>
func.func @one_id_each(%a: memref<32x32xf16>, %c: memref<6x32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %r = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %g0 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g1 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g2 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g3 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g4 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g5 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %r[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %r, %g0 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g0[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g0[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i0 = arith.constant 0 : index
    tile.copy %g0[%c0, %c0], %c[%i0, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %r, %g1 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g1[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g1[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i1 = arith.constant 1 : index
    tile.copy %g1[%c0, %c0], %c[%i1, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %r, %g2 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i2 = arith.constant 2 : index
    tile.copy %g2[%c0, %c0], %c[%i2, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %r, %g3 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g3[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g3[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i3 = arith.constant 3 : index
    tile.copy %g3[%c0, %c0], %c[%i3, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %r, %g4 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g4[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g4[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i4 = arith.constant 4 : index
    tile.copy %g4[%c0, %c0], %c[%i4, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %r, %g5 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g5[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g5[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i5 = arith.constant 5 : index
    tile.copy %g5[%c0, %c0], %c[%i5, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
  }
  return
}

// -----

// Twelve tiles handed down in one block need twelve ids, one more than the
// 910b has: the first two share one. The AIC waits for its "free" before the
// first copy and sets "ready" after the second; the AIVs wait for "ready"
// before copying the first out and set "free" after copying the second. The
// shared id guards both workspaces (arguments 2 and 3); the other rings keep
// ids of their own.
// CHECK-LABEL: func.func @shared_flags
// CHECK: tile.gemm
// CHECK: ascend.cross_core_wait_flag 0, fix {ascend.guards = [2, 3]}
// CHECK: tile.copy %{{.*}}, %arg2
// CHECK-NOT: ascend.cross_core
// CHECK: tile.gemm
// CHECK: tile.copy %{{.*}}, %arg3
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix, 0 {ascend.guards = [2, 3]}
// CHECK: ascend.cross_core_wait_flag 1, fix {ascend.guards = 4 : i64}
// CHECK: ascend.cross_core_set_flag mode 2, fix, 10 {ascend.guards = 13 : i64}
// CHECK: ascend.core_region = #ascend.core<aic>
// CHECK: ascend.cross_core_wait_flag 0, mte2 {ascend.guards = [2, 3]}
// CHECK: tile.copy %arg2
// CHECK-NOT: ascend.cross_core
// CHECK: tile.copy %arg3
// CHECK-NEXT: scf.if
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte2, 0 {ascend.guards = [2, 3]}
// CHECK: ascend.cross_core_set_flag mode 2, mte2, 10 {ascend.guards = 13 : i64}
// CHECK: ascend.core_region = #ascend.core<aiv>
func.func @shared_flags(%a: memref<32x32xf16>, %c: memref<12x32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %r = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %g0 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g1 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g2 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g3 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g4 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g5 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g6 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g7 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g8 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g9 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g10 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g11 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %r[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %r, %g0 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g0[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g0[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i0 = arith.constant 0 : index
    tile.copy %g0[%c0, %c0], %c[%i0, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g1 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g1[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g1[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i1 = arith.constant 1 : index
    tile.copy %g1[%c0, %c0], %c[%i1, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g2 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i2 = arith.constant 2 : index
    tile.copy %g2[%c0, %c0], %c[%i2, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g3 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g3[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g3[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i3 = arith.constant 3 : index
    tile.copy %g3[%c0, %c0], %c[%i3, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g4 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g4[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g4[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i4 = arith.constant 4 : index
    tile.copy %g4[%c0, %c0], %c[%i4, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g5 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g5[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g5[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i5 = arith.constant 5 : index
    tile.copy %g5[%c0, %c0], %c[%i5, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g6 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g6[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g6[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i6 = arith.constant 6 : index
    tile.copy %g6[%c0, %c0], %c[%i6, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g7 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g7[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g7[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i7 = arith.constant 7 : index
    tile.copy %g7[%c0, %c0], %c[%i7, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g8 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g8[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g8[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i8 = arith.constant 8 : index
    tile.copy %g8[%c0, %c0], %c[%i8, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g9 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g9[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g9[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i9 = arith.constant 9 : index
    tile.copy %g9[%c0, %c0], %c[%i9, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g10 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g10[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g10[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i10 = arith.constant 10 : index
    tile.copy %g10[%c0, %c0], %c[%i10, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    tile.gemm %l, %r, %g11 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g11[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %g11[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i11 = arith.constant 11 : index
    tile.copy %g11[%c0, %c0], %c[%i11, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
  }
  return
}
