// RUN: tile-opt %s --tile-ascend-place-tiles --tile-ascend-split-cores | filecheck %s

// Six tiles handed down in one block need twelve cross-core flags and the 910b
// has eleven: the first two share a pair. The AIC waits for the pair's "free"
// before the first copy and sets "ready" after the second; the AIVs wait for
// "ready" before copying the first out and set "free" after copying the second.
// The pair's flags guard both workspaces (arguments 2 and 3); the other rings
// keep pairs of their own.
// CHECK-LABEL: func.func @shared_flags
// CHECK: tile.gemm
// CHECK: ascend.cross_core_wait_flag 1, fix {ascend.guards = [2, 3]}
// CHECK: tile.copy %{{.*}}, %arg2
// CHECK-NOT: ascend.cross_core
// CHECK: tile.gemm
// CHECK: tile.copy %{{.*}}, %arg3
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix, 0 {ascend.guards = [2, 3]}
// CHECK: ascend.cross_core_wait_flag 3, fix {ascend.guards = 4 : i64}
// CHECK: ascend.cross_core_set_flag mode 2, fix, 8 {ascend.guards = 7 : i64}
// CHECK: ascend.core_region = #ascend.core<aic>
// CHECK: ascend.cross_core_wait_flag 0, mte2 {ascend.guards = [2, 3]}
// CHECK: tile.copy %arg2
// CHECK-NOT: ascend.cross_core
// CHECK: tile.copy %arg3
// CHECK-NEXT: scf.if
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte2, 1 {ascend.guards = [2, 3]}
// CHECK: ascend.cross_core_set_flag mode 2, mte2, 9 {ascend.guards = 7 : i64}
// CHECK: ascend.core_region = #ascend.core<aiv>
func.func @shared_flags(%a: memref<32x32xf16>, %c: memref<6x32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %g0 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g1 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g2 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g3 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g4 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g5 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %g0 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g0[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %g0[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i0 = arith.constant 0 : index
    tile.copy %g0[%c0, %c0], %c[%i0, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %l, %g1 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g1[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %g1[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i1 = arith.constant 1 : index
    tile.copy %g1[%c0, %c0], %c[%i1, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %l, %g2 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %g2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i2 = arith.constant 2 : index
    tile.copy %g2[%c0, %c0], %c[%i2, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %l, %g3 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g3[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %g3[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i3 = arith.constant 3 : index
    tile.copy %g3[%c0, %c0], %c[%i3, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %l, %g4 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g4[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %g4[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i4 = arith.constant 4 : index
    tile.copy %g4[%c0, %c0], %c[%i4, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
    tile.gemm %l, %l, %g5 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %g5[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %g5[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %i5 = arith.constant 5 : index
    tile.copy %g5[%c0, %c0], %c[%i5, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<6x32x32xf32>
  }
  return
}
