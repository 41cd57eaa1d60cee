// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-verify-kernels
// RUN: tile-opt %S/Inputs/cuda-kernel.mlir --tile-verify-kernels=target=cuda | filecheck %S/Inputs/cuda-kernel.mlir
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-verify-kernels=target=cuda 2>&1 | filecheck %s --check-prefix=CUDA --allow-empty

// Tile ops outside a kernel.
func.func @alloc_outside_kernel() {
  // expected-error @+1 {{'tile.alloc' must be inside a 'tile.kernel'}}
  %t = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
  return
}

// -----

func.func @clear_of_onchip_tile_outside_kernel(%t: memref<16xf32, #tile.scope<local>>) {
  // expected-error @+1 {{'tile.clear' of a local tile must be inside a 'tile.kernel'}}
  tile.clear %t : memref<16xf32, #tile.scope<local>>
  return
}

// -----

// Filling global memory from the host side is fine.
func.func @clear_global(%t: memref<?xf32>) {
  tile.clear %t : memref<?xf32>
  return
}

// -----

func.func @inside_kernel_is_fine(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %t = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
    tile.clear %t : memref<16x16xf32, #tile.scope<shared>>
    tile.barrier
  }
  return
}
// CUDA-NOT: error
