// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend --verify-diagnostics

func.func @fill_global(%x: memref<?xf32>, %v: f32) {
  // expected-error @+1 {{candidates: ascend-cube-fill (no operand is in l1, l0a, l0b or l0c); ascend-vector-fill (the filled tile is a global buffer, not a UB tile)}}
  tile.fill %x, %v : memref<?xf32>, f32
  return
}

