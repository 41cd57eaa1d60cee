// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   --verify-diagnostics

// Cube work after the vector epilogue (the epilogue's result fed back into a
// gemm) needs a handoff back to the cube: not yet.
func.func @relu_before_another_gemm(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    // expected-error @+1 {{tile-ascend-split-cores: 'tile.gemm' does cube work after the accumulator is handed to the vector cores (not supported yet)}}
    tile.gemm %l, %l, %acc : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// The AIVs split the accumulator by rows: it must be indexed by the rows of
// the epilogue's tile.parallel.
func.func @transposed_epilogue(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      // expected-error @+1 {{tile-ascend-split-cores: the accumulator handed to the vector cores must be indexed by the rows of its tile.parallel (not supported yet)}}
      %v = memref.load %acc[%j, %i] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %acc[%j, %i] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// Two accumulators handed to the vector cores: one ring per kernel for now.
func.func @two_handoffs(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %acc2 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.gemm %l, %l, %acc2 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    // expected-error @+1 {{tile-ascend-split-cores: a second tile.gemm accumulator handed to the vector cores is not supported yet}}
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %acc2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}
