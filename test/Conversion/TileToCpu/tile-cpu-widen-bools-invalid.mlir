// RUN: tile-opt %s -split-input-file --tile-cpu-widen-bools --verify-diagnostics

// A sum of bools has no byte to hold its count.
func.func @sum(%t: memref<4x8xi1, #tile.scope<fragment>>, %r: memref<4xi1, #tile.scope<fragment>>) {
  // expected-error @+1 {{tile.reduce sum of bools is not supported on cpu (reduce max/min are any/all; for a count, T.cast the bools to "int32" first)}}
  tile.reduce sum %t, %r dim = 1 : memref<4x8xi1, #tile.scope<fragment>>, memref<4xi1, #tile.scope<fragment>>
  return
}

// -----

func.func @cumsum(%t: memref<8xi1, #tile.scope<fragment>>) {
  // expected-error @+1 {{'tile.cumsum' on bool memrefs is not supported on cpu (bools are stored as bytes)}}
  tile.cumsum %t, %t dim = 0 : memref<8xi1, #tile.scope<fragment>>, memref<8xi1, #tile.scope<fragment>>
  return
}

// -----

// Vector accesses of bool memrefs are not tile IR the pass knows.
func.func @vector_load(%a: memref<?xi1>, %i: index) -> vector<8xi1> {
  // expected-error @+1 {{'vector.load' on bool memrefs is not supported on cpu (bools are stored as bytes)}}
  %v = vector.load %a[%i] : memref<?xi1>, vector<8xi1>
  return %v : vector<8xi1>
}
