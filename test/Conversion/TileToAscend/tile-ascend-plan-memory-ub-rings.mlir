// RUN: tile-opt %s --tile-ascend-plan-memory="profile=950" | filecheck %s

// A UB ring of a mix kernel (the 950's handoff from L0C to UB) keeps its
// bytes for the whole function: the AIC's fixpipe writes them while the
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
