// RUN: tile-opt %s --tile-ascend-place-tiles --tile-ascend-split-cores | filecheck %s
// RUN: tile-opt %s --tile-to-ascend="target=ascend:910b" | filecheck %s --check-prefix=MIX

// A gather: the vector cores copy row j of a tile they split by rows from
// global memory, one copy per row at a row the code computes (an index read
// from GM). Each AIV holds 8 of the 16 rows, so the copy of row j runs on
// the AIV whose half holds it, into row j - 8 * sub_block of its half; the
// global offset stays the row's own.
// CHECK-LABEL: func.func @row_gather
// CHECK: core_region = #ascend.core<aic>
// CHECK: %[[ROWS:.*]] = tile.alloc : memref<8x32xf16, #tile.scope<ub>>
// CHECK: tile.alloc : memref<8x32xf16, #tile.scope<ub>>
// CHECK: %[[SUB:.*]] = ascend.sub_block_idx
// CHECK: %[[HALF:.*]] = arith.muli %[[SUB]], %c8
// CHECK: scf.for %[[J:.*]] = %c0 to %c16 step %c1 {
// CHECK: %[[AT:.*]] = arith.index_cast
// CHECK: %[[LOCAL:.*]] = arith.subi %[[J]], %[[HALF]] : index
// CHECK: %[[HELD:.*]] = arith.cmpi ult, %[[LOCAL]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[HELD]] {
// CHECK-NEXT: tile.copy %arg0[%[[AT]]], %[[ROWS]][%[[LOCAL]], %c0] sizes [1, 32] : memref<?xf16>, memref<8x32xf16, #tile.scope<ub>>
// CHECK-NEXT: }
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (8, 32)
// CHECK: core_region = #ascend.core<aiv>
// MIX-LABEL: func.func @row_gather
// MIX-SAME: ascend.kernel = #ascend.core<mix>
// MIX: scf.if
// MIX: ascend.copy %{{.*}}, %{{.*}} sizes [1, 32] : memref<1x?xf16, #ascend.mem<gm>>, memref<8x32xf16, #ascend.mem<ub>>
func.func @row_gather(%a: memref<?xf16>, %idx: memref<16xi32>, %b: memref<32x32xf16>,
                      %c: memref<16x32xf32>) {
  %two = arith.constant 2.000000e+00 : f16
  %c32_i32 = arith.constant 32 : i32
  %c16 = arith.constant 16 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %rows = tile.alloc : memref<16x32xf16, #tile.scope<fragment>>
    %k = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
    %bt = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<16x32xf32, #tile.scope<fragment>>
    scf.for %j = %c0 to %c16 step %c1 {
      %i = memref.load %idx[%j] : memref<16xi32>
      %row = arith.muli %i, %c32_i32 : i32
      %at = arith.index_cast %row : i32 to index
      tile.copy %a[%at], %rows[%j, %c0] sizes [1, 32] : memref<?xf16>, memref<16x32xf16, #tile.scope<fragment>>
    }
    tile.parallel (%i, %d) in (16, 32) {
      %v = memref.load %rows[%i, %d] : memref<16x32xf16, #tile.scope<fragment>>
      %w = arith.mulf %v, %two : f16
      memref.store %w, %k[%i, %d] : memref<16x32xf16, #tile.scope<shared>>
    }
    tile.copy %b[%c0, %c0], %bt[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %k, %bt, %acc clear_accum : memref<16x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<16x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<16x32xf32, #tile.scope<fragment>>, memref<16x32xf32>
  }
  return
}
