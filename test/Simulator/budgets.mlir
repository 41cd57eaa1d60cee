// A loop that never ends, a huge loop bound, grid or input: tile-sim stops at
// a budget with an error that names it and how to raise it, and exit code 1.
//
// RUN: not tile-sim %s --arg out=zeros:8xf32 --max-steps 1000 2>&1 | filecheck %s --check-prefix=STEPS
// RUN: not tile-sim %s --arg out=zeros:100000000000xf32 2>&1 | filecheck %s --check-prefix=MEMORY
// RUN: not tile-sim %s --arg out=zeros:8xf32 --max-memory 64K 2>&1 | filecheck %s --check-prefix=ONCHIP
// RUN: not tile-sim %s --arg out=zeros:8xf32 --block-dim 100000 2>&1 | filecheck %s --check-prefix=BLOCKS
// RUN: not tile-sim %s --arg out=zeros:8xf32 --max-cycles 0 2>&1 | filecheck %s --check-prefix=OPTION

func.func @spin(%out: memref<?xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %r = scf.while (%i = %c0) : (index) -> index {
    %go = arith.cmpi sge, %i, %c0 : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    %k = arith.addi %j, %c1 : index
    scf.yield %k : index
  }
  return
}

// STEPS: budgets.mlir:{{1[5-9]|2[01]}}:{{[0-9]+}}: error: the simulation used up its budget of 1000 interpreted steps (block 0 aiv0 is at this op); raise the limit with --max-steps=N (tile-sim) or max_steps=N (simulate)
// MEMORY: budgets.mlir:10:1: error: argument %out needs 400000000000 bytes, and the memory budget of 4294967296 bytes has 4294967296 left; raise the limit with --max-memory=N (tile-sim) or max_memory=N (simulate)
// 64 KiB less the argument's 32 bytes and one core's race-detector clocks (392):
// ONCHIP: budgets.mlir:14:9: error: the ub of block 0 aiv0 needs 196608 bytes, and the memory budget of 65536 bytes has 65112 left; raise the limit with --max-memory=N
// BLOCKS: budgets.mlir:10:1: error: block_dim 100000 is over the block budget of 1024 blocks; raise the limit with --max-blocks=N
// OPTION: tile-sim: error: argument --max-cycles: must be at least 1, not 0
