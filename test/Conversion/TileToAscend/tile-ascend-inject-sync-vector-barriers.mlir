// vector-barriers=true: also an `ascend.pipe_barrier v` between dependent
// vector ops, for a vector pipe that overlaps them (the simulator's V pipe
// and the 950's order them, so it is off by default). Not where a set_flag
// on V comes between: it runs once every earlier V op has finished, and the
// V ops after it wait for it. Here the multiply reads what the vdup wrote and
// the add what the multiply wrote; the vdup into %d depends on nothing and
// the add's result reaches the store through a flag.
//
// RUN: tile-opt %s --tile-ascend-inject-sync=vector-barriers=true | filecheck %s
// RUN: tile-opt %s --tile-ascend-inject-sync=vector-barriers=true \
// RUN:   | tile-sim - --arg zeros:64xf32 --arg zeros:64xf32 --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM
// RUN: grep -v _flag %S/../../Simulator/Inputs/vadd_double_buffer.mlir \
// RUN:   | tile-opt - --tile-ascend-inject-sync=vector-barriers=true | filecheck %s --check-prefix=NONE

// CHECK-LABEL: func.func @chain
// CHECK:      ascend.vdup %[[A:[^,]*]],
// CHECK-NEXT: ascend.vdup %[[D:[^,]*]],
// CHECK-NEXT: ascend.pipe_barrier v
// CHECK-NEXT: ascend.vbins muls %[[B:[^,]*]], %[[A]],
// CHECK-NEXT: ascend.pipe_barrier v
// CHECK-NEXT: ascend.vbin add %[[C:[^,]*]], %[[B]], %[[A]]
// CHECK-NEXT: ascend.set_flag v -> mte3, 0
// CHECK-NEXT: ascend.wait_flag v -> mte3, 0
// CHECK-NEXT: ascend.copy %[[C]]
// CHECK-NOT: ascend.pipe_barrier

// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM-NEXT: sync instructions: 4 (set_flag 1, wait_flag 1, pipe_barrier 2, pipe_barrier all 0)
// SIM: %arg1 = [4.5 4.5 4.5

// The double-buffered add: each vector op is followed by a set_flag on V.
// NONE-LABEL: func.func @vadd
// NONE-NOT: ascend.pipe_barrier
func.func @chain(%x: memref<64xf32, #ascend.mem<gm>>, %z: memref<64xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.5 : f32
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %c = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %d = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.vdup %a, %one : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vdup %d, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %b, %a, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbin add %c, %b, %a : memref<64xf32, #ascend.mem<ub>>
  ascend.copy %c[%c0], %z[%c0] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<gm>>
  return
}
