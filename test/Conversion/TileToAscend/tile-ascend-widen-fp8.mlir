// RUN: tile-opt %s -split-input-file --tile-ascend-widen-fp8="target=ascend:910b" | filecheck %s --check-prefixes=CHECK,B910
// RUN: tile-opt %s -split-input-file --tile-ascend-widen-fp8="target=ascend:950" | filecheck %s --check-prefixes=CHECK,B950

// A gemm of fp8 tiles that stores its accumulator as fp8. On both profiles the
// accumulator is cast into an fp8 fragment by vector code, which is copied out
// (the fixpipe stores no fp8). On the 910b the operands are fragments of bytes,
// decoded into f16 tiles of their scope, which the gemm reads, by code the
// vector unit runs (casts of the byte as an integer, i16 arithmetic on the
// f16 fields, a bitcast); the 950's cube takes them as they are.
// CHECK-LABEL: func.func @gemm
// B910: %[[B16:.*]] = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
// B910: %[[A16:.*]] = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
// CHECK: %[[STAGED:.*]] = tile.alloc : memref<32x32xf8E4M3FN, #tile.scope<fragment>>
// B910: %[[A:.*]] = tile.alloc : memref<32x32xf8E4M3FN, #tile.scope<fragment>>
// B950: %[[A:.*]] = tile.alloc : memref<32x32xf8E4M3FN, #tile.scope<shared>>
// CHECK: %[[ACC:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
// CHECK: tile.copy %{{.*}}, %[[A]]
// B910: tile.parallel
// B910: memref.load %[[A]]
// B910: arith.bitcast %{{.*}} : f8E4M3FN to i8
// B910: arith.sitofp %{{.*}} : i8 to f16
// B910-NOT: i32
// B910: arith.fptosi %{{.*}} : f16 to i16
// B910: arith.bitcast %{{.*}} : i16 to f16
// B910: arith.negf
// B910: memref.store %{{.*}}, %[[A16]]
// B910: tile.parallel
// B910: memref.store %{{.*}}, %[[B16]]
// B910: tile.gemm %[[A16]], %[[B16]], %[[ACC]]
// B950: tile.gemm %[[A]], %{{.*}}, %[[ACC]]
// CHECK: tile.parallel
// CHECK: memref.load %[[ACC]]
// B950: %[[Q:.*]] = arith.truncf %{{.*}} : f32 to f8E4M3FN
// B910: arith.minimumf
// B910: %[[Q:.*]] = arith.bitcast %{{.*}} : i8 to f8E4M3FN
// CHECK: memref.store %[[Q]], %[[STAGED]][
// CHECK: tile.copy %[[STAGED]][%{{.*}}], %{{.*}} : memref<32x32xf8E4M3FN, #tile.scope<fragment>>, memref<64x64xf8E4M3FN>
func.func @gemm(%A: memref<64x64xf8E4M3FN>, %C: memref<64x64xf8E4M3FN>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  tile.kernel blocks(%bx) in (%c2) threads = 128 {
    %a = tile.alloc : memref<32x32xf8E4M3FN, #tile.scope<shared>>
    %b = tile.alloc : memref<32x32xf8E4M3FN, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x64xf8E4M3FN>, memref<32x32xf8E4M3FN, #tile.scope<shared>>
    tile.copy %A[%c0, %c0], %b[%c0, %c0] : memref<64x64xf8E4M3FN>, memref<32x32xf8E4M3FN, #tile.scope<shared>>
    tile.gemm %a, %b, %acc {clear_accum} : memref<32x32xf8E4M3FN, #tile.scope<shared>>, memref<32x32xf8E4M3FN, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<64x64xf8E4M3FN>
  }
  return
}

// -----

// A converting copy into an fp8 tile: the 950's vector Cast does it; on the
// 910b it is a tile.parallel that saturates and rounds the bits.
// CHECK-LABEL: func.func @quantize
// B950: tile.copy %{{.*}}, %{{.*}} : memref<8x128xf32, #tile.scope<fragment>>, memref<8x128xf8E5M2, #tile.scope<fragment>>
// B910-NOT: tile.copy
// B910: tile.parallel (%[[I:.*]], %[[J:.*]]) in (8, 128)
// B910: arith.cmpf une
// B910: %[[Q:.*]] = arith.bitcast %{{.*}} : i8 to f8E5M2
// B910: memref.store %[[Q]], %{{.*}}[%[[I]], %[[J]]] : memref<8x128xf8E5M2, #tile.scope<fragment>>
func.func @quantize() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %y = tile.alloc : memref<8x128xf32, #tile.scope<fragment>>
    %q = tile.alloc : memref<8x128xf8E5M2, #tile.scope<fragment>>
    tile.copy %y[%c0, %c0], %q[%c0, %c0] : memref<8x128xf32, #tile.scope<fragment>>, memref<8x128xf8E5M2, #tile.scope<fragment>>
  }
  return
}
