// RUN: tile-opt %s -split-input-file --tile-widen-bools --verify-diagnostics

// Vector accesses of bool memrefs are not tile IR the pass knows.
func.func @vector_load(%a: memref<?xi1>, %i: index) -> vector<8xi1> {
  // expected-error @+1 {{'vector.load' on bool memrefs is not supported (bools are stored as bytes)}}
  %v = vector.load %a[%i] : memref<?xi1>, vector<8xi1>
  return %v : vector<8xi1>
}
