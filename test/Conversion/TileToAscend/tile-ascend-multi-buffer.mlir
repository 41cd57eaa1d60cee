// RUN: tile-opt %s -split-input-file --tile-ascend-multi-buffer | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-ascend-multi-buffer="max-stages=2" \
// RUN:   | filecheck %s --check-prefix=CAP
//
// A multi-buffered, planned kernel computes what it did before (its
// barriers make every copy of the body race-free without the sync pass):
// 1200 elements are 5 chunks, so the last pair runs its first copy only.
// RUN: rm -rf %t.raw %t.mb
// RUN: tile-sim %S/Inputs/multi-buffer-vadd.mlir --arg arange:1200xf32 --arg ones:1200xf32 \
// RUN:   --arg zeros:1200xf32 --arg zeros:256xf32 --arg 1200 --save-outputs %t.raw \
// RUN:   | filecheck %s --check-prefix=RAW
// RUN: tile-opt %S/Inputs/multi-buffer-vadd.mlir --tile-ascend-multi-buffer --tile-ascend-plan-memory \
// RUN:   | tile-sim - --arg arange:1200xf32 --arg ones:1200xf32 --arg zeros:1200xf32 \
// RUN:     --arg zeros:256xf32 --arg 1200 --save-outputs %t.mb | filecheck %s --check-prefix=SIM
// RUN: %python -c "import numpy as np, sys; r, m = sys.argv[1:]; x = np.arange(1280, dtype=np.float32); \
// RUN:   z = np.where(x < 1200, x + 1, 0); ok = [np.array_equal(np.load(f'{r}/{a}.npy'), np.load(f'{m}/{b}.npy')) \
// RUN:   for a, b in (('z', 'arg2'), ('m', 'arg3'))]; ref = [np.array_equal(np.load(f'{m}/arg2.npy'), z[:1200]), \
// RUN:   np.array_equal(np.load(f'{m}/arg3.npy'), z.reshape(5, 256).max(0))]; print(ok, ref)" %t.raw %t.mb \
// RUN:   | filecheck %s --check-prefix=EQUAL
// RAW: on-chip memory (peak per core): ub 4.00 KiB of 184.00 KiB
// RAW-NEXT: races: 0
// Three tiles get a second slot: 7 KiB.
// SIM: on-chip memory (peak per core): ub 7.00 KiB of 184.00 KiB
// SIM-NEXT: races: 0
// EQUAL: [True, True] [True, True]

// x, y and z are rewritten by every iteration before they are read: each gets
// a second slot. The running max is read before it is written (it carries a
// value across iterations) and keeps its one buffer. The trip count is
// dynamic: the second copy runs only while its iteration is below the bound.
// CHECK-LABEL: func.func @vadd_max
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK-COUNT-7: memref.alloc() : memref<256xf32, #ascend.mem<ub>>
// CHECK-NOT: memref.alloc
// CHECK: %[[C512:.*]] = arith.constant 512 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N:.*]] step %[[C512]] {
// CHECK: ascend.copy %{{.*}}[%[[I]]], %[[X0:.*]][%{{.*}}] sizes [256]
// CHECK: ascend.copy %{{.*}}[%[[I]]], %[[Y0:.*]][%{{.*}}] sizes [256]
// CHECK: ascend.vbin add %[[Z0:.*]], %[[X0]], %[[Y0]]
// CHECK: ascend.vbin max %[[M:.*]], %[[M]], %[[Z0]]
// CHECK: ascend.copy %[[Z0]][%{{.*}}], %{{.*}}[%[[I]]] sizes [256]
// CHECK: %[[I1:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[I1]], %[[N]] : index
// CHECK: scf.if %[[MORE]] {
// CHECK: ascend.copy %{{.*}}[%[[I1]]], %[[X1:.*]][%{{.*}}] sizes [256]
// CHECK: ascend.copy %{{.*}}[%[[I1]]], %[[Y1:.*]][%{{.*}}] sizes [256]
// CHECK: ascend.vbin add %[[Z1:.*]], %[[X1]], %[[Y1]]
// CHECK: ascend.vbin max %[[M]], %[[M]], %[[Z1]]
// CHECK: ascend.copy %[[Z1]][%{{.*}}], %{{.*}}[%[[I1]]] sizes [256]
// CHECK: }
// CHECK-NEXT: }
// CHECK-NOT: tile.num_stages
// CHECK: ascend.copy %[[M]]
func.func @vadd_max(%x: memref<?xf32, #ascend.mem<gm>>, %y: memref<?xf32, #ascend.mem<gm>>,
                    %z: memref<?xf32, #ascend.mem<gm>>, %m: memref<256xf32, #ascend.mem<gm>>,
                    %n: index) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %low = arith.constant -1.0e30 : f32
  %ub_x = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %ub_y = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %ub_z = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %ub_m = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.vdup %ub_m, %low : memref<256xf32, #ascend.mem<ub>>, f32
  scf.for %i = %c0 to %n step %c256 {
    ascend.copy %x[%i], %ub_x[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
    ascend.copy %y[%i], %ub_y[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
    ascend.vbin add %ub_z, %ub_x, %ub_y : memref<256xf32, #ascend.mem<ub>>
    ascend.vbin max %ub_m, %ub_m, %ub_z : memref<256xf32, #ascend.mem<ub>>
    ascend.copy %ub_z[%c0], %z[%i] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  } {tile.num_stages = 2 : i64}
  ascend.copy %ub_m[%c0], %m[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  return
}

// -----

// A static trip count that is a multiple of the stages needs no guard; one
// that is not (4 iterations, 3 stages) guards the second and third copies.
// CHECK-LABEL: func.func @static_trips
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NOT: scf.if
// CHECK: ascend.vbins muls
// CHECK: ascend.vbins muls
// CHECK: }
// CHECK: scf.for
// CHECK: arith.cmpi slt
// CHECK: scf.if
// CHECK: arith.cmpi slt
// CHECK: scf.if
// CHECK: return
func.func @static_trips(%x: memref<?xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c512 = arith.constant 512 : index
  %two = arith.constant 2.0 : f32
  %t = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  %u = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %c512 step %c128 {
    ascend.copy %x[%i], %t[%c0] sizes [128] : memref<?xf32, #ascend.mem<gm>>, memref<128xf32, #ascend.mem<ub>>
    ascend.vbins muls %t, %t, %two : memref<128xf32, #ascend.mem<ub>>, f32
    ascend.copy %t[%c0], %x[%i] sizes [128] : memref<128xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  } {tile.num_stages = 2 : i64}
  scf.for %i = %c0 to %c512 step %c128 {
    ascend.copy %x[%i], %u[%c0] sizes [128] : memref<?xf32, #ascend.mem<gm>>, memref<128xf32, #ascend.mem<ub>>
    ascend.vbins muls %u, %u, %two : memref<128xf32, #ascend.mem<ub>>, f32
    ascend.copy %u[%c0], %x[%i] sizes [128] : memref<128xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  } {tile.num_stages = 3 : i64}
  return
}

// -----

// The cube path of a K loop: the L1, L0A and L0B operand tiles are loaded
// whole in every iteration and get two slots; the L0C accumulator that mmad
// adds into keeps one.
// CHECK-LABEL: func.func @gemm_k_loop
// CHECK-COUNT-2: memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
// CHECK-COUNT-2: memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l1>>
// CHECK-COUNT-2: memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
// CHECK-COUNT-2: memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l0b>>
// CHECK-NEXT: %[[C:.*]] = memref.alloc() : memref<4x4x16x16xf32, #ascend.mem<l0c>>
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK: ascend.mmad %[[A0:.*]], %[[B0:.*]], %[[C]]
// CHECK-NOT: scf.if
// CHECK: ascend.mmad %[[A1:.*]], %[[B1:.*]], %[[C]]
// CHECK: ascend.fixpipe %[[C]]
func.func @gemm_k_loop(%a: memref<?x?xf16, #ascend.mem<gm>>, %b: memref<?x?xf16, #ascend.mem<gm>>,
                       %out: memref<?x?xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c256 = arith.constant 256 : index
  %l1a = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  %l1b = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  %l0b = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l0b>>
  %l0c = memref.alloc() : memref<4x4x16x16xf32, #ascend.mem<l0c>>
  scf.for %k = %c0 to %c256 step %c32 {
    ascend.copy_nd2nz %a[%c0, %k], %l1a sizes [64, 32]
        : memref<?x?xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
    ascend.copy_nd2nz %b[%k, %c0], %l1b sizes [32, 64]
        : memref<?x?xf16, #ascend.mem<gm>>, memref<4x2x16x16xf16, #ascend.mem<l1>>
    ascend.load_l0a %l1a, %l0a sizes [64, 32]
        : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
    ascend.load_l0b %l1b, %l0b sizes [32, 64]
        : memref<4x2x16x16xf16, #ascend.mem<l1>>, memref<2x4x16x16xf16, #ascend.mem<l0b>>
    ascend.mmad %l0a, %l0b, %l0c sizes [64, 64, 32]
        : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x4x16x16xf16, #ascend.mem<l0b>>,
          memref<4x4x16x16xf32, #ascend.mem<l0c>>
  } {tile.num_stages = 2 : i64}
  ascend.fixpipe %l0c, %out[%c0, %c0] sizes [64, 64]
      : memref<4x4x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// -----

// Views defined outside the loop are repeated for the new slot. Only row 0
// of %buf is used, written before read: private. %half is half written by
// the copy and then read whole: not private. %after is read after the loop.
// CHECK-LABEL: func.func @views
// CHECK: %[[BUF1:.*]] = memref.alloc() : memref<2x64xf32, #ascend.mem<ub>>
// CHECK-NEXT: %[[BUF0:.*]] = memref.alloc() : memref<2x64xf32, #ascend.mem<ub>>
// CHECK-NEXT: %[[HALF:.*]] = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
// CHECK-NEXT: %[[AFTER:.*]] = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
// CHECK-NEXT: %[[ROW1:.*]] = memref.subview %[[BUF1]][0, 0] [1, 64] [1, 1]
// CHECK-NEXT: %[[ROW0:.*]] = memref.subview %[[BUF0]][0, 0] [1, 64] [1, 1]
// CHECK: scf.for
// CHECK: ascend.vunary exp %[[ROW0]], %[[ROW0]]
// CHECK: ascend.vunary exp %[[HALF]], %[[HALF]]
// CHECK: scf.if
// CHECK: ascend.vunary exp %[[ROW1]], %[[ROW1]]
// CHECK: ascend.vunary exp %[[HALF]], %[[HALF]]
func.func @views(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %buf = memref.alloc() : memref<2x64xf32, #ascend.mem<ub>>
  %half = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  %after = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %row = memref.subview %buf[0, 0] [1, 64] [1, 1]
      : memref<2x64xf32, #ascend.mem<ub>> to memref<64xf32, strided<[1]>, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c64 {
    ascend.copy %x[%i], %row[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, strided<[1]>, #ascend.mem<ub>>
    ascend.vunary exp %row, %row : memref<64xf32, strided<[1]>, #ascend.mem<ub>>
    ascend.copy %row[%c0], %x[%i] sizes [64] : memref<64xf32, strided<[1]>, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
    ascend.copy %x[%i], %half[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<128xf32, #ascend.mem<ub>>
    ascend.vunary exp %half, %half : memref<128xf32, #ascend.mem<ub>>
    ascend.copy %x[%i], %after[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  } {tile.num_stages = 2 : i64}
  ascend.copy %after[%c0], %x[%c0] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  return
}

// -----

// Writes in both branches of an if cover the buffer; a write in one branch
// only does not (%t keeps one buffer, %u gets two).
// CHECK-LABEL: func.func @branches
// CHECK-COUNT-2: memref.alloc() : memref<64xf32, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() : memref<32xf32, #ascend.mem<ub>>
// CHECK-NOT: memref.alloc
func.func @branches(%x: memref<?xf32, #ascend.mem<gm>>, %n: index, %flag: i1)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %u = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %t = memref.alloc() : memref<32xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c64 {
    scf.if %flag {
      ascend.copy %x[%i], %u[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
      ascend.vdup %t, %zero : memref<32xf32, #ascend.mem<ub>>, f32
    } else {
      ascend.vdup %u, %zero : memref<64xf32, #ascend.mem<ub>>, f32
    }
    ascend.copy %u[%c0], %x[%i] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
    ascend.copy %t[%c0], %x[%i] sizes [32] : memref<32xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  } {tile.num_stages = 2 : i64}
  return
}

// -----

// Loop-carried values flow from copy to copy, through the guard's results.
// CHECK-LABEL: func.func @carried
// CHECK: %[[R:.*]] = scf.for %[[I:.*]] = {{.*}} iter_args(%[[S:.*]] = %{{.*}}) -> (index) {
// CHECK: %[[S1:.*]] = arith.addi %[[S]], %{{.*}} : index
// CHECK: %[[G:.*]] = scf.if %{{.*}} -> (index) {
// CHECK: %[[S2:.*]] = arith.addi %[[S1]], %{{.*}} : index
// CHECK: scf.yield %[[S2]] : index
// CHECK: } else {
// CHECK: scf.yield %[[S1]] : index
// CHECK: scf.yield %[[G]] : index
// CHECK: return %[[R]]
func.func @carried(%x: memref<?xf32, #ascend.mem<gm>>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %count = scf.for %i = %c0 to %n step %c64 iter_args(%s = %c0) -> (index) {
    ascend.copy %x[%i], %t[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
    ascend.copy %t[%c0], %x[%i] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
    %s1 = arith.addi %s, %c1 : index
    scf.yield %s1 : index
  } {tile.num_stages = 2 : i64}
  return %count : index
}

// -----

// Four stages of two 32 KiB tiles need 256 KiB of UB, more than the 910b's
// 184.00 KiB: the loop gets as many slots as fit (two) and says so. With
// max-stages=2 it asked for no more.
// CHECK-LABEL: func.func @too_many_stages
// CHECK-COUNT-4: memref.alloc() : memref<8192xf32, #ascend.mem<ub>>
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK-COUNT-1: scf.if
// CHECK: } {ascend.multi_buffer_requested = 4 : i64, ascend.multi_buffer_slots = 2 : i64}
// CAP-LABEL: func.func @too_many_stages
// CAP-COUNT-4: memref.alloc() : memref<8192xf32, #ascend.mem<ub>>
// CAP-NOT: ascend.multi_buffer_requested
func.func @too_many_stages(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c8192 = arith.constant 8192 : index
  %a = memref.alloc() : memref<8192xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<8192xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c8192 {
    ascend.copy %x[%i], %a[%c0] sizes [8192] : memref<?xf32, #ascend.mem<gm>>, memref<8192xf32, #ascend.mem<ub>>
    ascend.vunary abs %b, %a : memref<8192xf32, #ascend.mem<ub>>
    ascend.copy %b[%c0], %x[%i] sizes [8192] : memref<8192xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  } {tile.num_stages = 4 : i64}
  return
}

// -----

// max-stages caps a loop that asks for more.
// CHECK-LABEL: func.func @capped
// CHECK-COUNT-4: memref.alloc() : memref<64xf32, #ascend.mem<ub>>
// CHECK-NOT: memref.alloc
// CAP-LABEL: func.func @capped
// CAP-COUNT-2: memref.alloc() : memref<64xf32, #ascend.mem<ub>>
// CAP-NOT: memref.alloc
// CAP: scf.for
// CAP-COUNT-1: scf.if
// CAP-NOT: scf.if
// CAP: return
func.func @capped(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c64 {
    ascend.copy %x[%i], %t[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
    ascend.copy %t[%c0], %x[%i] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  } {tile.num_stages = 4 : i64}
  return
}

// -----

// Nested pipelined loops: the inner one is unrolled first, then the outer
// one copies it; the tile private to the inner loop ends with 2 x 2 slots,
// the one the outer loop rewrites with 2.
// CHECK-LABEL: func.func @nested
// CHECK-COUNT-6: memref.alloc() : memref<64xf32, #ascend.mem<ub>>
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK: scf.for
// CHECK: } {ascend.multi_buffer_slots = 2 : i64}
// CHECK: scf.if
// CHECK: scf.for
// CHECK: } {ascend.multi_buffer_slots = 2 : i64}
// CHECK: } {ascend.multi_buffer_slots = 2 : i64}
func.func @nested(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %t = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %u = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  scf.for %j = %c0 to %n step %c256 {
    ascend.copy %x[%j], %u[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
    scf.for %i = %j to %n step %c64 {
      ascend.copy %x[%i], %t[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
      ascend.vbin add %t, %t, %u : memref<64xf32, #ascend.mem<ub>>
      ascend.copy %t[%c0], %x[%i] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
    } {tile.num_stages = 2 : i64}
  } {tile.num_stages = 2 : i64}
  return
}

// -----

// What a loop leaves in a buffer may be dead: %again is rewritten whole
// after the loop before it is read, so it gets a second slot. %carried is
// read at the start of the next iteration of the block loop before anything
// writes it: the value the pipelined loop leaves is live, one buffer.
// CHECK-LABEL: func.func @dead_after_the_loop
// CHECK: %[[AGAIN1:.*]] = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
// CHECK-NEXT: %[[AGAIN0:.*]] = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
// CHECK-NEXT: %[[CARRIED:.*]] = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
// CHECK-NOT: memref.alloc
// CHECK: scf.if
// CHECK: ascend.vunary exp %[[AGAIN1]], %[[AGAIN1]]
// CHECK: ascend.vunary exp %[[CARRIED]], %[[CARRIED]]
// CHECK: ascend.copy %{{.*}}, %[[AGAIN0]]
func.func @dead_after_the_loop(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %again = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %carried = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %block = ascend.block_idx : index
  %blocks = ascend.block_num : index
  scf.for %b = %block to %n step %blocks {
    ascend.copy %carried[%c0], %x[%b] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
    scf.for %i = %c0 to %n step %c64 {
      ascend.copy %x[%i], %again[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
      ascend.vunary exp %again, %again : memref<64xf32, #ascend.mem<ub>>
      ascend.copy %x[%i], %carried[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
      ascend.vunary exp %carried, %carried : memref<64xf32, #ascend.mem<ub>>
    } {tile.num_stages = 2 : i64}
    ascend.copy %x[%b], %again[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
    ascend.copy %again[%c0], %x[%b] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  }
  return
}
