// Dependent ops of one pipe: a pipe issues in order but overlaps its
// instructions, so the pass puts an `ascend.pipe_barrier` of that pipe right
// before an op that touches bytes an earlier op of the pipe wrote (or writes
// bytes it read), and nowhere else: not between independent ops, not where a
// barrier or a chain of flags back to the pipe already orders them, and not
// on the pipes the hardware orders (the scalar pipe; the 950's vector pipe; an
// mmad of at least 10 16x16 fractals of C after the mmads it accumulates on).
//
// RUN: tile-opt %s -split-input-file --tile-ascend-inject-sync | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-ascend-inject-sync=target=ascend:950 \
// RUN:   | filecheck %s --check-prefix=P950
// RUN: tile-opt %s --tile-ascend-inject-sync \
// RUN:   | tile-sim - --kernel chain --arg zeros:64xf32 --arg zeros:64xf32 --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM
// RUN: grep -v _flag %S/../../Simulator/Inputs/vadd-double-buffer.mlir \
// RUN:   | tile-opt - --tile-ascend-inject-sync | filecheck %s --check-prefix=NONE

// The multiply reads what the first vdup wrote and the add what the multiply
// wrote; the vdup into %d depends on nothing, and the add's result reaches the
// store through a flag.
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
// P950-LABEL: func.func @chain
// P950-NOT: ascend.pipe_barrier
// P950: return

// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM-NEXT: sync instructions: 4 (set_flag 1, wait_flag 1, pipe_barrier 2, pipe_barrier all 0)
// SIM: %arg1 = [4.5 4.5 4.5
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

// -----

// Two independent vector ops: no barrier.
// CHECK-LABEL: func.func @independent
// CHECK-NOT: ascend.pipe_barrier
// CHECK: return
func.func @independent() attributes {ascend.kernel = #ascend.core<aiv>} {
  %one = arith.constant 1.5 : f32
  %a = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.vdup %a, %one : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vdup %b, %one : memref<64xf32, #ascend.mem<ub>>, f32
  return
}

// -----

// A write after a read on V (the second vdup overwrites what the add read),
// and the loop-carried read of the next iteration's add: one barrier before
// the vdup orders both, since the add comes first in the body.
// CHECK-LABEL: func.func @war_in_loop
// CHECK:      scf.for
// CHECK-NEXT:   ascend.pipe_barrier v
// CHECK-NEXT:   ascend.vbin add
// CHECK-NEXT:   ascend.pipe_barrier v
// CHECK-NEXT:   ascend.vdup
// CHECK-NOT: ascend.pipe_barrier
// CHECK: return
func.func @war_in_loop() attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1.5 : f32
  %a = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %c4 step %c1 {
    ascend.vbin add %b, %a, %a : memref<64xf32, #ascend.mem<ub>>
    ascend.vdup %a, %one : memref<64xf32, #ascend.mem<ub>>, f32
  }
  return
}

// -----

// Two DMA copies into overlapping UB bytes (MTE2 write after write), then one
// into other bytes: a barrier between the first two only.
// CHECK-LABEL: func.func @overlapping_copies
// CHECK:      ascend.copy
// CHECK-NEXT: ascend.pipe_barrier mte2
// CHECK-NEXT: ascend.copy
// CHECK-NEXT: ascend.copy
// CHECK-NEXT: return
// P950-LABEL: func.func @overlapping_copies
// P950:      ascend.copy
// P950-NEXT: ascend.pipe_barrier mte2
func.func @overlapping_copies(%x: memref<256xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %ub = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %ub[%c0] sizes [64] : memref<256xf32, #ascend.mem<gm>>, memref<128xf32, #ascend.mem<ub>>
  ascend.copy %x[%c128], %ub[%c32] sizes [32] : memref<256xf32, #ascend.mem<gm>>, memref<128xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %ub[%c64] sizes [64] : memref<256xf32, #ascend.mem<gm>>, memref<128xf32, #ascend.mem<ub>>
  return
}

// -----

// Accumulating mmads into one L0C: a 32x32 C (4 fractals) needs a barrier of
// the M pipe before the accumulating mmad, a 64x64 C (16 fractals) does not.
// CHECK-LABEL: func.func @small_accumulation
// CHECK:      ascend.mmad
// CHECK-NEXT: ascend.pipe_barrier m
// CHECK-NEXT: ascend.mmad
// CHECK-LABEL: func.func @large_accumulation
// CHECK-NOT: ascend.pipe_barrier
// CHECK: return
func.func @small_accumulation() attributes {ascend.kernel = #ascend.core<aic>} {
  %a = memref.alloc() : memref<2x1x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x2x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %a, %b, %c sizes [32, 32, 16] {init}
      : memref<2x1x16x16xf16, #ascend.mem<l0a>>, memref<1x2x16x16xf16, #ascend.mem<l0b>>, memref<2x2x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %a, %b, %c sizes [32, 32, 16]
      : memref<2x1x16x16xf16, #ascend.mem<l0a>>, memref<1x2x16x16xf16, #ascend.mem<l0b>>, memref<2x2x16x16xf32, #ascend.mem<l0c>>
  return
}
func.func @large_accumulation() attributes {ascend.kernel = #ascend.core<aic>} {
  %a = memref.alloc() : memref<4x1x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x4x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<4x4x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %a, %b, %c sizes [64, 64, 16] {init}
      : memref<4x1x16x16xf16, #ascend.mem<l0a>>, memref<1x4x16x16xf16, #ascend.mem<l0b>>, memref<4x4x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %a, %b, %c sizes [64, 64, 16]
      : memref<4x1x16x16xf16, #ascend.mem<l0a>>, memref<1x4x16x16xf16, #ascend.mem<l0b>>, memref<4x4x16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

// Stores into GM at run-time offsets, one per iteration: rows 64 elements
// apart do not overlap (no barrier); rows 32 apart, 64 long, overlap the next
// iteration's (a barrier before the store); an offset the pass cannot follow
// (a value loaded from UB) may overlap anything.
// CHECK-LABEL: func.func @stores_apart
// CHECK-NOT: ascend.pipe_barrier
// CHECK: return
// CHECK-LABEL: func.func @stores_overlapping
// CHECK:      scf.for
// CHECK:      ascend.pipe_barrier mte3
// CHECK-NEXT: ascend.copy
// CHECK-LABEL: func.func @stores_anywhere
// CHECK:      scf.for
// CHECK:      ascend.pipe_barrier mte3
// CHECK-NEXT: ascend.copy
func.func @stores_apart(%y: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %ub = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c1 {
    %row = arith.muli %i, %c64 : index
    ascend.copy %ub[%c0], %y[%row] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  }
  return
}
func.func @stores_overlapping(%y: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %ub = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c1 {
    %row = arith.muli %i, %c32 : index
    ascend.copy %ub[%c0], %y[%row] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  }
  return
}
func.func @stores_anywhere(%y: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %at = memref.alloc() : memref<8xi32, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %at[%c0] : memref<8xi32, #ascend.mem<ub>>
    %row = arith.index_cast %v : i32 to index
    ascend.copy %ub[%c0], %y[%row] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  }
  return
}

// The double-buffered add: each iteration's vector op works on its own slot,
// and the stores write GM at offsets 256 elements apart in one iteration and
// 2 x 256 x the grid's step apart between iterations (`sync_offsets`): no
// barrier at all.
// NONE-LABEL: func.func @vadd
// NONE-NOT: ascend.pipe_barrier
