// The hand-synchronized double-buffered GEMM of the simulator tests (a grid
// loop over 128x128 tiles, a K loop of two 64-deep slots), flags removed.
// The pass synchronizes each operand separately (load_l0a waits only for A's
// copy, load_l0b for B's), so it is faster than the hand-written kernel
// (4537 cycles; 5545 on the 950) at the cost of more flags, and race-free
// under both readings of a flag's identity. The "slot free" credits of the
// K loop are set once before the grid loop: set before each K loop, a credit
// could be set again before the drain of the previous tile has run.
//
// RUN: sed -e '/ascend\.set_flag/d' -e '/ascend\.wait_flag/d' \
// RUN:     %S/../../Simulator/Inputs/gemm-double-buffer.mlir > %t.mlir
// RUN: tile-opt %t.mlir --tile-ascend-inject-sync > %t.flags.mlir
// RUN: filecheck %s < %t.flags.mlir
// RUN: tile-sim %t.flags.mlir --arg ones:256x256xf16 --arg ones:256x256xf16 \
// RUN:     --arg zeros:256x256xf32 --arg 256 --arg 256 --arg 256 --block-dim 4 --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM
// RUN: tile-sim %t.flags.mlir --arg ones:200x256xf16 --arg ones:256x300xf16 \
// RUN:     --arg zeros:200x300xf32 --arg 200 --arg 300 --arg 256 --block-dim 3 --profile 950 \
// RUN:     --flag-identity source --print-outputs | filecheck %s --check-prefix=RAGGED
// RUN: tile-opt %t.mlir --tile-ascend-inject-sync=strategy=barrier | tile-sim - \
// RUN:     --arg ones:256x256xf16 --arg ones:256x256xf16 --arg zeros:256x256xf32 --arg 256 \
// RUN:     --arg 256 --arg 256 --block-dim 4 | filecheck %s --check-prefix=BARRIER

// CHECK-LABEL: func.func @gemm
// CHECK:      ascend.set_flag fix -> m, [[CFREE:[0-9]]]
// CHECK-COUNT-4: ascend.set_flag mte1 -> mte2
// CHECK-COUNT-2: ascend.set_flag m -> mte1
// CHECK-NEXT: scf.for
// CHECK:      ascend.wait_flag fix -> m, [[CFREE]]
// CHECK-NEXT: scf.for
// CHECK:      ascend.set_flag m -> fix, [[DONE:[0-9]]]
// CHECK-NEXT: ascend.wait_flag m -> fix, [[DONE]]
// CHECK-NEXT: ascend.fixpipe
// CHECK-NEXT: ascend.set_flag fix -> m, [[CFREE]]
// CHECK-NEXT: }
// CHECK-NEXT: ascend.wait_flag fix -> m, [[CFREE]]
// CHECK-COUNT-4: ascend.wait_flag mte1 -> mte2
// CHECK-COUNT-2: ascend.wait_flag m -> mte1
// CHECK-NEXT: return

// SIM: cycles: 4457 (2.476 us at 1.8 GHz)
// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM-NEXT: sync instructions: 264 (set_flag 132, wait_flag 132, pipe_barrier 0, pipe_barrier all 0)
// SIM: %arg2 = [[256. 256. 256. ... 256. 256. 256.]

// RAGGED: cycles: 5497 (3.332 us at 1.65 GHz)
// RAGGED: races: 0
// RAGGED-NEXT: deadlocks: 0
// RAGGED: %arg2 = [[256. 256. 256. ... 256. 256. 256.]

// BARRIER: cycles: 5289 (2.938 us at 1.8 GHz)
// BARRIER: races: 0
// BARRIER-NEXT: deadlocks: 0
// BARRIER-NEXT: sync instructions: 28 (set_flag 0, wait_flag 0, pipe_barrier 0, pipe_barrier all 28)
