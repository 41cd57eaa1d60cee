// RUN: tile-opt %s -split-input-file -verify-diagnostics | filecheck %s

// A dual-destination fixpipe writes M/2 rows into each AIV's UB: the UB
// buffer holds M/2 x N from the offsets on.
// CHECK-LABEL: func.func @dual_dst
// CHECK: ascend.fixpipe %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] sizes [32, 32] {dual_dst} : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<32x32xf32, #ascend.mem<ub>>
func.func @dual_dst() attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %ring = memref.alloc() : memref<32x32xf32, #ascend.mem<ub>>
  ascend.core aic {
    %acc = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
    ascend.fixpipe %acc, %ring[%c16, %c0] sizes [32, 32] {dual_dst}
        : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<32x32xf32, #ascend.mem<ub>>
  }
  return
}
