// RUN: tile-opt %s --tile-ascend-inject-sync | filecheck %s
// RUN: tile-opt %s --tile-ascend-inject-sync | tile-sim - --arg arange:512xf32 --arg ones:512xf32 \
// RUN:     --arg zeros:512xf32 --print-outputs | filecheck %s --check-prefix=SIM
// RUN: tile-opt %s --tile-ascend-inject-sync | tile-sim - --arg arange:512xf32 --arg ones:512xf32 \
// RUN:     --arg zeros:512xf32 --flag-identity source | filecheck %s --check-prefix=SOURCE

// Straight-line GM -> UB -> vector -> GM, twice through the same buffers.
// Each set comes right after its producer (the WAR "a and b are free" flag
// after the add that reads them, not after the multiply), each wait right
// before its consumer; the multiply after the add is on the same pipe, which
// overlaps its instructions: a pipe_barrier v orders it after the add.
// The v -> mte3 flag gets id 1: v -> mte2 0 is pending then, and flags from
// one pipe must differ in id to be safe when the hardware names a flag by
// (source pipe, id) only.

// CHECK-LABEL: func.func @straight
// CHECK:      ascend.copy %arg0[%c0], %[[A:.*]][%c0] sizes [256]
// CHECK-NEXT: ascend.copy %arg1[%c0], %[[B:.*]][%c0] sizes [256]
// CHECK-NEXT: ascend.set_flag mte2 -> v, 0
// CHECK-NEXT: ascend.wait_flag mte2 -> v, 0
// CHECK-NEXT: ascend.vbin add %[[C:.*]], %[[A]], %[[B]]
// CHECK-NEXT: ascend.set_flag v -> mte2, 0
// CHECK-NEXT: ascend.pipe_barrier v
// CHECK-NEXT: ascend.vbins muls %[[C]], %[[C]]
// CHECK-NEXT: ascend.set_flag v -> mte3, 1
// CHECK-NEXT: ascend.wait_flag v -> mte3, 1
// CHECK-NEXT: ascend.copy %[[C]][%c0], %arg2[%c0] sizes [256]
// CHECK-NEXT: ascend.set_flag mte3 -> v, 0
// CHECK-NEXT: ascend.wait_flag v -> mte2, 0
// CHECK-NEXT: ascend.copy %arg0[%c256], %[[A]][%c0] sizes [256]
// CHECK-NEXT: ascend.copy %arg1[%c256], %[[B]][%c0] sizes [256]
// CHECK-NEXT: ascend.set_flag mte2 -> v, 0
// CHECK-NEXT: ascend.wait_flag mte2 -> v, 0
// CHECK-NEXT: ascend.wait_flag mte3 -> v, 0
// CHECK-NEXT: ascend.vbin add %[[C]], %[[A]], %[[B]]
// CHECK-NEXT: ascend.set_flag v -> mte3, 1
// CHECK-NEXT: ascend.wait_flag v -> mte3, 1
// CHECK-NEXT: ascend.copy %[[C]][%c0], %arg2[%c256] sizes [256]
// CHECK-NEXT: return

// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM-NEXT: sync instructions: 13 (set_flag 6, wait_flag 6, pipe_barrier 1, pipe_barrier all 0)
// SIM: %arg2 = [  2.   4.   6. ... 510. 511. 512.]

// SOURCE: races: 0
// SOURCE-NEXT: deadlocks: 0
// SOURCE-NEXT: sync instructions: 13 (set_flag 6, wait_flag 6, pipe_barrier 1, pipe_barrier all 0)
func.func @straight(%x: memref<512xf32, #ascend.mem<gm>>, %y: memref<512xf32, #ascend.mem<gm>>,
                    %z: memref<512xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %c = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %a[%c0] sizes [256] : memref<512xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.copy %y[%c0], %b[%c0] sizes [256] : memref<512xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.vbin add %c, %a, %b : memref<256xf32, #ascend.mem<ub>>
  ascend.vbins muls %c, %c, %two : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.copy %c[%c0], %z[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<512xf32, #ascend.mem<gm>>
  ascend.copy %x[%c256], %a[%c0] sizes [256] : memref<512xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.copy %y[%c256], %b[%c0] sizes [256] : memref<512xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.vbin add %c, %a, %b : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %c[%c0], %z[%c256] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<512xf32, #ascend.mem<gm>>
  return
}
