// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend --verify-diagnostics

// A GM -> GM copy goes through UB whole rows at a time: a row of more than
// 32 KiB (10000 f32) is not staged.
func.func @global_to_global_wide_rows(%x: memref<?x10000xf32>, %y: memref<?x10000xf32>, %i: index) {
  // expected-error @+1 {{a copy from GM to GM of rows of 40000 bytes: it is staged in UB whole rows at a time, at most 32768 bytes}}
  tile.copy %x[%i, %i], %y[%i, %i] sizes [4, 10000] : memref<?x10000xf32>, memref<?x10000xf32>
  return
}
