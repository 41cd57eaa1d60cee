// A loop whose trip count only its test knows (an `scf.while`, as a DSL
// `while` or TileLang's stream-K tile walk lowers to) is synchronized as an
// `scf.for` with dynamic bounds: the body's flags pair up within a trip, the
// slot-free credits are set before the loop and drained after it, so a loop
// that runs no trip leaves no flag pending. The test region holds scalar code
// only (a test that touches buffers is an error, see the -invalid test).
//
// RUN: tile-opt %s --tile-ascend-inject-sync > %t.mlir
// RUN: filecheck %s < %t.mlir
// RUN: tile-sim %t.mlir --arg arange:256xf32 --arg zeros:256xf32 --arg 256 --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM
// RUN: tile-sim %t.mlir --arg arange:256xf32 --arg zeros:256xf32 --arg 0 --print-outputs \
// RUN:   | filecheck %s --check-prefix=EMPTY

// CHECK-LABEL: func.func @walk
// CHECK:      ascend.set_flag v -> mte2, [[FREE:[0-9]]]
// CHECK-NEXT: ascend.set_flag mte3 -> v, [[OUTFREE:[0-9]]]
// CHECK-NEXT: scf.while
// CHECK:      scf.condition
// CHECK:      } do {
// CHECK:      ascend.wait_flag v -> mte2, [[FREE]]
// CHECK-NEXT: ascend.copy %arg0
// CHECK-NEXT: ascend.set_flag mte2 -> v, [[LOADED:[0-9]]]
// CHECK-NEXT: ascend.wait_flag mte2 -> v, [[LOADED]]
// CHECK-NEXT: ascend.wait_flag mte3 -> v, [[OUTFREE]]
// CHECK-NEXT: ascend.vbins muls
// CHECK-NEXT: ascend.set_flag v -> mte3, [[DONE:[0-9]]]
// CHECK-NEXT: ascend.set_flag v -> mte2, [[FREE]]
// CHECK-NEXT: ascend.wait_flag v -> mte3, [[DONE]]
// CHECK-NEXT: ascend.copy {{.*}}, %arg1
// CHECK-NEXT: ascend.set_flag mte3 -> v, [[OUTFREE]]
// CHECK:      scf.yield
// CHECK-NEXT: }
// CHECK-NEXT: ascend.wait_flag v -> mte2, [[FREE]]
// CHECK-NEXT: ascend.wait_flag mte3 -> v, [[OUTFREE]]
// CHECK-NEXT: return

// SIM:      races: 0
// SIM-NEXT: deadlocks: 0
// SIM:      %arg1 = [  0.   2.   4.
// SIM:      506. 508. 510.]
// EMPTY:      races: 0
// EMPTY-NEXT: deadlocks: 0
// EMPTY:      %arg1 = [0. 0. 0.
func.func @walk(%x: memref<?xf32, #ascend.mem<gm>>, %y: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  %buf = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %out = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %r = scf.while (%i = %c0) : (index) -> index {
    %go = arith.cmpi ult, %i, %n : index
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    ascend.copy %x[%j], %buf[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
    ascend.vbins muls %out, %buf, %two : memref<64xf32, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<ub>>, f32
    ascend.copy %out[%c0], %y[%j] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
    %next = arith.addi %j, %c64 : index
    scf.yield %next : index
  }
  return
}
