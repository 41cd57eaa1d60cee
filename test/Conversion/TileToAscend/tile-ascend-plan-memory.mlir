// RUN: tile-opt %s -split-input-file --tile-ascend-plan-memory | filecheck %s
//
// Planned kernels run in the simulator with the numbers and cycles they have
// unplanned; buffers that share bytes need less memory, and a reuse the sync
// does not order is a race the simulator names.
// RUN: tile-opt %S/Inputs/plan-memory-reuse.mlir --tile-ascend-plan-memory \
// RUN:   | tile-sim - --kernel reuse --arg arange:512xf32 --arg ones:512xf32 --arg zeros:512xf32 \
// RUN:     --print-outputs | filecheck %s --check-prefix=REUSE
// RUN: tile-sim %S/Inputs/plan-memory-reuse.mlir --kernel reuse --arg arange:512xf32 \
// RUN:   --arg ones:512xf32 --arg zeros:512xf32 --print-outputs | filecheck %s --check-prefix=FIRSTFIT
// RUN: tile-opt %S/Inputs/plan-memory-reuse.mlir --tile-ascend-plan-memory \
// RUN:   | not tile-sim - --kernel reuse_unsynchronized --arg arange:512xf32 --arg ones:512xf32 \
// RUN:     --arg zeros:512xf32 2>&1 | filecheck %s --check-prefix=RACE
// RUN: tile-opt %S/../../Simulator/Inputs/vadd-double-buffer.mlir --tile-ascend-plan-memory \
// RUN:   | tile-sim - --arg arange:1024xf32 --arg ones:1024xf32 --arg zeros:1024xf32 --arg 1024 \
// RUN:     --block-dim 2 --print-outputs | filecheck %s --check-prefix=VADD

// REUSE: cycles: 368
// REUSE: on-chip memory (peak per core): ub 1.00 KiB of 184.00 KiB
// REUSE-NEXT: races: 0
// REUSE: %arg2 = [0. 2. 4. ... 2. 2. 2.]
// FIRSTFIT: cycles: 368
// FIRSTFIT: on-chip memory (peak per core): ub 2.00 KiB of 184.00 KiB
// FIRSTFIT: %z = [0. 2. 4. ... 2. 2. 2.]
// RACE: error: race (write-after-read): ascend.copy gm -> ub on MTE2 of block 0 aiv0 writes ub of block 0 aiv0, bytes [0, 1024) (memref<256xf32, #ascend.mem<ub>> allocated at <stdin>:{{[0-9]+}}:{{[0-9]+}}, offset 0; memref<256xf32, #ascend.mem<ub>> allocated at <stdin>:{{[0-9]+}}:{{[0-9]+}}, offset 0) read by ascend.copy ub -> gm on MTE3
// The hand-synchronized double buffer of test/Simulator/vadd.mlir, planned.
// VADD: cycles: 472 (0.262 us at 1.8 GHz)
// VADD: on-chip memory (peak per core): ub 6.00 KiB of 184.00 KiB
// VADD-NEXT: races: 0
// VADD: %arg2 = [   1.    2.    3. ... 1022. 1023. 1024.]

// Buffers used in a loop are live for the whole loop; one used only after
// it reuses their bytes. Offsets are multiples of 32 in UB.
// CHECK-LABEL: func.func @loop_then_tail
// CHECK: memref.alloc() {ascend.offset = 0 : i64} : memref<256xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 1024 : i64} : memref<256xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 2048 : i64} : memref<256xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 0 : i64} : memref<512xf32, #ascend.mem<ub>>
func.func @loop_then_tail(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %c = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %tail = memref.alloc() : memref<512xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c256 {
    ascend.copy %x[%i], %a[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
    ascend.vunary exp %b, %a : memref<256xf32, #ascend.mem<ub>>
    ascend.vunary abs %c, %b : memref<256xf32, #ascend.mem<ub>>
    ascend.copy %c[%c0], %x[%i] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  }
  ascend.vdup %tail, %zero : memref<512xf32, #ascend.mem<ub>>, f32
  ascend.copy %tail[%c0], %x[%c0] sizes [512] : memref<512xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  return
}

// -----

// In straight-line code %a is dead once %b is written from it, so %c takes
// its bytes; in a loop the next iteration writes %a again while %c is still
// to be stored, so all three stay apart.
// CHECK-LABEL: func.func @straight_line
// CHECK: memref.alloc() {ascend.offset = 0 : i64}
// CHECK-NEXT: memref.alloc() {ascend.offset = 1024 : i64}
// CHECK-NEXT: memref.alloc() {ascend.offset = 0 : i64}
// CHECK-LABEL: func.func @in_a_loop
// CHECK: memref.alloc() {ascend.offset = 0 : i64}
// CHECK-NEXT: memref.alloc() {ascend.offset = 1024 : i64}
// CHECK-NEXT: memref.alloc() {ascend.offset = 2048 : i64}
func.func @straight_line(%x: memref<?xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %c = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %a[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.vunary exp %b, %a : memref<256xf32, #ascend.mem<ub>>
  ascend.vunary abs %c, %b : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %c[%c0], %x[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  return
}
func.func @in_a_loop(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %c = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c1 {
    ascend.copy %x[%c0], %a[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
    ascend.vunary exp %b, %a : memref<256xf32, #ascend.mem<ub>>
    ascend.vunary abs %c, %b : memref<256xf32, #ascend.mem<ub>>
    ascend.copy %c[%c0], %x[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  }
  return
}

// -----

// Alignment per memory: UB starts are multiples of 32 bytes, L0A's of 512.
// The tiles of the two branches of an if never live at once and share bytes.
// CHECK-LABEL: func.func @alignment_and_branches
// CHECK: memref.alloc() {ascend.offset = 256 : i64} : memref<25xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 384 : i64} : memref<16xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 0 : i64} : memref<300xf16, #ascend.mem<l0a>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 1024 : i64} : memref<300xf16, #ascend.mem<l0a>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 0 : i64} : memref<64xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 0 : i64} : memref<64xf32, #ascend.mem<ub>>
func.func @alignment_and_branches(%flag: i1) {
  %zero = arith.constant 0.0 : f32
  %h = arith.constant 0.0 : f16
  %odd = memref.alloc() : memref<25xf32, #ascend.mem<ub>>
  %next = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  %l0a_0 = memref.alloc() : memref<300xf16, #ascend.mem<l0a>>
  %l0a_1 = memref.alloc() : memref<300xf16, #ascend.mem<l0a>>
  %then = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %else = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.vdup %odd, %zero : memref<25xf32, #ascend.mem<ub>>, f32
  ascend.vdup %next, %zero : memref<16xf32, #ascend.mem<ub>>, f32
  %c0 = arith.constant 0 : index
  memref.store %h, %l0a_0[%c0] : memref<300xf16, #ascend.mem<l0a>>
  memref.store %h, %l0a_1[%c0] : memref<300xf16, #ascend.mem<l0a>>
  scf.if %flag {
    ascend.vdup %then, %zero : memref<64xf32, #ascend.mem<ub>>, f32
  } else {
    ascend.vdup %else, %zero : memref<64xf32, #ascend.mem<ub>>, f32
  }
  ascend.vdup %odd, %zero : memref<25xf32, #ascend.mem<ub>>, f32
  ascend.vdup %next, %zero : memref<16xf32, #ascend.mem<ub>>, f32
  memref.store %h, %l0a_0[%c0] : memref<300xf16, #ascend.mem<l0a>>
  return
}

// -----

// A dealloc is the end of a lifetime: %a stays live until it, so %b cannot
// take its bytes, but %c, used after it, can. An offset given before
// planning is kept and the others go around it. Each memory is planned on
// its own.
// CHECK-LABEL: func.func @dealloc_and_fixed
// CHECK: memref.alloc() {ascend.offset = 0 : i64} : memref<256xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 1280 : i64} : memref<256xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 1024 : i64} : memref<64xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 0 : i64} : memref<256xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 0 : i64} : memref<2x1x16x16xf16, #ascend.mem<l1>>
func.func @dealloc_and_fixed(%x: memref<?x?xf16, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %fixed = memref.alloc() {ascend.offset = 1024 : i64} : memref<64xf32, #ascend.mem<ub>>
  %c = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %l1 = memref.alloc() : memref<2x1x16x16xf16, #ascend.mem<l1>>
  ascend.vdup %fixed, %zero : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vdup %a, %zero : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.vdup %b, %zero : memref<256xf32, #ascend.mem<ub>>, f32
  memref.dealloc %a : memref<256xf32, #ascend.mem<ub>>
  ascend.vdup %c, %zero : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.vdup %fixed, %zero : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.copy_nd2nz %x[%c0, %c0], %l1 sizes [16, 32]
      : memref<?x?xf16, #ascend.mem<gm>>, memref<2x1x16x16xf16, #ascend.mem<l1>>
  return
}

// -----

// Whole-loop lifetimes need 224 KiB here, so the planner reuses bytes within
// an iteration of the block loop: the 96 KiB %t, rewritten in each
// iteration, takes bytes of the slots. The two slots of the multi-buffered
// loop stay apart (it carries ascend.multi_buffer_slots), or the pipes could
// not overlap its copies.
// CHECK-LABEL: func.func @slots_stay_apart
// CHECK: memref.alloc() {ascend.offset = 0 : i64} : memref<16384xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 65536 : i64} : memref<16384xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() {ascend.offset = 0 : i64} : memref<24576xf32, #ascend.mem<ub>>
func.func @slots_stay_apart(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16384 = arith.constant 16384 : index
  %c32768 = arith.constant 32768 : index
  %s1 = memref.alloc() : memref<16384xf32, #ascend.mem<ub>>
  %s0 = memref.alloc() : memref<16384xf32, #ascend.mem<ub>>
  %t = memref.alloc() : memref<24576xf32, #ascend.mem<ub>>
  %block = ascend.block_idx : index
  %blocks = ascend.block_num : index
  scf.for %b = %block to %n step %blocks {
    scf.for %i = %c0 to %n step %c32768 {
      ascend.copy %x[%i], %s0[%c0] sizes [16384] : memref<?xf32, #ascend.mem<gm>>, memref<16384xf32, #ascend.mem<ub>>
      ascend.copy %s0[%c0], %x[%i] sizes [16384] : memref<16384xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
      %i1 = arith.addi %i, %c16384 : index
      %more = arith.cmpi slt, %i1, %n : index
      scf.if %more {
        ascend.copy %x[%i1], %s1[%c0] sizes [16384] : memref<?xf32, #ascend.mem<gm>>, memref<16384xf32, #ascend.mem<ub>>
        ascend.copy %s1[%c0], %x[%i1] sizes [16384] : memref<16384xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
      }
    } {ascend.multi_buffer_slots = 2 : i64}
    ascend.copy %x[%b], %t[%c0] sizes [24576] : memref<?xf32, #ascend.mem<gm>>, memref<24576xf32, #ascend.mem<ub>>
    ascend.copy %t[%c0], %x[%b] sizes [24576] : memref<24576xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  }
  return
}
