// RUN: tile-opt %s -split-input-file --convert-tile-to-cuda --canonicalize --cse | filecheck %s

// A 3-stage cp.async pipeline: the copied tile gets two more slots in shared
// memory (1152 and 2176, after the 1024 + 32 bytes of the kernel's tiles);
// the prologue fills slots 0 and 1 and commits a group each; every
// iteration refills the slot iteration k + 2 uses, commits, waits until
// two groups are left in flight, and the reduction reads slot k % 3 between
// barriers; the epilogue waits for every group.
// CHECK-LABEL: func.func @pipelined
// CHECK-DAG: %[[C1152:.*]] = arith.constant 1152 : index
// CHECK-DAG: %[[SMEM:.*]] = arith.constant 3200 : i32
// CHECK: gpu.launch {{.*}} dynamic_shared_memory_size %[[SMEM]] {
// CHECK: %[[BASE:.*]] = gpu.dynamic_shared_memory
// CHECK: %[[SLOT0:.*]] = memref.view %[[BASE]][%c0][] : {{.*}} to memref<16x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.device_async_copy %{{.*}}, %[[SLOT0]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK-NOT: nvgpu.device_async_wait
// CHECK: nvvm.cp.async.commit.group
// CHECK: %[[SLOT1:.*]] = memref.view %[[BASE]][%[[C1152]]][]
// CHECK: nvgpu.device_async_copy %{{.*}}, %[[SLOT1]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for %[[K:.*]] = %c0 to %{{.*}} step %c1 {
// CHECK: %[[REFILL:.*]] = memref.view %[[BASE]][%{{.*}}][]
// CHECK: nvgpu.device_async_copy %{{.*}}, %[[REFILL]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK: nvvm.cp.async.commit.group
// CHECK-NEXT: nvvm.cp.async.wait.group 2
// CHECK-NEXT: gpu.barrier
// CHECK: %[[CURRENT:.*]] = memref.view %[[BASE]][%{{.*}}][]
// CHECK: memref.load %[[CURRENT]]
// CHECK: gpu.barrier
// CHECK-NEXT: }
// CHECK-NEXT: nvvm.cp.async.wait.group 0
func.func @pipelined(%A: memref<?x?xf16>, %n: index, %kt: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<16xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %c32 = arith.constant 32 : index
      %col = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %col], %a[%c0, %c0] : memref<?x?xf16>, memref<16x32xf16, #tile.scope<shared>>
      tile.reduce sum %a, %s dim = 1 : memref<16x32xf16, #tile.scope<shared>>, memref<16xf16, #tile.scope<shared>>
    }
  }
  return
}

// -----

// The loop writes the tensor it copies from, so reading it ahead would see
// it too early: a plain loop whose copy waits for its own group.
// CHECK-LABEL: func.func @writes_its_source
// CHECK-NOT: nvvm.cp.async
// CHECK: scf.for
// CHECK: nvgpu.device_async_create_group
// CHECK: nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NOT: nvvm.cp.async
func.func @writes_its_source(%A: memref<?x?xf16>, %n: index, %kt: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %a = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
    tile.pipelined %k = %c0 to %kt step %c1 num_stages = 3 {
      %c32 = arith.constant 32 : index
      %col = arith.muli %k, %c32 : index
      tile.copy %A[%c0, %col], %a[%c0, %c0] : memref<?x?xf16>, memref<16x32xf16, #tile.scope<shared>>
      tile.copy %a[%c0, %c0], %A[%c0, %col] : memref<16x32xf16, #tile.scope<shared>>, memref<?x?xf16>
    }
  }
  return
}
