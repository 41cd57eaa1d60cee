// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend --verify-diagnostics

func.func @cube_reduce(%s: memref<16x16xf32, #tile.scope<l0c>>, %d: memref<16xf32, #tile.scope<ub>>) {
  // expected-error @+1 {{candidates: ascend-vector-reduce (the source is in the cube buffer l0c)}}
  tile.reduce sum %s, %d dim = 1 : memref<16x16xf32, #tile.scope<l0c>>, memref<16xf32, #tile.scope<ub>>
  return
}
