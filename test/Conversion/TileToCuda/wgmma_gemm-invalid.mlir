// RUN: tile-opt %s -split-input-file --convert-tile-to-cuda="arch=sm_90a" --verify-diagnostics
// RUN: not tile-opt %s -split-input-file --convert-tile-to-cuda="arch=sm_89" 2>&1 | filecheck %s --check-prefix=SM89

// fp8 operands of a gemm are lowered on sm_90a (wgmma); sm_89 has no wgmma, so
// they are an error there (tile-opt stops at this first failing function).
func.func @fp8_gemm(%A: memref<64x32xf8E4M3FN>, %B: memref<64x32xf8E4M3FN>, %C: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %c0 = arith.constant 0 : index
    // SM89: wgmma_gemm-invalid.mlir:11:10: error: 'tile.alloc' uses f8E4M3FN: 8-bit float tiles are not lowered for cuda on cuda:sm_89 (only as sm_90a wgmma operands)
    %a = tile.alloc : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %b = tile.alloc : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %c = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x32xf8E4M3FN>, memref<64x32xf8E4M3FN, #tile.scope<shared>>
    tile.copy %B[%c0, %c0], %b[%c0, %c0] : memref<64x32xf8E4M3FN>, memref<64x32xf8E4M3FN, #tile.scope<shared>>
    tile.gemm %a, %b, %c transpose_b clear_accum : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %c[%c0, %c0], %C[%c0, %c0] : memref<64x64xf32, #tile.scope<fragment>>, memref<64x64xf32>
  }
  return
}

// -----

// Otherwise on sm_90a 8-bit floats are an error: an fp8 shared
// tile that a T.Parallel reads element by element is an error at each op
// that touches it, before any LLVM code exists.
func.func @fp8_read_by_elements(%A: memref<64x64xf8E4M3FN>, %C: memref<64x64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %c0 = arith.constant 0 : index
    // expected-error @+1 {{'tile.alloc' uses f8E4M3FN: 8-bit float tiles are not lowered for cuda outside the operands of wgmma gemms}}
    %a = tile.alloc : memref<64x64xf8E4M3FN, #tile.scope<shared>>
    // expected-error @+1 {{'tile.copy' uses f8E4M3FN}}
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x64xf8E4M3FN>, memref<64x64xf8E4M3FN, #tile.scope<shared>>
    tile.parallel (%i, %j) in (64, 64) {
      // expected-error @+1 {{'memref.load' uses f8E4M3FN}}
      %x = memref.load %a[%i, %j] : memref<64x64xf8E4M3FN, #tile.scope<shared>>
      // expected-error @+1 {{'arith.extf' uses f8E4M3FN}}
      %y = arith.extf %x : f8E4M3FN to f32
      memref.store %y, %C[%i, %j] : memref<64x64xf32>
      tile.yield
    }
  }
  return
}
