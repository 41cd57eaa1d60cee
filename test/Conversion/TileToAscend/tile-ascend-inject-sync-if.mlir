// RUN: tile-opt %s --tile-ascend-inject-sync | filecheck %s
// RUN: tile-opt %s --tile-ascend-inject-sync > %t.mlir
// RUN: tile-sim %t.mlir --arg arange:256xf32 --arg zeros:256xf32 --arg zeros:256xf32 --arg 0 \
// RUN:     --print-outputs --flag-identity source | filecheck %s --check-prefix=NONE
// RUN: tile-sim %t.mlir --arg arange:256xf32 --arg zeros:256xf32 --arg zeros:256xf32 --arg 1 \
// RUN:     --print-outputs | filecheck %s --check-prefix=ONE
// RUN: tile-sim %t.mlir --arg arange:256xf32 --arg zeros:256xf32 --arg zeros:256xf32 --arg 2 \
// RUN:     --print-outputs --flag-identity source | filecheck %s --check-prefix=TWO

// Flags across `scf.if`: every path sets and waits each flag once.
// - The load before the first `if` is read in its then-branch: the wait is
//   right before the add, and the else-branch (which the pass creates) waits
//   at its start.
// - The add in the then-branch is read after the `if`: the set is right
//   after the add, and the else-branch sets at its end (the vdup before the
//   `if` is ordered by it too: a set runs once its pipe's earlier ops have
//   finished). The add overwrites what the vdup wrote: a V barrier before it,
//   as before the multiply, which overwrites what the add read.
// - After the second `if`, the store reads `a`, written by V in one branch
//   and by MTE2 in the other: one flag from each pipe, set in both branches.

// CHECK-LABEL: func.func @branches
// CHECK:      ascend.vdup
// CHECK-NEXT: ascend.copy %arg0[%c0], %[[A:.*]][%c0]
// CHECK-NEXT: ascend.set_flag mte2 -> v, [[LOAD:[0-9]]]
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NEXT: ascend.wait_flag mte2 -> v, [[LOAD]]
// CHECK-NEXT: ascend.pipe_barrier v
// CHECK-NEXT: ascend.vbin add
// CHECK-NEXT: ascend.set_flag v -> mte3, [[SUM:[0-9]]]
// CHECK-NEXT: ascend.set_flag v -> mte2, [[AFREE:[0-9]]]
// CHECK-NEXT: } else {
// CHECK-NEXT: ascend.wait_flag mte2 -> v, [[LOAD]]
// CHECK-NEXT: ascend.set_flag v -> mte3, [[SUM]]
// CHECK-NEXT: ascend.set_flag v -> mte2, [[AFREE]]
// CHECK-NEXT: }
// CHECK-NEXT: ascend.wait_flag v -> mte3, [[SUM]]
// CHECK-NEXT: ascend.copy {{.*}}, %arg1[%c0]
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NEXT: ascend.wait_flag v -> mte2, [[AFREE]]
// CHECK-NEXT: ascend.pipe_barrier v
// CHECK-NEXT: ascend.vbins muls %[[A]], %[[A]]
// CHECK-NEXT: ascend.set_flag v -> mte3, [[SCALED:[0-9]]]
// CHECK-NEXT: ascend.set_flag mte2 -> mte3, [[RELOAD:[0-9]]]
// CHECK-NEXT: } else {
// CHECK-NEXT: ascend.wait_flag v -> mte2, [[AFREE]]
// CHECK-NEXT: ascend.copy %arg0[%c0], %[[A]][%c0]
// CHECK-NEXT: ascend.set_flag mte2 -> mte3, [[RELOAD]]
// CHECK-NEXT: ascend.set_flag v -> mte3, [[SCALED]]
// CHECK-NEXT: }
// CHECK-NEXT: ascend.wait_flag mte2 -> mte3, [[RELOAD]]
// CHECK-NEXT: ascend.wait_flag v -> mte3, [[SCALED]]
// CHECK-NEXT: ascend.copy %[[A]][%c0], %arg2[%c0]
// CHECK-NEXT: return

// NONE: races: 0
// NONE-NEXT: deadlocks: 0
// NONE-NEXT: sync instructions: 10 (set_flag 5, wait_flag 5, pipe_barrier 0, pipe_barrier all 0)
// NONE: %arg1 = [1. 1. 1.
// NONE: %arg2 = [  0.   1.   2.

// ONE: races: 0
// ONE-NEXT: deadlocks: 0
// ONE: %arg1 = [  0.   2.   4.
// ONE: %arg2 = [  0.   1.   2.

// TWO: races: 0
// TWO-NEXT: deadlocks: 0
// TWO: %arg1 = [  0.   2.   4.
// TWO: %arg2 = [  0.   2.   4.
func.func @branches(%x: memref<256xf32, #ascend.mem<gm>>, %z: memref<256xf32, #ascend.mem<gm>>, %w: memref<256xf32, #ascend.mem<gm>>,
                    %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.vdup %b, %one : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.copy %x[%c0], %a[%c0] sizes [256] : memref<256xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  %some = arith.cmpi ult, %c0, %n : index
  scf.if %some {
    ascend.vbin add %b, %a, %a : memref<256xf32, #ascend.mem<ub>>
  }
  ascend.copy %b[%c0], %z[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  %many = arith.cmpi ult, %c1, %n : index
  scf.if %many {
    ascend.vbins muls %a, %a, %two : memref<256xf32, #ascend.mem<ub>>, f32
  } else {
    ascend.copy %x[%c0], %a[%c0] sizes [256] : memref<256xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  }
  ascend.copy %a[%c0], %w[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  return
}
