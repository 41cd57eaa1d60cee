// Input of convert-tile-to-cpu.mlir: `ops` lowers only the ops it names, in
// the pass's own order; without it every tile op goes.

// ONLY-COPY-LABEL: func.func @copy_and_gemm
// ONLY-COPY: tile.kernel
// ONLY-COPY-NOT: tile.copy
// ONLY-COPY: tile.gemm
// ONLY-COPY-NOT: tile.copy
// ALL-LABEL: func.func @copy_and_gemm
// ALL-SAME: llvm.emit_c_interface
// ALL-NOT: {{(= |^ *)tile\.[a-z]}}
func.func @copy_and_gemm(%A: memref<?x?xf32>, %n: index) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %a = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
    %c = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
    tile.copy %A[%bx, %c0], %a[%c0, %c0] : memref<?x?xf32>, memref<8x8xf32, #tile.scope<shared>>
    tile.gemm %a, %a, %c : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
    tile.copy %c[%c0, %c0], %A[%bx, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<?x?xf32>
  }
  return
}
