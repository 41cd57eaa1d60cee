// RUN: tile-opt %s -split-input-file --tile-ascend-check-addresses --verify-diagnostics

// Both tiles hold data at once (the add reads both) and share bytes [1024, 2048).
func.func @overlap(%out: memref<256xf32, #ascend.mem<gm>>) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() {ascend.offset = 0 : i64} : memref<512xf32, #ascend.mem<ub>>
  // expected-error @+1 {{tile-ascend-check-addresses: T.annotate_address puts this ub tile (1024 B at offset 1024) on bytes [1024, 2048) of the tile allocated at}}
  %b = memref.alloc() {ascend.offset = 1024 : i64} : memref<256xf32, #ascend.mem<ub>>
  %a0 = memref.subview %a[0] [256] [1] : memref<512xf32, #ascend.mem<ub>> to memref<256xf32, strided<[1]>, #ascend.mem<ub>>
  ascend.vdup %a, %one : memref<512xf32, #ascend.mem<ub>>, f32
  ascend.vdup %b, %one : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.vbin add %b, %a0, %b : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, strided<[1]>, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<ub>>
  ascend.copy %b[%c0], %out[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  return
}

// -----

// A tile used across iterations (read before it is written in each) stays live for the
// whole loop: the other tile's uses in the loop meet it.
func.func @carried(%out: memref<256xf32, #ascend.mem<gm>>, %n: index) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %acc = memref.alloc() {ascend.offset = 0 : i64} : memref<256xf32, #ascend.mem<ub>>
  // expected-error @+1 {{on bytes [0, 1024) of the tile allocated at}}
  %tmp = memref.alloc() {ascend.offset = 0 : i64} : memref<256xf32, #ascend.mem<ub>>
  ascend.vdup %acc, %one : memref<256xf32, #ascend.mem<ub>>, f32
  scf.for %i = %c0 to %n step %c1 {
    ascend.vdup %tmp, %one : memref<256xf32, #ascend.mem<ub>>, f32
    ascend.vbin add %acc, %acc, %tmp : memref<256xf32, #ascend.mem<ub>>
  }
  ascend.copy %acc[%c0], %out[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  return
}
