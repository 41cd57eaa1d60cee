// The vector cores wait for a cross-core flag that the cube core never sets
// (it sets flag 1, they wait for flag 0): both AIVs stop at the wait.
//
// RUN: not tile-sim %s --arg ws=zeros:64x64xf32 --arg out=zeros:64x64xf32 2>&1 | filecheck %s

func.func @handoff(%ws: memref<?x64xf32, #ascend.mem<gm>>, %out: memref<?x64xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  ascend.core aic {
    ascend.cross_core_set_flag mode 2, mte2, 1
  }
  ascend.core aiv {
    %sub = ascend.sub_block_idx : index
    %row = arith.muli %sub, %c32 : index
    %tile = memref.alloc() : memref<32x64xf32, #ascend.mem<ub>>
    ascend.cross_core_wait_flag 0
    ascend.copy %ws[%row, %c0], %tile[%c0, %c0] sizes [32, 64]
        : memref<?x64xf32, #ascend.mem<gm>>, memref<32x64xf32, #ascend.mem<ub>>
    ascend.set_flag mte2 -> mte3, 0
    ascend.wait_flag mte2 -> mte3, 0
    ascend.copy %tile[%c0, %c0], %out[%row, %c0] sizes [32, 64]
        : memref<32x64xf32, #ascend.mem<ub>>, memref<?x64xf32, #ascend.mem<gm>>
  }
  return
}

// CHECK: deadlocks: 1
// CHECK: {{.*}}handoff-deadlock.mlir:17:5: error: deadlock: ascend.cross_core_wait_flag 0 on S of block 0 aiv0 (and on 1 more cores) waits for cross-core flag 0, which is never set
// CHECK: {{.*}}handoff-deadlock.mlir:17:5: note: block 0 aiv0 S: stalled at ascend.cross_core_wait_flag 0 since cycle 0
