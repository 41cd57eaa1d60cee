// RUN: tile-opt %s --tile-ascend-place-tiles --tile-ascend-split-cores | filecheck %s

// Views in a mix kernel: a view of a tile is on the tile's side (the copy
// into a view of an L1 tile is cube work), a view of a GM tensor is on both
// sides (here only the AIC's copy uses it; the AIV's unused copy is dead).
// CHECK-LABEL: func.func @views
// CHECK: scf.execute_region {
// CHECK: %[[G:.*]] = memref.subview %{{.*}}[0, 0, 0] [1, 32, 32] [1, 1, 1]
// CHECK: %[[L:.*]] = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
// CHECK: %[[V:.*]] = memref.expand_shape %[[L]]
// CHECK: tile.copy %[[G]][%{{.*}}, %{{.*}}, %{{.*}}], %[[V]]
// CHECK: tile.gemm %[[L]], %[[L]]
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK-NOT: memref.expand_shape
// CHECK-NOT: tile.gemm
// CHECK: tile.parallel
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @views(%a: memref<2x32x32xf16>, %c: memref<?x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %g = memref.subview %a[0, 0, 0] [1, 32, 32] [1, 1, 1] : memref<2x32x32xf16> to memref<1x32x32xf16, strided<[1024, 32, 1]>>
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %v = memref.expand_shape %l [[0, 1], [2]] output_shape [1, 32, 32] : memref<32x32xf16, #tile.scope<shared>> into memref<1x32x32xf16, #tile.scope<shared>>
    tile.copy %g[%c0, %c0, %c0], %v[%c0, %c0, %c0] : memref<1x32x32xf16, strided<[1024, 32, 1]>>, memref<1x32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %x = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %y = arith.mulf %x, %two : f32
      memref.store %y, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    %row = arith.muli %bx, %c32 : index
    tile.copy %acc[%c0, %c0], %c[%row, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<?x32xf32>
  }
  return
}
