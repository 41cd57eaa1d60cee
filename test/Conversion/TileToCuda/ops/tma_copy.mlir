// RUN: tile-opt %s --tile-cuda-infer-layouts="target=cuda:sm_90a" --convert-tile-to-cuda="target=cuda:sm_90a" --canonicalize --cse | filecheck %s
// RUN: tile-opt %s --tile-cuda-infer-layouts="target=cuda:sm_80" --convert-tile-to-cuda="target=cuda:sm_80" --canonicalize --cse | filecheck %s --check-prefix=SM80

// Copies of entry parameters into wgmma operand tiles outside a pipelined
// loop: each is TMA boxes completing on an mbarrier of its own (initialized
// by thread 0, waited for with parity 0 by every thread, invalidated after).
// A (64 x 64 bf16, 128-byte rows) is one 128B-swizzled box of 64 x 64 and
// 8192 bytes; B (64 x 128, stored K x N: two 128-byte panels) two boxes, at
// columns 0 and 64, 16384 bytes. Where the driver cannot encode a map (base
// not 16-byte aligned, A's dynamic rows empty) the copy is by threads
// (cp.async) instead.
// CHECK-LABEL: func.func @single
// CHECK: %[[MA:.*]] = builtin.unrealized_conversion_cast %arg0 : memref<?x64xbf16> to !llvm.ptr {tile.cuda_tma = {box = array<i64: 64, 64>, element = "bf16", swizzle = 128 : i64}}
// CHECK: %[[MB:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<64x128xbf16> to !llvm.ptr {tile.cuda_tma = {box = array<i64: 64, 64>, element = "bf16", swizzle = 128 : i64}}
// CHECK: nvvm.mbarrier.init %[[BAR:.*]], %c1_i32
// CHECK: gpu.barrier
// CHECK: scf.if
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MA]], %{{.*}}, box[%c0_i32, %c0_i32]
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %c0_i32
// CHECK: } else {
// CHECK: nvgpu.device_async_copy %arg0
// CHECK: nvvm.mbarrier.inval
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c16384_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %{{.*}}, box[%c0_i32, %c0_i32]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %{{.*}}, box[%c64_i32, %c0_i32]
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %c0_i32
// CHECK: nvvm.mbarrier.inval
// CHECK: nvvm.wgmma.mma_async
func.func @single(%A: memref<?x64xbf16>, %B: memref<64x128xbf16>, %C: memref<?x128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<64x64xbf16, #tile.scope<shared>>
    %b = tile.alloc : memref<64x128xbf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<64x128xf32, #tile.scope<fragment>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<?x64xbf16>, memref<64x64xbf16, #tile.scope<shared>>
    tile.copy %B[%c0, %c0], %b[%c0, %c0] : memref<64x128xbf16>, memref<64x128xbf16, #tile.scope<shared>>
    tile.gemm %a, %b, %acc clear_accum : memref<64x64xbf16, #tile.scope<shared>>, memref<64x128xbf16, #tile.scope<shared>>, memref<64x128xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<64x128xf32, #tile.scope<fragment>>, memref<?x128xf32>
  }
  return
}

// On sm_80 the same copies stay cp.async, without tensor maps or mbarriers.
// SM80-LABEL: func.func @single
// SM80-NOT: unrealized_conversion_cast
// SM80-NOT: mbarrier
// SM80: nvgpu.device_async_copy %arg0
// SM80-NOT: mbarrier
