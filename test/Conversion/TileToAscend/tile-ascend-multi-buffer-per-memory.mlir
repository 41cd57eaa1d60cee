// RUN: tile-opt %S/Inputs/gemm-k-slabs-950.mlir --tile-ascend-multi-buffer="target=ascend:950" \
// RUN:   | filecheck %s
// RUN: tile-opt %S/Inputs/gemm-k-slabs-950.mlir --tile-ascend-multi-buffer="target=ascend:910b" \
// RUN:   | filecheck %s
//
// Slots per memory: the K loop of examples/gemm.py with 128 x 256 x 64 tiles,
// walked in K slabs of 256 (tile-ascend-k-slabs). Its L1 slabs (64 + 128 KiB)
// fit twice, and so do the two 16 KiB L0A buffers its K steps take turns on;
// the two 32 KiB L0B buffers fill L0B already. L0B keeps its two buffers for
// both copies of the body (they take turns on their own), the other memories
// get a second slot, and the loop says which memory got fewer.
// CHECK-COUNT-2: memref.alloc() : memref<16x16x16x16xf16, #ascend.mem<l1>>
// CHECK-COUNT-2: memref.alloc() : memref<16x8x16x16xf16, #ascend.mem<l1>>
// CHECK-COUNT-2: memref.alloc() {ascend.l0_turns = 2 : i64} : memref<4x16x16x16xf16, #ascend.mem<l0b>>
// CHECK-COUNT-4: memref.alloc() {ascend.l0_turns = 2 : i64} : memref<8x4x16x16xf16, #ascend.mem<l0a>>
// CHECK-NOT: memref.alloc
// CHECK: scf.for
// CHECK: ascend.copy_nd2nz %{{.*}}, %[[A0:[^ ]*]] sizes [128, 256]
// CHECK: ascend.load_l0b %{{.*}}, %[[B0:[^ ]*]] sizes [64, 256]
// CHECK: scf.if
// CHECK: ascend.copy_nd2nz %{{.*}}, %[[A1:[^ ]*]] sizes [128, 256]
// CHECK-NOT: %[[A0]] sizes
// CHECK: ascend.load_l0b %{{.*}}, %[[B0]] sizes [64, 256]
// CHECK: } {ascend.multi_buffer_slots = 2 : i64, ascend.multi_buffer_space_slots = {l0b = 1 : i64}}
