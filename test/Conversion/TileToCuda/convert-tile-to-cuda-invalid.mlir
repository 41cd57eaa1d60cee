// RUN: tile-opt %s -split-input-file --convert-tile-to-cuda --verify-diagnostics
// RUN: not tile-opt %s --convert-tile-to-cuda=target=cuda:sm_70 2>&1 | filecheck %s --check-prefix=ARCH
// RUN: not tile-opt %s --tile-to-cuda=target=cuda:sm_75 2>&1 | filecheck %s --check-prefix=PIPELINE
// RUN: not tile-opt %s --convert-tile-to-cuda=arch=sm_90a 2>&1 | filecheck %s --check-prefix=OLD

// An unknown arch is an error before any pass runs (NVPTX would abort on it).
// ARCH: error: invalid value 'cuda:sm_70' for option 'target' of pass 'convert-tile-to-cuda': unknown cuda variant 'sm_70'; variants: sm_80, sm_86, sm_89, sm_90a
// PIPELINE: error: pipeline 'tile-to-cuda': unknown cuda variant 'sm_75'; variants: sm_80, sm_86, sm_89, sm_90a
// The arch is the target's variant: one option, `target`, says it.
// OLD: error: pass 'convert-tile-to-cuda' has no option 'arch' (options: target)

// PTX has no atomic add of 8-bit floats and NVPTX aborts on the read-modify-write of
// one, so an atomic add of them stops here, at the op.
func.func @fp8_atomic_add(%A: memref<64xf8E4M3FN>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %c0 = arith.constant 0 : index
    %t = tile.alloc : memref<64xf8E4M3FN, #tile.scope<shared>>
    tile.copy %A[%c0], %t[%c0] : memref<64xf8E4M3FN>, memref<64xf8E4M3FN, #tile.scope<shared>>
    // expected-error @+1 {{'tile.atomic_add' adds f8E4M3FN: atomic adds of 8-bit floats are not lowered for cuda}}
    tile.atomic_add %t, %A[%c0] : memref<64xf8E4M3FN, #tile.scope<shared>>, memref<64xf8E4M3FN>
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
