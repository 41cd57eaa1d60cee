// RUN: tile-opt %s -split-input-file --tile-cuda-infer-layouts="target=cuda:sm_90a" --convert-tile-to-cuda="target=cuda:sm_90a" --canonicalize --cse | filecheck %s

// f16 x f16 -> f32 on one warpgroup: A (64x64, K-major) and B (64x128,
// stored K x N: N-major) in 128-byte swizzled panels, 1024-byte aligned; C
// in the wgmma layout (64 registers per thread). The copies' writes are
// fenced for the async proxy before the block synchronizes; K = 64 is four
// m64n128k16 instructions, A's descriptor moving 32 bytes along K inside its
// panel (LBO 16, SBO 1024, 128B swizzle), B's 2048 bytes (16 rows of 128
// bytes; LBO 8192 = the next 64-column panel, SBO 1024). The second gemm
// starts from C's registers.
// CHECK-LABEL: func.func @wgmma
// CHECK: dynamic_shared_memory_size %c24576_i32
// CHECK: %[[C:.*]] = memref.alloca() {tile.cuda_layout = "wgmma:1x1", tile.cuda_shape = array<i64: 64, 128>, tile.cuda_threads = 128 : i64} : memref<64xf32>
// CHECK: %[[B:.*]] = memref.view %{{.*}}[%c8192][] {tile.cuda_wgmma_swizzle = 128 : i64} {{.*}} to memref<64x128xf16, #gpu.address_space<workgroup>>
// CHECK: %[[A:.*]] = memref.view %{{.*}}[%c0][] {tile.cuda_wgmma_swizzle = 128 : i64} {{.*}} to memref<64x64xf16, #gpu.address_space<workgroup>>
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: %[[APTR:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: %[[DA:.*]] = arith.ori %{{.*}}, %c4611686293305360384_i64 : i64
// CHECK: %[[BPTR:.*]] = memref.extract_aligned_pointer_as_index %[[B]]
// CHECK: %[[DB:.*]] = arith.ori %{{.*}}, %c4611686293338849280_i64 : i64
// CHECK: %[[D0:.*]] = nvvm.wgmma.mma_async %[[DA]], %[[DB]], %{{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: arith.addi %{{.*}}, %c32 : index
// CHECK: arith.addi %[[BPTR]], %c2048 : index
// CHECK: %[[D1:.*]] = nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[D0]], <m = 64, n = 128, k = 16>
// CHECK: nvvm.wgmma.mma_async
// CHECK: %[[D3:.*]] = nvvm.wgmma.mma_async
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.extractvalue %[[D3]][0]
// CHECK: memref.store %{{.*}}, %[[C]][%c0] : memref<64xf32>
// CHECK: memref.store %{{.*}}, %[[C]][%c63] : memref<64xf32>
// CHECK: memref.load %[[C]][%c0] : memref<64xf32>
// CHECK: nvvm.wgmma.mma_async
func.func @wgmma(%C: memref<64x128xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %a = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<64x128xf16, #tile.scope<shared>>
    %c = tile.alloc : memref<64x128xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c clear_accum : memref<64x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<64x64xf16, #tile.scope<shared>>, memref<64x128xf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %c[%c0, %c0], %C[%c0, %c0] : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32>
  }
  return
}

// -----

// bf16, A stored K x M (M-major: `col`), B stored N x K (K-major: `col`),
// 32-element K rows: 64-byte panels (swizzle mode 2, SBO 512). Two
// warpgroups split M = 128 (wgmma:2x1); C accumulates onto its registers.
// CHECK-LABEL: func.func @wgmma_transposed
// CHECK: tile.cuda_layout = "wgmma:2x1"
// CHECK-DAG: memref.view %{{.*}} {tile.cuda_wgmma_swizzle = 128 : i64} {{.*}} to memref<32x128xbf16, #gpu.address_space<workgroup>>
// CHECK-DAG: memref.view %{{.*}} {tile.cuda_wgmma_swizzle = 64 : i64} {{.*}} to memref<64x32xbf16, #gpu.address_space<workgroup>>
// CHECK: arith.divui %{{.*}}, %c128 : index
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<bf16>, <one>, <col>], B[<bf16>, <one>, <col>]
// CHECK: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
func.func @wgmma_transposed(%C: memref<128x64xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 256 {
    %a = tile.alloc : memref<32x128xbf16, #tile.scope<shared>>
    %b = tile.alloc : memref<64x32xbf16, #tile.scope<shared>>
    %c = tile.alloc : memref<128x64xf32, #tile.scope<fragment>>
    tile.clear %c : memref<128x64xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c transpose_a transpose_b : memref<32x128xbf16, #tile.scope<shared>>, memref<64x32xbf16, #tile.scope<shared>>, memref<128x64xf32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %c[%c0, %c0], %C[%c0, %c0] : memref<128x64xf32, #tile.scope<fragment>>, memref<128x64xf32>
  }
  return
}

// -----

// A block of 96 threads is not whole warpgroups: the gemm keeps mma.sync
// (and the operands the sm_80 swizzle).
// CHECK-LABEL: func.func @not_warpgroups
// CHECK: tile.cuda_swizzle
// CHECK-NOT: tile.cuda_wgmma_swizzle
// CHECK-NOT: nvvm.wgmma
// CHECK: nvgpu.mma.sync
func.func @not_warpgroups(%C: memref<48x64xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 96 {
    %a = tile.alloc : memref<48x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc : memref<48x64xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c clear_accum : memref<48x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<48x64xf32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %c[%c0, %c0], %C[%c0, %c0] : memref<48x64xf32, #tile.scope<fragment>>, memref<48x64xf32>
  }
  return
}

// -----

// e4m3 operands stay 8-bit for wgmma (k32 instructions), and an e4m3 tile that a
// tile.parallel reads element by element beside them is lowered too: its conversion
// is left to tile-cuda-expand-fp8-conversions.
// CHECK-LABEL: func.func @fp8_wgmma
// CHECK: nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %{{.*}}, <m = 64, n = 64, k = 32>, D[<f32>, <one>], A[<e4m3>, <one>, <row>], B[<e4m3>, <one>, <col>]
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: arith.extf %{{.*}} : f8E4M3FN to f32
func.func @fp8_wgmma(%A: memref<64x32xf8E4M3FN>, %B: memref<64x32xf8E4M3FN>, %C: memref<64x64xf32>, %D: memref<64x32xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %c0 = arith.constant 0 : index
    %a = tile.alloc : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %b = tile.alloc : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    %c = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    %e = tile.alloc : memref<64x32xf8E4M3FN, #tile.scope<shared>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x32xf8E4M3FN>, memref<64x32xf8E4M3FN, #tile.scope<shared>>
    tile.copy %B[%c0, %c0], %b[%c0, %c0] : memref<64x32xf8E4M3FN>, memref<64x32xf8E4M3FN, #tile.scope<shared>>
    tile.gemm %a, %b, %c transpose_b clear_accum : memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x32xf8E4M3FN, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %c[%c0, %c0], %C[%c0, %c0] : memref<64x64xf32, #tile.scope<fragment>>, memref<64x64xf32>
    tile.copy %A[%c0, %c0], %e[%c0, %c0] : memref<64x32xf8E4M3FN>, memref<64x32xf8E4M3FN, #tile.scope<shared>>
    tile.parallel (%i, %j) in (64, 32) {
      %x = memref.load %e[%i, %j] : memref<64x32xf8E4M3FN, #tile.scope<shared>>
      %y = arith.extf %x : f8E4M3FN to f32
      memref.store %y, %D[%i, %j] : memref<64x32xf32>
      tile.yield
    }
  }
  return
}
