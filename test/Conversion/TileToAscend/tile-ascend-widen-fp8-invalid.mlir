// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-ascend-widen-fp8="target=ascend:910b"

func.func @square(%A: memref<32x32xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x32xf8E4M3FN, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<32x32xf8E4M3FN>, memref<32x32xf8E4M3FN, #tile.scope<shared>>
    // expected-error @+1 {{an fp8 tile multiplied by itself on a profile without an fp8 cube is not supported (copy it into a second tile)}}
    tile.gemm %a, %a, %acc clear_accum : memref<32x32xf8E4M3FN, #tile.scope<shared>>, memref<32x32xf8E4M3FN, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @view_operand(%A: memref<32x32xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<2x32x32xf8E4M3FN, #tile.scope<shared>>
    %b = tile.alloc : memref<32x32xf8E4M3FN, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %half = memref.collapse_shape %a [[0, 1], [2]] : memref<2x32x32xf8E4M3FN, #tile.scope<shared>> into memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %first = memref.subview %half[0, 0] [32, 32] [1, 1] : memref<64x32xf8E4M3FN, #tile.scope<shared>> to memref<32x32xf8E4M3FN, strided<[32, 1]>, #tile.scope<shared>>
    // expected-error @+1 {{an fp8 gemm operand on a profile without an fp8 cube is a tile of its own (tile.alloc), not 'memref.subview'}}
    tile.gemm %first, %b, %acc clear_accum : memref<32x32xf8E4M3FN, strided<[32, 1]>, #tile.scope<shared>>, memref<32x32xf8E4M3FN, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @partial_quantize(%X: memref<8x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %q = tile.alloc : memref<8x128xf8E4M3FN, #tile.scope<fragment>>
    // expected-error @+1 {{a tile.copy that converts f32 to f8E4M3FN on a profile without fp8 units moves a whole on-chip tile onto another of its shape (copy the bytes first)}}
    tile.copy %X[%c0, %c0], %q[%c0, %c0] : memref<8x128xf32>, memref<8x128xf8E4M3FN, #tile.scope<fragment>>
  }
  return
}
