// RUN: tile-opt %s -split-input-file --tile-widen-bools="conversions=false" --verify-diagnostics

// Without conversions (cuda, ascend: their lowerings do not read the marks), a copy
// that converts to or from bools is an error rather than a wrong byte.
func.func @convert_to_bools(%A: memref<?x?xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<4x8xi1, #tile.scope<fragment>>
    // expected-error @+1 {{a tile.copy to bools from f32 is not supported on this target yet (bools are stored as bytes; only plain loads, stores and copies of them are)}}
    tile.copy %A[%i, %c0], %t[%c0, %c0] : memref<?x?xf32>, memref<4x8xi1, #tile.scope<fragment>>
  }
  return
}

// -----

func.func @convert_from_bools(%C: memref<?x?xi32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<4x8xi1, #tile.scope<fragment>>
    // expected-error @+1 {{a tile.copy from bools to i32 is not supported on this target yet}}
    tile.copy %t[%c0, %c0], %C[%i, %c0] : memref<4x8xi1, #tile.scope<fragment>>, memref<?x?xi32>
  }
  return
}

// -----

// A sum of bools is an or of their bytes, which only cpu lowers so far.
func.func @sum_of_bools(%i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<4x8xi1, #tile.scope<fragment>>
    %r = tile.alloc : memref<4xi1, #tile.scope<fragment>>
    // expected-error @+1 {{a sum reduction of bools is not supported on this target yet}}
    tile.reduce sum %t, %r dim = 1 : memref<4x8xi1, #tile.scope<fragment>>, memref<4xi1, #tile.scope<fragment>>
  }
  return
}

// -----

// Plain copies of bools and max reductions (any) need no conversion.
func.func @plain(%B: memref<?x?xi1>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<4x8xi1, #tile.scope<fragment>>
    %r = tile.alloc : memref<4xi1, #tile.scope<fragment>>
    tile.copy %B[%i, %c0], %t[%c0, %c0] : memref<?x?xi1>, memref<4x8xi1, #tile.scope<fragment>>
    tile.reduce max %t, %r dim = 1 : memref<4x8xi1, #tile.scope<fragment>>, memref<4xi1, #tile.scope<fragment>>
  }
  return
}
