// A 64x64-tiled GEMM, C = A * B, one block per output tile (see README.md).
// Checked by test/tile-opt/examples.mlir: the zero fill becomes a clear, and
// the gemm keeps accumulating because it runs once per k step.
// CHECK-LABEL: func.func @gemm
// PLUGIN-GEMM: tile.pipelined %{{.*}} num_stages = 2
// CHECK: tile.clear
// CHECK: tile.pipelined
// CHECK-NOT: clear_accum
// CHECK: tile.gemm
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>,
                %gm: index, %gn: index, %kt: index) {
  tile.kernel blocks(%bx, %by) in (%gn, %gm) threads = 128 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    %zero = arith.constant 0.0 : f32
    tile.fill %acc, %zero : memref<64x64xf32, #tile.scope<fragment>>, f32
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %c32 = arith.constant 32 : index
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%row, %kk], %a[%c0, %c0] : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
      tile.copy %B[%kk, %col], %b[%c0, %c0] : memref<?x?xf16>, memref<32x64xf16, #tile.scope<shared>>
      tile.gemm %a, %b, %acc : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %C[%row, %col] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xf32>
  }
  return
}
