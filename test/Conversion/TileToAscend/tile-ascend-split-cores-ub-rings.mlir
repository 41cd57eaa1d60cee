// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles \
// RUN:   --tile-ascend-split-cores="target=ascend:950" | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-to-ascend="target=ascend:950" \
// RUN:   | filecheck %s --check-prefix=MIX

// On the 950 the fixpipe reaches UB: the accumulator handed to the vector
// epilogue goes through a ring of UB slots instead of a GM workspace (no new
// argument). The ring (2 slots of the 16 rows one AIV holds) is one alloc in
// front of the two cores' regions; the AIC's copy into slot k mod 2 (row
// 16 k) is marked as a dual-destination fixpipe of all 32 rows, each AIV
// copies its 16 rows out of the slot on the V pipe, where its flags wait
// and set. The AIVs store the epilogue's result from the half tile it
// wrote, so they copy their half out of the slot first.
// CHECK-LABEL: func.func @scale_epilogue
// CHECK-SAME: (%{{[^:]*}}: memref<?x32xf16>, %{{[^:]*}}: memref<32xf32>, %{{[^:]*}}: memref<?x32xf32>, %{{[^:]*}}: index) {
// CHECK: %[[RING:.*]] = memref.alloc() {ascend.ub_ring = 0 : i64} : memref<32x32xf32, #tile.scope<ub>>
// CHECK-NEXT: scf.execute_region {
// CHECK: %[[ACC:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: tile.gemm
// CHECK: %[[SLOT:.*]] = arith.remui
// CHECK: %[[ROW:.*]] = arith.muli %[[SLOT]], %c16
// CHECK: ascend.cross_core_wait_flag 1, fix {ascend.ub_ring = 0 : i64}
// CHECK: tile.copy %[[ACC]][%{{.*}}, %{{.*}}], %[[RING]][%[[ROW]], %{{.*}}] sizes [32, 32] {ascend.dual_dst} : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32, #tile.scope<ub>>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix, 0 {ascend.ub_ring = 0 : i64}
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: %[[HALF:.*]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: %[[AIV_SLOT:.*]] = arith.remui
// CHECK: %[[AIV_ROW:.*]] = arith.muli %[[AIV_SLOT]], %c16
// CHECK: ascend.cross_core_wait_flag 0, v {ascend.ub_ring = 0 : i64}
// CHECK-NEXT: tile.copy %[[RING]][%[[AIV_ROW]], %{{.*}}], %[[HALF]][%{{.*}}, %{{.*}}] : memref<32x32xf32, #tile.scope<ub>>, memref<16x32xf32, #tile.scope<ub>>
// CHECK: ascend.cross_core_set_flag mode 2, v, 1 {ascend.ub_ring = 0 : i64}
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (16, 32)
// CHECK: } {ascend.core_region = #ascend.core<aiv>}

// After the whole pipeline: the ring is planned (its bytes are the AIVs' for
// the whole kernel: their own buffers start after it) and its flags carry
// those bytes; the AIC's copy is one fixpipe into both AIVs' UBs.
// MIX-LABEL: func.func @scale_epilogue
// MIX-NOT: ascend.workspace
// MIX: %[[RING:.*]] = memref.alloc() {ascend.offset = 0 : i64, ascend.ub_ring = 0 : i64} : memref<32x32xf32, #ascend.mem<ub>>
// MIX-NEXT: ascend.core aic {
// MIX: ascend.cross_core_wait_flag 1, fix {ascend.guards = array<i64: 0, 4096>}
// MIX: ascend.fixpipe %{{.*}}, %[[RING]][%{{.*}}, %{{.*}}] sizes [32, 32] {dual_dst} : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<32x32xf32, #ascend.mem<ub>>
// MIX: ascend.cross_core_set_flag mode 2, fix, 0 {ascend.guards = array<i64: 0, 4096>}
// MIX: ascend.core aiv {
// MIX-NEXT: memref.alloc() {ascend.offset = 10240 : i64} : memref<32xf32, #ascend.mem<ub>>
// MIX-NEXT: memref.alloc() {ascend.offset = 4096 : i64} : memref<16x32xf32, #ascend.mem<ub>>
// MIX: ascend.cross_core_wait_flag 0, v {ascend.guards = array<i64: 0, 4096>}
// MIX: ascend.copy %[[RING]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] sizes [16, 32] : memref<32x32xf32, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<ub>>
// MIX: ascend.cross_core_set_flag mode 2, v, 1 {ascend.guards = array<i64: 0, 4096>}
func.func @scale_epilogue(%a: memref<?x32xf16>, %bias: memref<32xf32>, %c: memref<?x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %b = tile.alloc : memref<32xf32, #tile.scope<shared>>
    %row = arith.muli %bx, %c32 : index
    tile.copy %a[%row, %c0], %l[%c0, %c0] : memref<?x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %bias[%c0], %b[%c0] : memref<32xf32>, memref<32xf32, #tile.scope<shared>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %w = memref.load %b[%j] : memref<32xf32, #tile.scope<shared>>
      %s = arith.mulf %v, %two : f32
      %r = arith.addf %s, %w : f32
      memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %c[%row, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<?x32xf32>
  }
  return
}

// -----

// Where the AIVs only read the handed tile in vector work (the result goes to
// another tile), they work on their half of the slot itself: no copy out of
// it, and the slot is freed after the last of that work.
// CHECK-LABEL: func.func @epilogue_in_slot
// CHECK: %[[RING:.*]] = memref.alloc() {ascend.ub_ring = 0 : i64} : memref<32x32xf32, #tile.scope<ub>>
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: %[[OUT:.*]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK-NOT: tile.alloc
// CHECK: %[[INDEX:.*]] = arith.remui
// CHECK: %[[ROW:.*]] = arith.muli %[[INDEX]], %c16
// CHECK: ascend.cross_core_wait_flag 0, v {ascend.ub_ring = 0 : i64}
// CHECK-NEXT: %[[SLOT:.*]] = memref.subview %[[RING]][%[[ROW]], 0] [16, 32] [1, 1]
// CHECK-NEXT: tile.parallel (%[[I:.*]], %[[J:.*]]) in (16, 32) {
// CHECK: memref.load %[[SLOT]][%[[I]], %[[J]]]
// CHECK: memref.store %{{.*}}, %[[OUT]][%[[I]], %[[J]]]
// CHECK: }
// CHECK-NEXT: scf.if %{{.*}} {
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, v, 1 {ascend.ub_ring = 0 : i64}
// CHECK: tile.copy %[[OUT]]

// MIX-LABEL: func.func @epilogue_in_slot
// MIX: ascend.core aiv {
// MIX: ascend.cross_core_wait_flag 0, v
// MIX-NOT: ascend.copy
// MIX: ascend.vbins muls %{{.*}}, %{{.*}}, %{{.*}} : memref<16x32xf32, #ascend.mem<ub>>, memref<16x32xf32, strided<[32, 1], offset: ?>, #ascend.mem<ub>>, f32
// MIX: scf.if
// MIX-NEXT: ascend.cross_core_set_flag mode 2, v, 1
func.func @epilogue_in_slot(%a: memref<?x32xf16>, %c: memref<?x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %o = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %row = arith.muli %bx, %c32 : index
    tile.copy %a[%row, %c0], %l[%c0, %c0] : memref<?x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %s = arith.mulf %v, %two : f32
      memref.store %s, %o[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %o[%c0, %c0], %c[%row, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<?x32xf32>
  }
  return
}
