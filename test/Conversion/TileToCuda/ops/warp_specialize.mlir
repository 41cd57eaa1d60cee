// RUN: tile-opt %s --tile-cuda-infer-layouts="target=cuda:sm_90a" --convert-tile-to-cuda="target=cuda:sm_90a" --canonicalize --cse | filecheck %s

// The loop of tma_copy.mlir with static shapes: warp-specialized. The launch
// gets a producer warpgroup (128 + 128 threads); thread 0 initializes the
// full barriers (1 arrival) and the empty ones (128, the consumers), then
// the whole block synchronizes. The consumers (threads < 128) raise their
// registers, wait on full[k % 2] with parity (k / 2) % 2, run the body with
// their barriers named (bar.sync 1, 128) and arrive on empty[k % 2]; the
// producer lowers its registers and thread 128 waits on empty[k % 2] with
// the other parity before it announces the bytes and issues the boxes.
// The tensor maps are required: no thread copies stand in for them.
// CHECK-LABEL: func.func @warp_specialized
// CHECK: %[[MA:.*]] = builtin.unrealized_conversion_cast %arg0 : memref<150x72xf16> to !llvm.ptr {tile.cuda_tma = {box = array<i64: 32, 64>, element = "f16", required, swizzle = 64 : i64}}
// CHECK: %[[MB:.*]] = builtin.unrealized_conversion_cast %arg1
// CHECK: gpu.launch {{.*}} threads({{.*}}) in (%{{.*}} = %c256,
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c128_i32
// CHECK: gpu.barrier
// CHECK: %[[CONSUMER:.*]] = arith.cmpi ult, %thread_id_x, %c128 : index
// CHECK: scf.if %[[CONSUMER]] {
// CHECK-NEXT: nvvm.setmaxregister  increase 232
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.barrier id = %c1_i32 number_of_threads = %c128_i32
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.mbarrier.arrive %{{.*}} : !llvm.ptr<3> -> i64
// CHECK-NEXT: }
// CHECK: } else {
// CHECK-NEXT: nvvm.setmaxregister  decrease 40
// CHECK: %[[LEADER:.*]] = arith.cmpi eq, %thread_id_x, %c128 : index
// CHECK: scf.if %[[LEADER]] {
// CHECK: scf.for %[[K:.*]] = %c0 to %c3 step %c1 {
// CHECK: %[[OTHER:.*]] = arith.xori %{{.*}}, %c1_i32 : i32
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[OTHER]]
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c8192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MA]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]]
// CHECK: gpu.barrier
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.mbarrier.inval
func.func @warp_specialized(%A: memref<150x72xf16>, %B: memref<40x72xf16>, %C: memref<?x40xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %acc : memref<64x64xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c3 step %c1 num_stages = 2 {
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %kk], %a[%c0, %c0] : memref<150x72xf16>, memref<64x32xf16, #tile.scope<shared>>
      tile.copy %B[%c0, %kk], %b[%c0, %c0] : memref<40x72xf16>, memref<64x32xf16, #tile.scope<shared>>
      tile.gemm %a, %b, %acc transpose_b : memref<64x32xf16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x40xf32>
  }
  return
}
