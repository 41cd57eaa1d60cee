// RUN: tile-opt %s --tile-to-cuda="target=cuda:sm_80" | filecheck %s
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-to-cuda{target=cuda:sm_90a})' | filecheck %s --check-prefix=SM90
// RUN: tile-opt %s --tile-to-cuda="target=cuda:sm_80" --emit=ptx | filecheck %s --check-prefix=PTX
// RUN: tile-opt %s --tile-to-cuda="target=cuda:sm_90a" --emit=ptx | filecheck %s --check-prefix=PTX90
// RUN: not tile-opt %s --emit=sass 2>&1 | filecheck %s --check-prefix=EMIT

// --emit=ptx prints the PTX of the gpu.module instead of the IR.
// PTX: .target sm_80
// PTX: cp.async.cg.shared.global
// PTX: ldmatrix.sync.aligned
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// On sm_90a the same gemm is one warpgroup's wgmma (m64n64k16, 2 k-steps)
// from operands the copies fenced for the async proxy.
// PTX90: .target sm_90a
// PTX90: .extern .shared .align 1024 .b8
// PTX90: fence.proxy.async.shared::cta
// PTX90: wgmma.fence.sync.aligned
// PTX90-COUNT-2: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX90: wgmma.commit_group.sync.aligned
// PTX90: wgmma.wait_group.sync.aligned 0
// EMIT: error: option '--emit' expects mlir{{.*}} ptx{{.*}} but got 'sass'

// examples/gemm.mlir's f16 GEMM through the whole pipeline: the host launches
// the outlined kernel (grid from the arguments, 128 threads, 16 KiB of
// dynamic shared memory: both tiles twice, for the 2-stage pipeline); the
// gpu.module targets sm_80 in the NVVM dialect and its dynamic shared memory
// is external. The prologue issues the cp.async copies of iteration 0 and
// commits them; each iteration issues those of the next one, commits,
// waits until one group is left in flight, and runs ldmatrix and m16n8k16
// mma.sync (4 warps in a 2x2 grid of 32x32 warp tiles: 2 x 4 mma per k-step,
// 2 k-steps); the epilogue waits for every group.
// CHECK-LABEL: func.func @gemm
// CHECK: gpu.launch_func @gemm_kernel::@gemm_kernel blocks in (%arg4, %arg3, %c1) threads in (%c128, %c1, %c1) dynamic_shared_memory_size %c16384_i32 args(%arg5 : index, %arg0 : memref<?x?xf16>, %arg1 : memref<?x?xf16>, %arg2 : memref<?x?xf32>)
// CHECK: gpu.module @gemm_kernel [#nvvm.target<O = 3, chip = "sm_80">]
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// CHECK: llvm.func @gemm_kernel
// CHECK-SAME: gpu.known_block_size = array<i32: 128, 1, 1>
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.commit.group
// CHECK-NOT: nvvm.cp.async.wait.group
// CHECK-COUNT-4: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.ldmatrix {{.*}} layout = #nvvm.mma_layout<row>, num = 4
// CHECK: nvvm.ldmatrix {{.*}} layout = #nvvm.mma_layout<col>, num = 4
// CHECK-COUNT-8: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-COUNT-8: nvvm.mma.sync {{.*}} shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-NOT: nvvm.mma.sync
// CHECK: nvvm.barrier0
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NOT: tile.
// SM90: gpu.module @gemm_kernel [#nvvm.target<O = 3, chip = "sm_90a">]
// SM90-NOT: nvvm.mma.sync
// SM90: llvm.inline_asm {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// SM90-NOT: nvvm.mma.sync
func.func @gemm(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %C: memref<?x?xf32>,
                %gm: index, %gn: index, %kt: index) {
  tile.kernel blocks(%bx, %by) in (%gn, %gm) threads = 128 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %row = arith.muli %by, %c64 : index
    %col = arith.muli %bx, %c64 : index
    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    %zero = arith.constant 0.0 : f32
    tile.fill %acc, %zero : memref<64x64xf32, #tile.scope<fragment>>, f32
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 2 {
      %c32 = arith.constant 32 : index
      %kk = arith.muli %k, %c32 : index
      tile.copy %A[%row, %kk], %a[%c0, %c0] : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
      tile.copy %B[%kk, %col], %b[%c0, %c0] : memref<?x?xf16>, memref<32x64xf16, #tile.scope<shared>>
      tile.gemm %a, %b, %acc : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %C[%row, %col] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xf32>
  }
  return
}
