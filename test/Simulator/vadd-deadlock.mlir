// A wait whose flag nothing sets: the V pipe stops at it, the store behind
// the add never runs, and the report names the wait and every pipe's state.
//
// RUN: not tile-sim %s --arg x=random:256xf32 2>&1 | filecheck %s

func.func @scale(%x: memref<256xf32, #ascend.mem<gm>>, %z: memref<256xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %xs = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %xs[%c0] sizes [256]
      : memref<256xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.set_flag mte2 -> v, 0
  ascend.wait_flag mte2 -> v, 1
  ascend.vbins muls %xs, %xs, %two : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.set_flag v -> mte3, 0
  ascend.wait_flag v -> mte3, 0
  ascend.copy %xs[%c0], %z[%c0] sizes [256]
      : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  return
}

// CHECK: races: 0
// CHECK-NEXT: deadlocks: 1
// CHECK: {{.*}}vadd-deadlock.mlir:14:3: error: deadlock: ascend.wait_flag mte2 -> v, 1 on V of block 0 aiv0 waits for flag mte2 -> v, 1, which is never set
// CHECK: {{.*}}vadd-deadlock.mlir:14:3: note: block 0 aiv0 V: blocked at ascend.wait_flag mte2 -> v, 1 since cycle 0, 2 more queued
// CHECK: {{.*}}vadd-deadlock.mlir:17:3: note: block 0 aiv0 MTE3: blocked at ascend.wait_flag v -> mte3, 0 since cycle 0, 1 more queued
// CHECK: {{.*}}vadd-deadlock.mlir:14:3: note: block 0 aiv0: S finished issuing; MTE2 idle since cycle 96
// CHECK: {{.*}}vadd-deadlock.mlir:13:3: note: block 0 aiv0: flag mte2 -> v, 0 is set and never waited for
