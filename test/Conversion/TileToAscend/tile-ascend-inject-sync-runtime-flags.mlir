// The AscendC runtime holds M -> MTE1 flags 0, 1 and 2 on the AIC for the whole kernel
// (TPipe's constructor sets them, its destructor waits for them: kernel_tpipe_impl.h on
// 2201, dav_3510/kernel_tpipe_impl_c310.h on 3510). Six mmads into six L0C tiles ahead of
// their six fixpipes leave six M -> FIX flags pending at once, more than the five ids the
// runtime leaves: the kernel borrows its three (waits for them first, sets them again
// last), each side behind a PIPE_ALL barrier, and runs clean under both readings of a
// flag's identity. Without the last barrier, M sets M -> MTE1 2 again while its M -> FIX
// 2 is still pending, which is one flag when the hardware names a flag by its source pipe.
//
// RUN: tile-opt %s --tile-ascend-inject-sync > %t.mlir
// RUN: filecheck %s < %t.mlir
// RUN: tile-opt %s --tile-ascend-inject-sync=target=ascend:950 | filecheck %s
// RUN: tile-sim %t.mlir --arg arange:16x16xf16 --arg ones:16x16xf16 --arg zeros:96x16xf32 \
// RUN:     --print-outputs | filecheck %s --check-prefix=SIM
// RUN: tile-sim %t.mlir --arg arange:16x16xf16 --arg ones:16x16xf16 --arg zeros:96x16xf32 \
// RUN:     --print-outputs --flag-identity source | filecheck %s --check-prefix=SIM
// RUN: grep -v "pipe_barrier all" %t.mlir > %t.unordered.mlir
// RUN: not tile-sim %t.unordered.mlir --arg arange:16x16xf16 --arg ones:16x16xf16 \
// RUN:     --arg zeros:96x16xf32 --flag-identity source 2>&1 | filecheck %s --check-prefix=UNORDERED

// CHECK-LABEL: func.func @six_tiles
// CHECK-NEXT:    ascend.wait_flag m -> mte1, 0
// CHECK-NEXT:    ascend.wait_flag m -> mte1, 1
// CHECK-NEXT:    ascend.wait_flag m -> mte1, 2
// CHECK-NEXT:    ascend.pipe_barrier all
// CHECK:         ascend.mmad
// CHECK-NEXT:    ascend.set_flag m -> fix, 0
// CHECK:         ascend.set_flag m -> fix, 5
// CHECK:         ascend.wait_flag m -> fix, 5
// CHECK-NEXT:    ascend.fixpipe
// CHECK-NEXT:    ascend.pipe_barrier all
// CHECK-NEXT:    ascend.set_flag m -> mte1, 0
// CHECK-NEXT:    ascend.set_flag m -> mte1, 1
// CHECK-NEXT:    ascend.set_flag m -> mte1, 2
// CHECK-NEXT:    return

// A = arange(256) as 16 x 16, B = ones: row r of each product is 256 r + 120.
// SIM:      races: 0
// SIM-NEXT: deadlocks: 0
// SIM-NEXT: sync instructions: 26 (set_flag 12, wait_flag 12, pipe_barrier 0, pipe_barrier all 2)
// SIM:      %arg2 = {{\[\[}} 120.  120.
// SIM-NEXT:  [ 376.  376.
// SIM:       [3960. 3960.

// UNORDERED: error: ascend.set_flag m -> mte1, 2 on block 0 aic sets flag m -> mte1, 2 that is already set (as m -> fix, 2: one flag per source pipe and event)

func.func @six_tiles(%a: memref<16x16xf16, #ascend.mem<gm>>, %b: memref<16x16xf16, #ascend.mem<gm>>,
                     %c: memref<96x16xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  %c64 = arith.constant 64 : index
  %c80 = arith.constant 80 : index
  %l1_a = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l1>>
  %l1_b = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l1>>
  %l0_a = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0a>>
  %l0_b = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0b>>
  %l0_c0 = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %l0_c1 = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %l0_c2 = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %l0_c3 = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %l0_c4 = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %l0_c5 = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  ascend.copy_nd2nz %a[%c0, %c0], %l1_a sizes [16, 16]
      : memref<16x16xf16, #ascend.mem<gm>>, memref<1x1x16x16xf16, #ascend.mem<l1>>
  ascend.copy_nd2nz %b[%c0, %c0], %l1_b sizes [16, 16]
      : memref<16x16xf16, #ascend.mem<gm>>, memref<1x1x16x16xf16, #ascend.mem<l1>>
  ascend.load_l0a %l1_a, %l0_a sizes [16, 16]
      : memref<1x1x16x16xf16, #ascend.mem<l1>>, memref<1x1x16x16xf16, #ascend.mem<l0a>>
  ascend.load_l0b %l1_b, %l0_b sizes [16, 16]
      : memref<1x1x16x16xf16, #ascend.mem<l1>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>
  ascend.mmad %l0_a, %l0_b, %l0_c0 sizes [16, 16, 16] {init}
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %l0_a, %l0_b, %l0_c1 sizes [16, 16, 16] {init}
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %l0_a, %l0_b, %l0_c2 sizes [16, 16, 16] {init}
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %l0_a, %l0_b, %l0_c3 sizes [16, 16, 16] {init}
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %l0_a, %l0_b, %l0_c4 sizes [16, 16, 16] {init}
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %l0_a, %l0_b, %l0_c5 sizes [16, 16, 16] {init}
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  ascend.fixpipe %l0_c0, %c[%c0, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<96x16xf32, #ascend.mem<gm>>
  ascend.fixpipe %l0_c1, %c[%c16, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<96x16xf32, #ascend.mem<gm>>
  ascend.fixpipe %l0_c2, %c[%c32, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<96x16xf32, #ascend.mem<gm>>
  ascend.fixpipe %l0_c3, %c[%c48, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<96x16xf32, #ascend.mem<gm>>
  ascend.fixpipe %l0_c4, %c[%c64, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<96x16xf32, #ascend.mem<gm>>
  ascend.fixpipe %l0_c5, %c[%c80, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<96x16xf32, #ascend.mem<gm>>
  return
}
