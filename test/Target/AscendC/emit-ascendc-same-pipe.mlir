// The AscendC of a chain of vector ops synchronized by tile-ascend-inject-sync:
// on the 910b a PipeBarrier<PIPE_V> between each dependent pair of calls and
// none between independent ones (the two Duplicates; the second one's bytes
// are planned into the multiply's, which the barrier before it covers too);
// on the 950, whose vector pipe orders dependent instructions in hardware,
// none at all.
//
// RUN: tile-opt %s --tile-ascend-plan-memory --tile-ascend-inject-sync --emit=ascendc \
// RUN:   | filecheck %s
// RUN: tile-opt %s --tile-ascend-plan-memory="target=ascend:950" \
// RUN:   --tile-ascend-inject-sync="target=ascend:950" --emit=ascendc:950 | filecheck %s --check-prefix=A950

// CHECK-LABEL: void chain(
// CHECK:      // [0] ascend.vdup
// CHECK-NEXT: Duplicate(
// CHECK-NEXT: // [1] ascend.vdup
// CHECK-NEXT: Duplicate(
// CHECK-NEXT: // [2] ascend.pipe_barrier
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: // [3] ascend.vbins muls
// CHECK-NEXT: Muls(
// CHECK-NEXT: // [4] ascend.pipe_barrier
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: // [5] ascend.vbin add
// CHECK-NEXT: Add(
// CHECK-NOT: PipeBarrier
// CHECK: DataCopyPad

// A950-LABEL: void chain(
// A950-NOT: PipeBarrier
// A950: DataCopyPad
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
