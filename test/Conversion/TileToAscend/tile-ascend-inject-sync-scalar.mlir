// RUN: tile-opt %s --tile-ascend-inject-sync | filecheck %s
// RUN: tile-opt %s --tile-ascend-inject-sync | tile-sim - --arg arange:64xf32 --arg zeros:64xf32 \
// RUN:     --print-outputs | filecheck %s --check-prefix=SIM
// RUN: tile-opt %s --tile-ascend-inject-sync | tile-sim - --arg arange:64xf32 --arg zeros:64xf32 \
// RUN:     --flag-identity source | filecheck %s --check-prefix=SOURCE

// The scalar unit (S pipe) reading and writing UB elements: it waits for
// the MTE2 load before reading (mte2 -> s), its write is flagged before the
// vector op reads it (s -> v), it waits for the vector op before reading its
// result (v -> s), and its last write is flagged before the MTE3 store
// (s -> mte3). The vdup that takes a scalar operand needs nothing: the value
// is in a register. s -> mte3 takes id 1: if flags are named by source and
// id, MTE3 idle at its wait could otherwise take the s -> v flag.

// CHECK-LABEL: func.func @scalar
// CHECK:      ascend.copy %arg0
// CHECK-NEXT: ascend.set_flag mte2 -> s, 0
// CHECK-NEXT: ascend.wait_flag mte2 -> s, 0
// CHECK-NEXT: memref.load
// CHECK-NEXT: ascend.vdup
// CHECK-NEXT: memref.store
// CHECK-NEXT: ascend.set_flag s -> v, 0
// CHECK-NEXT: ascend.wait_flag s -> v, 0
// CHECK-NEXT: ascend.pipe_barrier v
// CHECK-NEXT: ascend.vbin add
// CHECK-NEXT: ascend.set_flag v -> s, 0
// CHECK-NEXT: ascend.wait_flag v -> s, 0
// CHECK-NEXT: memref.load
// CHECK-NEXT: memref.store
// CHECK-NEXT: ascend.set_flag s -> mte3, 1
// CHECK-NEXT: ascend.wait_flag s -> mte3, 1
// CHECK-NEXT: ascend.copy {{.*}}, %arg1
// CHECK-NEXT: return

// b = x[3] + (x with x[0] = x[3]); then b[3] = b[0].
// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM-NEXT: sync instructions: 9 (set_flag 4, wait_flag 4, pipe_barrier 1, pipe_barrier all 0)
// SIM: %arg1 = [ 6.  4.  5.  6.  7.

// SOURCE: races: 0
// SOURCE-NEXT: deadlocks: 0
func.func @scalar(%x: memref<64xf32, #ascend.mem<gm>>, %z: memref<64xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %a = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %a[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  %s = memref.load %a[%c3] : memref<64xf32, #ascend.mem<ub>>
  ascend.vdup %b, %s : memref<64xf32, #ascend.mem<ub>>, f32
  memref.store %s, %a[%c0] : memref<64xf32, #ascend.mem<ub>>
  ascend.vbin add %b, %b, %a : memref<64xf32, #ascend.mem<ub>>
  %t = memref.load %b[%c0] : memref<64xf32, #ascend.mem<ub>>
  memref.store %t, %b[%c3] : memref<64xf32, #ascend.mem<ub>>
  ascend.copy %b[%c0], %z[%c0] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<gm>>
  return
}
