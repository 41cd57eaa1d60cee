// RUN: tile-opt %s -split-input-file --convert-tile-to-cuda --verify-diagnostics
// RUN: not tile-opt %s --convert-tile-to-cuda=arch=sm_70 2>&1 | filecheck %s --check-prefix=ARCH
// RUN: not tile-opt %s --tile-to-cuda=arch=sm_75 2>&1 | filecheck %s --check-prefix=PIPELINE

// An unknown arch is an error before any pass runs (NVPTX would abort on it).
// ARCH: error: invalid value 'sm_70' for option 'arch' of pass 'convert-tile-to-cuda': unknown cuda variant 'sm_70'; variants: sm_80, sm_86, sm_89, sm_90a
// PIPELINE: error: pipeline 'tile-to-cuda': unknown cuda variant 'sm_75'; variants: sm_80, sm_86, sm_89, sm_90a

// 8-bit floats are lowered only as sm_90a wgmma operands (wgmma_gemm-invalid.mlir);
// NVPTX aborts on fp8 code for an arch without fp8, so they stop here, at the op.
func.func @fp8(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    // expected-error @+1 {{'tile.alloc' uses f8E4M3FN: 8-bit float tiles are not lowered for cuda on cuda:sm_80 (only as sm_90a wgmma operands)}}
    %t = tile.alloc : memref<16xf8E4M3FN, #tile.scope<shared>>
  }
  return
}

// -----

// The shared tiles of a block must fit the arch's shared memory.
func.func @overflow(%n: index) {
  // expected-error @+1 {{the shared tiles of this kernel need 262144 bytes of shared memory; cuda:sm_80 has at most 166912 per block}}
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %a = tile.alloc : memref<256x128xf32, #tile.scope<shared>>
    %b = tile.alloc : memref<256x128xf32, #tile.scope<shared>>
    tile.clear %a : memref<256x128xf32, #tile.scope<shared>>
    tile.clear %b : memref<256x128xf32, #tile.scope<shared>>
  }
  return
}

// -----

// A tile belongs to a block: outside a kernel there is none.
func.func @outside() {
  // expected-error @+1 {{no cuda lowering of 'tile.alloc' for cuda:sm_80; candidates: cuda-alloc-shared-or-registers (a cuda tile must be allocated inside a tile.kernel)}}
  %t = tile.alloc : memref<16xf32, #tile.scope<shared>>
  return
}

// -----

// A warp policy that T.GemmWarpPolicy does not have is a located error.
func.func @bad_policy(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    // expected-error @+1 {{'tile.gemm' has tile.policy = "diagonal"; the warp policies are "square", "full_row", "full_col"}}
    tile.gemm %a, %b, %c {tile.policy = "diagonal"} : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A tile op outside a tile.kernel has no threads to spread its work over.
func.func @outside_a_kernel(%x: memref<4x32xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{'tile.parallel' outside a tile.kernel cannot be lowered for cuda: its work is spread over the kernel's threads}}
  tile.parallel (%i, %j) in (4, 32) {
  }
  return
}
