// RUN: tile-opt %s -split-input-file --tile-cuda-infer-layouts | filecheck %s

// The accumulator of an f16 gemm that fits mma.sync gets the mma layout
// (4 warps as 2x2); the tiles the gemm reads are in shared memory, stored
// swizzled (only copies and the gemm touch them).
// CHECK-LABEL: func.func @gemm
// CHECK: tile.alloc {tile.cuda_placement = "shared", tile.cuda_swizzle} : memref<64x32xf16, #tile.scope<shared>>
// CHECK: tile.alloc {tile.cuda_placement = "shared", tile.cuda_swizzle} : memref<32x64xf16, #tile.scope<fragment>>
// CHECK: tile.alloc {tile.cuda_placement = "mma:2x2"} : memref<64x64xf32, #tile.scope<fragment>>
func.func @gemm(%A: memref<?x?xf16>, %C: memref<?x?xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %c0 = arith.constant 0 : index
    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x64xf16, #tile.scope<fragment>>
    %acc = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %acc : memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
    tile.copy %A[%c0, %c0], %b[%c0, %c0] : memref<?x?xf16>, memref<32x64xf16, #tile.scope<fragment>>
    tile.gemm %a, %b, %acc : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<fragment>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xf32>
  }
  return
}

// -----

// Element-wise code at the loop indices keeps tiles in registers, and the
// tiles touched together share the cyclic layout; a tile read at another
// index (%row at [%i] in a 2-D loop) or reduced is in shared memory.
// CHECK-LABEL: func.func @elementwise
// CHECK: tile.alloc {tile.cuda_placement = "cyclic"} : memref<16x128xf32, #tile.scope<fragment>>
// CHECK: tile.alloc {tile.cuda_placement = "cyclic"} : memref<16x128xf32, #tile.scope<fragment>>
// CHECK: tile.alloc {tile.cuda_placement = "shared"} : memref<16xf32, #tile.scope<fragment>>
// CHECK: tile.alloc {tile.cuda_placement = "shared"} : memref<16x128xf32, #tile.scope<fragment>>
func.func @elementwise(%X: memref<?x?xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %c0 = arith.constant 0 : index
    %x = tile.alloc : memref<16x128xf32, #tile.scope<fragment>>
    %y = tile.alloc : memref<16x128xf32, #tile.scope<fragment>>
    %row = tile.alloc : memref<16xf32, #tile.scope<fragment>>
    %s = tile.alloc : memref<16x128xf32, #tile.scope<fragment>>
    tile.copy %X[%c0, %c0], %x[%c0, %c0] : memref<?x?xf32>, memref<16x128xf32, #tile.scope<fragment>>
    tile.clear %row : memref<16xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (16, 128) {
      %v = memref.load %x[%i, %j] : memref<16x128xf32, #tile.scope<fragment>>
      %r = memref.load %row[%i] : memref<16xf32, #tile.scope<fragment>>
      %w = arith.addf %v, %r : f32
      memref.store %w, %y[%i, %j] : memref<16x128xf32, #tile.scope<fragment>>
      memref.store %w, %s[%i, %j] : memref<16x128xf32, #tile.scope<fragment>>
    }
    tile.reduce sum %s, %row dim = 1 : memref<16x128xf32, #tile.scope<fragment>>, memref<16xf32, #tile.scope<fragment>>
    tile.copy %y[%c0, %c0], %X[%c0, %c0] : memref<16x128xf32, #tile.scope<fragment>>, memref<?x?xf32>
  }
  return
}

// -----

// A tile of more than 512 bytes per thread would spill: 64x128 f32 over 32
// threads is 1 KiB each.
// CHECK-LABEL: func.func @too_big
// CHECK: tile.alloc {tile.cuda_placement = "shared"} : memref<64x128xf32, #tile.scope<fragment>>
func.func @too_big(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %t = tile.alloc : memref<64x128xf32, #tile.scope<fragment>>
    tile.clear %t : memref<64x128xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// T.GemmWarpPolicy (tile.policy) picks the warp grid of 8 warps over a
// 128x128 C: square 4x2 (the default), full_row 8x1, full_col 1x8. A shared
// tile that a reduction also reads is not swizzled.
// CHECK-LABEL: func.func @policies
// CHECK: tile.alloc {tile.cuda_placement = "shared", tile.cuda_swizzle} : memref<128x32xf16, #tile.scope<shared>>
// CHECK: tile.alloc {tile.cuda_placement = "shared"} : memref<32x128xf16, #tile.scope<shared>>
// CHECK: tile.alloc {tile.cuda_placement = "mma:4x2"} : memref<128x128xf32, #tile.scope<fragment>>
// CHECK: tile.alloc {tile.cuda_placement = "mma:8x1"} : memref<128x128xf32, #tile.scope<fragment>>
// CHECK: tile.alloc {tile.cuda_placement = "mma:1x8"} : memref<128x128xf32, #tile.scope<fragment>>
func.func @policies(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 256 {
    %a = tile.alloc : memref<128x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x128xf16, #tile.scope<shared>>
    %square = tile.alloc : memref<128x128xf32, #tile.scope<fragment>>
    %row = tile.alloc : memref<128x128xf32, #tile.scope<fragment>>
    %col = tile.alloc : memref<128x128xf32, #tile.scope<fragment>>
    %sums = tile.alloc : memref<32xf16, #tile.scope<shared>>
    tile.gemm %a, %b, %square clear_accum : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %row clear_accum {tile.policy = "full_row"} : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %col clear_accum {tile.policy = "full_col"} : memref<128x32xf16, #tile.scope<shared>>, memref<32x128xf16, #tile.scope<shared>>, memref<128x128xf32, #tile.scope<fragment>>
    tile.reduce sum %b, %sums dim = 1 : memref<32x128xf16, #tile.scope<shared>>, memref<32xf16, #tile.scope<shared>>
  }
  return
}

