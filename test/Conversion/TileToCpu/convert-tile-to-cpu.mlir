// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu --verify-diagnostics
// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu=ops=tile.copy --verify-diagnostics
// RUN: tile-opt %S/Inputs/copy-and-gemm.mlir --convert-tile-to-cpu=ops=tile.copy | filecheck %S/Inputs/copy-and-gemm.mlir --check-prefix=ONLY-COPY
// RUN: tile-opt %S/Inputs/copy-and-gemm.mlir --convert-tile-to-cpu | filecheck %S/Inputs/copy-and-gemm.mlir --check-prefix=ALL
// RUN: not tile-opt %S/Inputs/copy-and-gemm.mlir --convert-tile-to-cpu=ops=tile.copy,tile.bogus 2>&1 | filecheck %s --check-prefix=BAD-OPS
// RUN: not tile-opt %S/Inputs/copy-and-gemm.mlir --convert-tile-to-cpu=target=cuda 2>&1 | filecheck %s --check-prefix=BAD-TARGET

// Every tile op is resolved to its cpu lowering before anything is
// rewritten, also those a run with `ops` does not lower: a gemm the cpu
// cannot do fails the conversion of the copies around it too.

// BAD-OPS: error: invalid value 'tile.copy,tile.bogus' for option 'ops' of pass 'convert-tile-to-cpu': 'tile.bogus' is not a tile op with a cpu lowering
// BAD-TARGET: error: invalid value 'cuda' for option 'target' of pass 'convert-tile-to-cpu': 'cuda' is not a cpu target

// Gemm operands must have static shapes on cpu (register tiling is planned
// at compile time).
func.func @dynamic_tile(%a: memref<?x4xf32, #tile.scope<shared>>, %b: memref<4x8xf32, #tile.scope<shared>>, %c: memref<?x8xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{no cpu lowering of 'tile.gemm' for cpu:avx2; candidates: cpu-gemm-vector-fma (needs static shapes for A, B and C)}}
  tile.gemm %a, %b, %c : memref<?x4xf32, #tile.scope<shared>>, memref<4x8xf32, #tile.scope<shared>>, memref<?x8xf32, #tile.scope<fragment>>
  return
}
