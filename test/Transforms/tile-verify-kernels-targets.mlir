// Target rules of tile-verify-kernels.
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-verify-kernels=target=cuda

func.func @ascend_scope_on_cuda(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    // expected-error @+1 {{scope 'l0c' exists only on the ascend target, not on cuda}}
    %t = tile.alloc : memref<16x16xf32, #tile.scope<l0c>>
  }
  return
}

// -----

func.func @partial_warp(%n: index) {
  // expected-error @+1 {{expected a thread count that is a multiple of 32 and at most 1024 on the cuda target but got 100}}
  tile.kernel blocks(%bx) in (%n) threads = 100 {
    tile.barrier
  }
  return
}
