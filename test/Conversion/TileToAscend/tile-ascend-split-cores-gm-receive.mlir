// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-to-ascend="target=ascend:910b" | filecheck %s --check-prefix=MIX

// On the 910b the AIVs receive a handed-down tile from a GM slot. When the
// kernel copies the L0C tile whole into the UB tile its vector work uses
// (attention's scores, which a reduce reads), the DMA out of the slot
// writes that tile itself: no half tile for the slot's copy, no UB -> UB
// copy after it.
// CHECK-LABEL: func.func @received_into_working_tile
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: tile.kernel
// CHECK: %[[WORK:.*]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK-NOT: tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %[[WORK]][%{{.*}}, %{{.*}}] : memref<?x32xf32>, memref<16x32xf32, #tile.scope<ub>>
// CHECK-NOT: tile.copy %{{.*}}, %[[WORK]]
// CHECK: tile.reduce max %[[WORK]]
// MIX-LABEL: func.func @received_into_working_tile
// MIX: ascend.core aiv {
// MIX-NOT: memref<16x32xf32, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<ub>>
// MIX: ascend.copy %{{.*}}, %[[W:.*]][%{{.*}}, %{{.*}}] sizes [16, 32] : memref<?x32xf32, #ascend.mem<gm>>, memref<16x32xf32, #ascend.mem<ub>>
// MIX-NOT: memref<16x32xf32, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<ub>>
// MIX: ascend.vreduce max %{{.*}}, %[[W]]
// MIX-NOT: memref<16x32xf32, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<ub>>
// MIX: return
func.func @received_into_working_tile(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %m = tile.alloc : memref<32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %s clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.reduce max %s, %m dim = 1 : memref<32x32xf32, #tile.scope<fragment>>, memref<32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %w = memref.load %m[%i] : memref<32xf32, #tile.scope<fragment>>
      %d = arith.subf %v, %w : f32
      memref.store %d, %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %s[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// A copy that casts (f32 -> f16) keeps the slot's half tile: the DMA out
// of GM does not convert.
// CHECK-LABEL: func.func @cast_keeps_its_copy
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: tile.kernel
// CHECK-DAG: %[[WORK:.*]] = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
// CHECK-DAG: %[[HALF:.*]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %[[HALF]][%{{.*}}, %{{.*}}] : memref<?x32xf32>
// CHECK: tile.copy %[[HALF]][%{{.*}}, %{{.*}}], %[[WORK]][%{{.*}}, %{{.*}}]
// MIX-LABEL: func.func @cast_keeps_its_copy
// MIX: ascend.core aiv {
// MIX: ascend.vcast %{{.*}}, %{{.*}} round rint : memref<16x32xf16, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<ub>>
func.func @cast_keeps_its_copy(%a: memref<32x32xf16>, %c: memref<32x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f16
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %work = tile.alloc : memref<32x32xf16, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %work[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %work[%i, %j] : memref<32x32xf16, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f16
      memref.store %s, %work[%i, %j] : memref<32x32xf16, #tile.scope<fragment>>
    }
    tile.copy %work[%c0, %c0], %c[%c0, %c0] : memref<32x32xf16, #tile.scope<fragment>>, memref<32x32xf16>
  }
  return
}
