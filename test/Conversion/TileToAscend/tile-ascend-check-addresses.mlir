// RUN: tile-opt %s -split-input-file --tile-ascend-check-addresses | filecheck %s

// Two author-placed UB tiles on the same bytes, one dead before the other is written
// (the temporaries of flash attention's phases): accepted as placed.

// CHECK-LABEL: func.func @phases
// CHECK:       memref.alloc() {ascend.offset = 1024 : i64}
// CHECK:       memref.alloc() {ascend.offset = 1024 : i64}
func.func @phases(%out: memref<256xf32, #ascend.mem<gm>>) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() {ascend.offset = 1024 : i64} : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() {ascend.offset = 1024 : i64} : memref<256xf32, #ascend.mem<ub>>
  ascend.vdup %a, %one : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.copy %a[%c0], %out[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  ascend.vdup %b, %one : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.copy %b[%c0], %out[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  return
}

// -----

// A tile rewritten before it is read in every iteration is dead between iterations:
// another tile may take its bytes in the same loop.

// CHECK-LABEL: func.func @private_in_a_loop
func.func @private_in_a_loop(%out: memref<256xf32, #ascend.mem<gm>>, %n: index) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() {ascend.offset = 0 : i64} : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() {ascend.offset = 0 : i64} : memref<256xf32, #ascend.mem<ub>>
  scf.for %i = %c0 to %n step %c1 {
    ascend.vdup %a, %one : memref<256xf32, #ascend.mem<ub>>, f32
    ascend.copy %a[%c0], %out[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
    ascend.vdup %b, %one : memref<256xf32, #ascend.mem<ub>>, f32
    ascend.copy %b[%c0], %out[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  }
  return
}
