// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   --verify-diagnostics | filecheck %s

// A grouped GEMM's group id is read from a GM tensor the kernel never writes:
// the cube needs it for the weights' offset and the vector cores for the output
// rows. Both copies of the kernel read it themselves, so nothing is handed over.
// CHECK-LABEL: func.func @group_from_gm
// CHECK: scf.execute_region {
// CHECK: tile.kernel
// CHECK: %[[G:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK: arith.index_cast %[[G]]
// CHECK: tile.gemm
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK: tile.kernel
// CHECK: %[[G2:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<?xi32>
// CHECK-NOT: tile.gemm
// CHECK: tile.parallel
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @group_from_gm(%a: memref<32x32xf16>, %b: memref<?x32x32xf16>, %groups: memref<?xi32>,
                         %d: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %g32 = memref.load %groups[%bx] : memref<?xi32>
    %g = arith.index_cast %g32 : i32 to index
    %la = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %lb = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %la[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    %bg = memref.subview %b[%g, 0, 0] [1, 32, 32] [1, 1, 1] : memref<?x32x32xf16> to memref<32x32xf16, strided<[32, 1], offset: ?>>
    tile.copy %bg[%c0, %c0], %lb[%c0, %c0] : memref<32x32xf16, strided<[32, 1], offset: ?>>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %la, %lb, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %gf = arith.sitofp %g32 : i32 to f32
      %r = arith.mulf %v, %gf : f32
      memref.store %r, %d[%i, %j] : memref<32x32xf32>
    }
  }
  return
}

// -----

// The same read of a tensor the kernel also writes: one core could read it
// before the other's write lands, so the value stays on its side (and handing
// it over is not supported yet).
func.func @group_from_written_gm(%a: memref<32x32xf16>, %b: memref<?x32x32xf16>,
                                 %groups: memref<?xi32>, %d: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %g32 = memref.load %groups[%bx] : memref<?xi32>
    // expected-error @+1 {{tile-ascend-split-cores: 'arith.index_cast' on the other kind of core uses a value of 'memref.load'}}
    %g = arith.index_cast %g32 : i32 to index
    %la = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %lb = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %la[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    %bg = memref.subview %b[%g, 0, 0] [1, 32, 32] [1, 1, 1] : memref<?x32x32xf16> to memref<32x32xf16, strided<[32, 1], offset: ?>>
    tile.copy %bg[%c0, %c0], %lb[%c0, %c0] : memref<32x32xf16, strided<[32, 1], offset: ?>>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %la, %lb, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      memref.store %v, %d[%i, %j] : memref<32x32xf32>
      memref.store %zero, %groups[%bx] : memref<?xi32>
    }
  }
  return
}
