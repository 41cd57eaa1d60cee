// RUN: tile-opt %s -split-input-file --tile-cuda-widen-fp8-operands | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-cuda-widen-fp8-operands=target=cuda:sm_90a | filecheck %s --check-prefix=WGMMA

// On sm_80 the gemm reads f16 tiles of its 8-bit float operands, each filled by a
// converting copy right before it.
// CHECK-LABEL: func.func @gemm
// CHECK-DAG: %[[B16:.*]] = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
// CHECK-DAG: %[[A16:.*]] = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
// CHECK: %[[A:.*]] = tile.alloc : memref<64x32xf8E4M3FN, #tile.scope<shared>>
// CHECK: %[[B:.*]] = tile.alloc : memref<64x32xf8E4M3FN, #tile.scope<shared>>
// CHECK: tile.copy %[[A]][%{{.*}}, %{{.*}}], %[[A16]][%{{.*}}, %{{.*}}] : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>
// CHECK: tile.copy %[[B]][%{{.*}}, %{{.*}}], %[[B16]][%{{.*}}, %{{.*}}] : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>
// CHECK-NEXT: tile.gemm %[[A16]], %[[B16]], %{{.*}} transpose_b
// On sm_90a the gemm runs on wgmma, which takes them as they are.
// WGMMA-LABEL: func.func @gemm
// WGMMA-NOT: xf16
// WGMMA: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} transpose_b : memref<64x32xf8E4M3FN
func.func @gemm(%A: memref<?x?xf8E4M3FN>, %B: memref<?x?xf8E4M3FN>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %c0 = arith.constant 0 : index
    %a = tile.alloc : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %b = tile.alloc : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %c = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<?x?xf8E4M3FN>, memref<64x32xf8E4M3FN, #tile.scope<shared>>
    tile.copy %B[%c0, %c0], %b[%c0, %c0] : memref<?x?xf8E4M3FN>, memref<64x32xf8E4M3FN, #tile.scope<shared>>
    tile.gemm %a, %b, %c {transpose_b} : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  }
  return
}
