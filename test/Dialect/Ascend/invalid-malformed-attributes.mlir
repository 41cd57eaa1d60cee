// Discardable attributes the ascend passes and the emitter read are checked where
// they are read: one of the wrong kind (hand-written or damaged IR) is an error at
// the op that carries it, never an internal error.
//
// RUN: not tile-opt %s --tile-ascend-plan-memory 2>&1 | filecheck %s --check-prefix=PLAN
// RUN: not tile-opt %s --tile-ascend-inject-sync 2>&1 | filecheck %s --check-prefix=SYNC
// RUN: not tile-opt %s --emit=ascendc 2>&1 | filecheck %s --check-prefix=EMIT
// RUN: sed 's/ascend.offset = "zero"/ascend.offset = 0 : i64/' %s \
// RUN:   | not tile-opt - --emit=ascendc 2>&1 | filecheck %s --check-prefix=GRID

// PLAN: malformed-attributes.mlir:[[# @LINE + 10]]:8: error: tile-ascend-plan-memory: ascend.offset must be an integer, not "zero"
// PLAN-NOT: internal error
// SYNC: malformed-attributes.mlir:[[# @LINE + 8]]:8: error: tile-ascend-inject-sync: ascend.offset must be an integer, not "zero"
// SYNC-NOT: internal error
// EMIT: malformed-attributes.mlir:[[# @LINE + 6]]:8: error: ascend.offset must be an integer, not "zero"
// EMIT-NOT: Traceback
// GRID: <stdin>:[[# @LINE + 2]]:1: error: ascend.grid must be an integer, not "four"
// GRID-NOT: Traceback
func.func @k(%x: memref<64xf32, #ascend.mem<gm>>) attributes {ascend.kernel = #ascend.core<aiv>, ascend.grid = "four"} {
  %c0 = arith.constant 0 : index
  %u = memref.alloc() {ascend.offset = "zero"} : memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %u[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  return
}

// -----

// A tile.name that is not a string: the emitter and the simulator name the
// argument from it.
// RUN: not tile-opt %s -split-input-file --emit=ascendc 2>&1 | filecheck %s --check-prefix=NAME
// RUN: sed -n '/^func.func @named/,$p' %s | not tile-sim - --arg zeros:64xf32 2>&1 \
// RUN:   | filecheck %s --check-prefix=SIM
// NAME: malformed-attributes.mlir:[[# @LINE + 4]]:1: error: tile.name must be a string, not 5 : i64
// NAME-NOT: internal error
// SIM: <stdin>:1:1: error: tile.name must be a string, not 5 : i64
// SIM-NOT: internal error
func.func @named(%x: memref<64xf32, #ascend.mem<gm>> {tile.name = 5}) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %u = memref.alloc() {ascend.offset = 0 : i64} : memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %u[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  return
}
