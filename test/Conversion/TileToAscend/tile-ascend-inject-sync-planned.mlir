// RUN: tile-opt %s --tile-ascend-inject-sync | filecheck %s
// RUN: tile-opt %s --tile-ascend-inject-sync | tile-sim - --arg arange:256xf32 --arg ones:256xf32 \
// RUN:     --arg zeros:256xf32 --arg zeros:128xf32 --flag-identity source --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM

// Planned buffers (`ascend.offset`) are byte ranges of UB: %c reuses the
// upper half of %b's bytes [1536, 2048). Loading %c must wait for the add
// that wrote %b (v -> mte2, a hazard only through the reuse) but not for the
// store of %b's lower half [1024, 1536), which touches other bytes. %d, at
// 4096, shares no byte with anything: its load waits for nothing.

// CHECK-LABEL: func.func @planned
// CHECK:      ascend.copy %arg0[%c0], %[[A:.*]][%c0] sizes [256]
// CHECK-NEXT: ascend.set_flag mte2 -> v, 0
// CHECK-NEXT: ascend.wait_flag mte2 -> v, 0
// CHECK-NEXT: ascend.vbin add %[[B:.*]], %[[A]], %[[A]]
// CHECK-NEXT: ascend.set_flag v -> mte3, 0
// CHECK-NEXT: ascend.set_flag v -> mte2, 1
// CHECK-NEXT: ascend.wait_flag v -> mte3, 0
// CHECK-NEXT: ascend.copy %{{.*}}[%c0], %arg2[%c0] sizes [128]
// CHECK-NEXT: ascend.wait_flag v -> mte2, 1
// CHECK-NEXT: ascend.copy %arg1[%c0], %[[C:.*]][%c0] sizes [128]
// CHECK-NEXT: ascend.set_flag mte2 -> mte3, 0
// CHECK-NEXT: ascend.wait_flag mte2 -> mte3, 0
// CHECK-NEXT: ascend.copy %[[C]][%c0], %arg3[%c0] sizes [128]
// CHECK-NEXT: ascend.copy %arg1[%c0], %[[D:.*]][%c0] sizes [256]
// CHECK-NEXT: ascend.set_flag mte2 -> mte3, 1
// CHECK-NEXT: ascend.wait_flag mte2 -> mte3, 1
// CHECK-NEXT: ascend.pipe_barrier mte3
// CHECK-NEXT: ascend.copy %[[D]][%c0], %arg2[%c0] sizes [256]
// CHECK-NEXT: return

// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM-NEXT: sync instructions: 11 (set_flag 5, wait_flag 5, pipe_barrier 1, pipe_barrier all 0)
// SIM: %arg3 = [1. 1. 1.
func.func @planned(%x: memref<256xf32, #ascend.mem<gm>>, %y: memref<256xf32, #ascend.mem<gm>>,
                   %z: memref<256xf32, #ascend.mem<gm>>, %w: memref<128xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() {ascend.offset = 0 : i64} : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() {ascend.offset = 1024 : i64} : memref<256xf32, #ascend.mem<ub>>
  %c = memref.alloc() {ascend.offset = 1536 : i64} : memref<128xf32, #ascend.mem<ub>>
  %d = memref.alloc() {ascend.offset = 4096 : i64} : memref<256xf32, #ascend.mem<ub>>
  %b_low = memref.subview %b[0] [128] [1]
      : memref<256xf32, #ascend.mem<ub>> to memref<128xf32, strided<[1]>, #ascend.mem<ub>>
  ascend.copy %x[%c0], %a[%c0] sizes [256] : memref<256xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.vbin add %b, %a, %a : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %b_low[%c0], %z[%c0] sizes [128]
      : memref<128xf32, strided<[1]>, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  ascend.copy %y[%c0], %c[%c0] sizes [128] : memref<256xf32, #ascend.mem<gm>>, memref<128xf32, #ascend.mem<ub>>
  ascend.copy %c[%c0], %w[%c0] sizes [128] : memref<128xf32, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<gm>>
  ascend.copy %y[%c0], %d[%c0] sizes [256] : memref<256xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.copy %d[%c0], %z[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  return
}
