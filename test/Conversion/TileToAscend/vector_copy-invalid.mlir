// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend --verify-diagnostics

func.func @global_to_global(%x: memref<?xf32>, %y: memref<?xf32>, %i: index) {
  // expected-error @+1 {{ascend-vector-copy (both operands are global buffers (no UB tile))}}
  tile.copy %x[%i], %y[%i] sizes [64] : memref<?xf32>, memref<?xf32>
  return
}
