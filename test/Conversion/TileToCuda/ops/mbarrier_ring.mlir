// RUN: tile-opt %s --tile-cuda-infer-layouts="target=cuda:sm_90a" --convert-tile-to-cuda="target=cuda:sm_90a" --canonicalize --cse | filecheck %s

// A 2-stage pipelined loop whose stage copies fill wgmma operand tiles from
// entry parameters: TMA boxes (32 f16 = one 64-byte panel wide, 64 rows) on
// a ring of two mbarriers. The tensor maps are host casts the launch plan
// records; A's base and B's base being 16-byte aligned and A's dynamic rows
// non-empty are checked in the kernel (else those copies go by threads).
// Thread 0 announces the stage's bytes (2 x 4096 where both maps exist),
// the boxes complete on the slot's barrier, every thread waits for the
// phase (count / 2) % 2 of barrier count % 2, and the barriers are
// invalidated after the loop.
// CHECK-LABEL: func.func @ring
// CHECK: %[[MA:.*]] = builtin.unrealized_conversion_cast %arg0 : memref<?x72xf16> to !llvm.ptr {tile.cuda_tma = {box = array<i64: 32, 64>, element = "f16", swizzle = 64 : i64}}
// CHECK: %[[MB:.*]] = builtin.unrealized_conversion_cast %arg1 : memref<40x72xf16> to !llvm.ptr {tile.cuda_tma = {box = array<i64: 32, 64>, element = "f16", swizzle = 64 : i64}}
// CHECK: gpu.launch
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: arith.remui %{{.*}}, %c16 : index
// CHECK: arith.cmpi ugt, %{{.*}}, %c0 : index
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK: nvvm.mbarrier.init %{{.*}}, %c1_i32 : !llvm.ptr<3>, i32
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MA]], %{{.*}}, box[%c0_i32, %c0_i32] : !llvm.ptr<7>, !llvm.ptr
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]], %{{.*}}, box[%c0_i32, %c0_i32] : !llvm.ptr<7>, !llvm.ptr
// CHECK: scf.for %[[K:.*]] = %c0 to %c3 step %c1 {
// CHECK: nvvm.mbarrier.arrive.expect_tx
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MA]]
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MB]]
// CHECK: %[[SLOT:.*]] = arith.remui %[[K]], %c2 : index
// CHECK: %[[ROUND:.*]] = arith.divui %[[K]], %c2 : index
// CHECK: %[[PARITY:.*]] = arith.remui %[[ROUND]], %c2 : index
// CHECK: %[[P32:.*]] = arith.index_cast %[[PARITY]] : index to i32
// CHECK: nvvm.mbarrier.try_wait.parity %{{.*}}, %[[P32]], %{{.*}} : !llvm.ptr<3>, i32, i32
// CHECK: nvvm.wgmma.mma_async
// CHECK: gpu.barrier
// CHECK: }
// CHECK: nvvm.mbarrier.inval
// CHECK: nvvm.mbarrier.inval
func.func @ring(%A: memref<?x72xf16>, %B: memref<40x72xf16>, %C: memref<?x40xf32>, %n: index) {
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
      tile.copy %A[%c0, %kk], %a[%c0, %c0] : memref<?x72xf16>, memref<64x32xf16, #tile.scope<shared>>
      tile.copy %B[%c0, %kk], %b[%c0, %c0] : memref<40x72xf16>, memref<64x32xf16, #tile.scope<shared>>
      tile.gemm %a, %b, %acc transpose_b : memref<64x32xf16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x40xf32>
  }
  return
}
