// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --verify-diagnostics


// A UB tile next to a gemm: the kernel would need both kinds of core.
func.func @vector_tile_beside_a_gemm(%a: memref<32x32xf16>, %c: memref<32x32xf32>, %x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %t = tile.alloc : memref<64xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
    // expected-error @+1 {{'tile.copy' needs a vector core (its tile lives in ub) but the kernel also runs tile.gemm on the cube: it needs both cube and vector cores (mixed kernels are not supported yet)}}
    tile.copy %x[%c0], %t[%c0] : memref<64xf32>, memref<64xf32, #tile.scope<fragment>>
    tile.copy %t[%c0], %x[%c0] : memref<64xf32, #tile.scope<fragment>>, memref<64xf32>
  }
  return
}

// -----

func.func @operand_and_accumulator(%c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %t = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    // expected-error @+1 {{a tile used as both an operand and the accumulator of tile.gemm has no place on the cube}}
    tile.gemm %t, %t, %t : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}
