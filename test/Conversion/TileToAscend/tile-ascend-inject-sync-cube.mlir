// RUN: tile-opt %s --tile-ascend-inject-sync | filecheck %s
// RUN: tile-opt %s --tile-ascend-inject-sync | tile-sim - --arg ones:64x128xf16 \
// RUN:     --arg ones:128x48xf16 --arg zeros:64x48xf32 --print-outputs | filecheck %s --check-prefix=SIM
// RUN: tile-opt %s --tile-ascend-inject-sync | tile-sim - --arg random:64x128xf16 \
// RUN:     --arg random:128x48xf16 --arg zeros:64x48xf32 --flag-identity source \
// RUN:   | filecheck %s --check-prefix=SOURCE
// RUN: tile-opt %s --tile-ascend-inject-sync=strategy=barrier | tile-sim - --arg ones:64x128xf16 \
// RUN:     --arg ones:128x48xf16 --arg zeros:64x48xf32 --print-outputs \
// RUN:   | filecheck %s --check-prefix=BARRIER

// A cube K loop, single-buffered: copy_nd2nz (MTE2) -> load_l0a/l0b (MTE1)
// -> mmad (M, init in the first iteration) -> after the loop fixpipe (FIX).
// RAW flags per operand (load_l0a waits only for A's copy), WAR "L1 free"
// and "L0 free" as credits around the loop, one wait before each mmad
// (in both branches of the `if`) and one set after each, and the m -> fix
// flag set after the loop (its producer is inside, its consumer is not).

// CHECK-LABEL: func.func @gemm_k
// CHECK:      ascend.set_flag mte1 -> mte2, [[AFREE:[0-9]]]
// CHECK-NEXT: ascend.set_flag mte1 -> mte2, [[BFREE:[0-9]]]
// CHECK-NEXT: ascend.set_flag m -> mte1, [[L0FREE:[0-9]]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: ascend.wait_flag mte1 -> mte2, [[AFREE]]
// CHECK-NEXT: ascend.copy_nd2nz %arg0
// CHECK-NEXT: ascend.set_flag mte2 -> mte1, [[AIN:[0-9]]]
// CHECK-NEXT: ascend.wait_flag mte1 -> mte2, [[BFREE]]
// CHECK-NEXT: ascend.copy_nd2nz %arg1
// CHECK-NEXT: ascend.set_flag mte2 -> mte1, [[BIN:[0-9]]]
// CHECK-NEXT: ascend.wait_flag mte2 -> mte1, [[AIN]]
// CHECK-NEXT: ascend.wait_flag m -> mte1, [[L0FREE]]
// CHECK-NEXT: ascend.load_l0a
// CHECK-NEXT: ascend.set_flag mte1 -> mte2, [[AFREE]]
// CHECK-NEXT: ascend.wait_flag mte2 -> mte1, [[BIN]]
// CHECK-NEXT: ascend.load_l0b
// CHECK-NEXT: ascend.set_flag mte1 -> m, [[LOADED:[0-9]]]
// CHECK-NEXT: ascend.set_flag mte1 -> mte2, [[BFREE]]
// CHECK-NEXT: arith.cmpi
// CHECK-NEXT: scf.if
// CHECK-NEXT: ascend.wait_flag mte1 -> m, [[LOADED]]
// CHECK-NEXT: ascend.mmad {{.*}} {init}
// CHECK-NEXT: ascend.set_flag m -> mte1, [[L0FREE]]
// CHECK-NEXT: } else {
// CHECK-NEXT: ascend.wait_flag mte1 -> m, [[LOADED]]
// CHECK-NEXT: ascend.mmad
// CHECK-NEXT: ascend.set_flag m -> mte1, [[L0FREE]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: ascend.wait_flag mte1 -> mte2, [[AFREE]]
// CHECK-NEXT: ascend.wait_flag mte1 -> mte2, [[BFREE]]
// CHECK-NEXT: ascend.wait_flag m -> mte1, [[L0FREE]]
// CHECK-NEXT: ascend.set_flag m -> fix, [[DONE:[0-9]]]
// CHECK-NEXT: ascend.wait_flag m -> fix, [[DONE]]
// CHECK-NEXT: ascend.fixpipe
// CHECK-NEXT: return

// 128 = K: every element of ones(64x128) x ones(128x48).
// SIM: cycles: 1488
// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM-NEXT: sync instructions: 56 (set_flag 28, wait_flag 28, pipe_barrier 0, pipe_barrier all 0)
// SIM: %arg2 = [[128. 128. 128. ... 128. 128. 128.]

// SOURCE: races: 0
// SOURCE-NEXT: deadlocks: 0

// The PIPE_ALL baseline: right numbers, 17% slower.
// BARRIER: cycles: 1736
// BARRIER: races: 0
// BARRIER-NEXT: deadlocks: 0
// BARRIER-NEXT: sync instructions: 9 (set_flag 0, wait_flag 0, pipe_barrier 0, pipe_barrier all 9)
// BARRIER: %arg2 = [[128. 128. 128. ... 128. 128. 128.]
func.func @gemm_k(%a: memref<64x128xf16, #ascend.mem<gm>>, %b: memref<128x48xf16, #ascend.mem<gm>>,
                  %c: memref<64x48xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %l1a = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  %l1b = memref.alloc() : memref<3x2x16x16xf16, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  %l0b = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l0b>>
  %l0c = memref.alloc() : memref<3x4x16x16xf32, #ascend.mem<l0c>>
  scf.for %k = %c0 to %c128 step %c32 {
    ascend.copy_nd2nz %a[%c0, %k], %l1a sizes [64, 32]
        : memref<64x128xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
    ascend.copy_nd2nz %b[%k, %c0], %l1b sizes [32, 48]
        : memref<128x48xf16, #ascend.mem<gm>>, memref<3x2x16x16xf16, #ascend.mem<l1>>
    ascend.load_l0a %l1a, %l0a sizes [64, 32]
        : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
    ascend.load_l0b %l1b, %l0b sizes [32, 48]
        : memref<3x2x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>
    %first = arith.cmpi eq, %k, %c0 : index
    scf.if %first {
      ascend.mmad %l0a, %l0b, %l0c sizes [64, 48, 32] {init}
          : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>,
            memref<3x4x16x16xf32, #ascend.mem<l0c>>
    } else {
      ascend.mmad %l0a, %l0b, %l0c sizes [64, 48, 32]
          : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>,
            memref<3x4x16x16xf32, #ascend.mem<l0c>>
    }
  }
  ascend.fixpipe %l0c, %c[%c0, %c0] sizes [64, 48]
      : memref<3x4x16x16xf32, #ascend.mem<l0c>>, memref<64x48xf32, #ascend.mem<gm>>
  return
}
