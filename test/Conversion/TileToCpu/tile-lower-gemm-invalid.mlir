// RUN: tile-opt %s -split-input-file --tile-lower-gemm --verify-diagnostics

// Gemm operands must have static shapes on cpu (register tiling is planned
// at compile time).
func.func @dynamic_tile(%a: memref<?x4xf32, #tile.scope<shared>>, %b: memref<4x8xf32, #tile.scope<shared>>, %c: memref<?x8xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected a static shape for gemm operand A on cpu}}
  tile.gemm %a, %b, %c : memref<?x4xf32, #tile.scope<shared>>, memref<4x8xf32, #tile.scope<shared>>, memref<?x8xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @fp8(%a: memref<6x4xf8E4M3FN, #tile.scope<shared>>, %b: memref<4x8xf8E4M3FN, #tile.scope<shared>>, %c: memref<6x8xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{8-bit float gemm operands are not supported on cpu}}
  tile.gemm %a, %b, %c : memref<6x4xf8E4M3FN, #tile.scope<shared>>, memref<4x8xf8E4M3FN, #tile.scope<shared>>, memref<6x8xf32, #tile.scope<fragment>>
  return
}
