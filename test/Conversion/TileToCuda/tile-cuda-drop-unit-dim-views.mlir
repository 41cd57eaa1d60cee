// RUN: tile-opt %s -split-input-file --tile-cuda-drop-unit-dim-views | filecheck %s

// The copy of K[b, k0:k0+64, h, :] into a gemm operand seen as 1x64x1x64 is a copy into
// the tile itself (its extent's unit dims dropped), and the views go.
// CHECK-LABEL: func.func @whole
// CHECK: tile.alloc : memref<64x64xf16, #tile.scope<shared>>
// CHECK-NEXT: %[[T:.*]] = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
// CHECK-NOT: memref.expand_shape
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[T]][%{{.*}}, %{{.*}}] sizes [1, 64, 1, 64] : memref<?x?x?x64xf16>, memref<64x64xf16, #tile.scope<shared>>
// CHECK: tile.gemm %{{.*}}, %[[T]], %{{.*}}
func.func @whole(%K: memref<?x?x?x64xf16>, %b: index, %k: index, %h: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %c0 = arith.constant 0 : index
    %q = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
    %t = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    %flat = memref.collapse_shape %t [[0, 1]] : memref<64x64xf16, #tile.scope<shared>> into memref<4096xf16, #tile.scope<shared>>
    %v = memref.expand_shape %flat [[0, 1, 2, 3]] output_shape [1, 64, 1, 64] : memref<4096xf16, #tile.scope<shared>> into memref<1x64x1x64xf16, #tile.scope<shared>>
    tile.copy %K[%b, %k, %h, %c0], %v[%c0, %c0, %c0, %c0] sizes [1, 64, 1, 64] : memref<?x?x?x64xf16>, memref<1x64x1x64xf16, #tile.scope<shared>>
    tile.gemm %q, %t, %s transpose_b : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A copy of 25 of the tile's 64 rows keeps its view (and the lowering it had).
// CHECK-LABEL: func.func @part
// CHECK: %[[V:.*]] = memref.expand_shape {{.*}} output_shape [1, 64, 1, 64]
// CHECK: tile.copy %{{.*}}, %[[V]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] sizes [1, 25, 1, 64]
func.func @part(%K: memref<?x?x?x64xf16>, %b: index, %k: index, %h: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %c0 = arith.constant 0 : index
    %q = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
    %t = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    %flat = memref.collapse_shape %t [[0, 1]] : memref<64x64xf16, #tile.scope<shared>> into memref<4096xf16, #tile.scope<shared>>
    %v = memref.expand_shape %flat [[0, 1, 2, 3]] output_shape [1, 64, 1, 64] : memref<4096xf16, #tile.scope<shared>> into memref<1x64x1x64xf16, #tile.scope<shared>>
    tile.copy %K[%b, %k, %h, %c0], %v[%c0, %c0, %c0, %c0] sizes [1, 25, 1, 64] : memref<?x?x?x64xf16>, memref<1x64x1x64xf16, #tile.scope<shared>>
    tile.gemm %q, %t, %s transpose_b : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}
