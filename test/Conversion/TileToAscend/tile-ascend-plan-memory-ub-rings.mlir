// RUN: tile-opt %s -split-input-file --tile-ascend-plan-memory="target=ascend:950" | filecheck %s

// A UB ring of a mix kernel (the 950's handoff from L0C to UB) keeps its
// bytes for the whole kernel: the AIC's fixpipe writes them while the
// AIVs run any part of their program, so %late, live only after the AIVs'
// last use of the ring, does not take them. The ring's flags get its bytes.
// CHECK-LABEL: func.func @ring
// CHECK: memref.alloc() {ascend.offset = 0 : i64, ascend.ub_ring = 0 : i64} : memref<16x32xf32, #ascend.mem<ub>>
// CHECK: ascend.cross_core_wait_flag 1, fix {ascend.guards = array<i64: 0, 2048>}
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0 {ascend.guards = array<i64: 0, 2048>}
// CHECK: memref.alloc() {ascend.offset = 2048 : i64} : memref<16x32xf32, #ascend.mem<ub>>
// CHECK: ascend.cross_core_wait_flag 0, v {ascend.guards = array<i64: 0, 2048>}
// CHECK: ascend.cross_core_set_flag mode 2, v, 1 {ascend.guards = array<i64: 0, 2048>}
func.func @ring(%out: memref<16x32xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  %ring = memref.alloc() {ascend.ub_ring = 0 : i64} : memref<16x32xf32, #ascend.mem<ub>>
  ascend.core aic {
    %acc = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
    ascend.cross_core_wait_flag 1, fix {ascend.ub_ring = 0 : i64}
    ascend.fixpipe %acc, %ring[%c0, %c0] sizes [32, 32] {dual_dst}
        : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<16x32xf32, #ascend.mem<ub>>
    ascend.cross_core_set_flag mode 2, fix, 0 {ascend.ub_ring = 0 : i64}
  }
  ascend.core aiv {
    %late = memref.alloc() : memref<16x32xf32, #ascend.mem<ub>>
    ascend.cross_core_wait_flag 0, v {ascend.ub_ring = 0 : i64}
    ascend.copy %ring[%c0, %c0], %out[%c0, %c0] sizes [16, 32]
        : memref<16x32xf32, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<gm>>
    ascend.cross_core_set_flag mode 2, v, 1 {ascend.ub_ring = 0 : i64}
    ascend.copy %out[%c0, %c0], %late[%c0, %c0] sizes [16, 32]
        : memref<16x32xf32, #ascend.mem<gm>>, memref<16x32xf32, #ascend.mem<ub>>
    ascend.copy %late[%c0, %c0], %out[%c0, %c0] sizes [16, 32]
        : memref<16x32xf32, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<gm>>
  }
  return
}

// -----

// Two mix kernels run one after the other (fused MoE's gate/up kernel, then
// its down kernel): each ring is live over its own kernel's AIC and AIV
// regions only, so the second kernel's ring and its AIVs' buffer may take
// the bytes of the first kernel's ring.
// CHECK-LABEL: func.func @rings_of_two_kernels
// CHECK: memref.alloc() {ascend.offset = 0 : i64, ascend.ub_ring = 0 : i64} : memref<16x32xf32, #ascend.mem<ub>>
// CHECK: ascend.core aiv {
// CHECK: memref.alloc() {ascend.offset = 2048 : i64, ascend.ub_ring = 1 : i64} : memref<8x32xf32, #ascend.mem<ub>>
// CHECK: ascend.core aiv {
// CHECK-NEXT: ascend.sync_all
// CHECK-NEXT: memref.alloc() {ascend.offset = 0 : i64} : memref<16x32xf32, #ascend.mem<ub>>
func.func @rings_of_two_kernels(%out: memref<16x32xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  %first = memref.alloc() {ascend.ub_ring = 0 : i64} : memref<16x32xf32, #ascend.mem<ub>>
  ascend.core aic {
    %acc = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
    ascend.fixpipe %acc, %first[%c0, %c0] sizes [32, 32] {dual_dst}
        : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<16x32xf32, #ascend.mem<ub>>
  }
  ascend.core aiv {
    ascend.copy %first[%c0, %c0], %out[%c0, %c0] sizes [16, 32]
        : memref<16x32xf32, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<gm>>
  }
  %second = memref.alloc() {ascend.ub_ring = 1 : i64} : memref<8x32xf32, #ascend.mem<ub>>
  ascend.core aic {
    ascend.sync_all
    %acc = memref.alloc() : memref<2x1x16x16xf32, #ascend.mem<l0c>>
    ascend.fixpipe %acc, %second[%c0, %c0] sizes [16, 32] {dual_dst}
        : memref<2x1x16x16xf32, #ascend.mem<l0c>>, memref<8x32xf32, #ascend.mem<ub>>
  }
  ascend.core aiv {
    ascend.sync_all
    %work = memref.alloc() : memref<16x32xf32, #ascend.mem<ub>>
    ascend.copy %second[%c0, %c0], %work[%c0, %c0] sizes [8, 32]
        : memref<8x32xf32, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<ub>>
    ascend.copy %work[%c0, %c0], %out[%c0, %c0] sizes [16, 32]
        : memref<16x32xf32, #ascend.mem<ub>>, memref<16x32xf32, #ascend.mem<gm>>
  }
  return
}
