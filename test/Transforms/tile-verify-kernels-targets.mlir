// Target rules of tile-verify-kernels, read from the target descriptions.
// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-verify-kernels=target=cuda
// 8-bit floats on every cuda arch and ascend profile: bytes, converted in software, f16 gemm
// operands where no wgmma or cube takes them (tile-cuda-widen-fp8-operands, tile-ascend-widen-fp8).
// RUN: tile-opt %S/Inputs/fp8-tile.mlir --tile-verify-kernels=target=cuda:sm_80 -o /dev/null
// RUN: tile-opt %S/Inputs/fp8-tile.mlir --tile-verify-kernels=target=cuda:sm_90a -o /dev/null
// RUN: tile-opt %S/Inputs/fp8-tile.mlir --tile-verify-kernels=target=ascend:950 -o /dev/null
// RUN: tile-opt %S/Inputs/fp8-tile.mlir --tile-verify-kernels=target=ascend:910b -o /dev/null
// RUN: not tile-opt %S/Inputs/fp8-tile.mlir --tile-verify-kernels=target=cuda:sm_70 2>&1 | filecheck %s --check-prefix=BAD-ARCH

// RUN: not tile-opt %S/Inputs/huge-fragment.mlir --tile-verify-kernels=target=cpu 2>&1 | filecheck %s --check-prefix=HUGE
// HUGE: huge-fragment.mlir:4:10: error: a fragment tile of 68719476736 bytes does not fit on cpu:avx2, which holds at most 268435456 bytes per fragment tile

// BAD-ARCH: error: invalid value 'cuda:sm_70' for option 'target' of pass 'tile-verify-kernels': unknown cuda variant 'sm_70'; variants: sm_80, sm_86, sm_89, sm_90a

func.func @ascend_scope_on_cuda(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    // expected-error @+1 {{scope 'l0c' exists only on the ascend target, not on cuda:sm_80}}
    %t = tile.alloc : memref<16x16xf32, #tile.scope<l0c>>
  }
  return
}

// -----

func.func @partial_warp(%n: index) {
  // expected-error @+1 {{expected a thread count that is a multiple of 32 and at most 1024 on cuda:sm_80 but got 100}}
  tile.kernel blocks(%bx) in (%n) threads = 100 {
    tile.barrier
  }
  return
}

// -----

func.func @grid_y_too_large() {
  %c1 = arith.constant 1 : index
  %big = arith.constant 70000 : index
  // expected-error @+1 {{expected at most 65535 blocks in grid dim 1 on cuda:sm_80 but got 70000}}
  tile.kernel blocks(%bx, %by) in (%c1, %big) threads = 128 {
    tile.barrier
  }
  return
}


// -----

func.func @shared_tile_too_large(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    // expected-error @+1 {{a shared tile of 262144 bytes does not fit on cuda:sm_80, which holds at most 166912 bytes per shared tile}}
    %t = tile.alloc : memref<256x256xf32, #tile.scope<shared>>
  }
  return
}
