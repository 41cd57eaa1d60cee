// RUN: tile-opt %s --tile-cuda-extern-shared-memory | filecheck %s
// RUN: tile-opt %s --tile-cuda-extern-shared-memory="alignment=1024" | filecheck %s --check-prefix=ALIGNED

// The zero-length shared global that convert-gpu-to-nvvm makes for dynamic
// shared memory becomes external (`.extern .shared ... []` in PTX); static
// shared globals and other globals keep their linkage.
// CHECK: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
// With an alignment (sm_90a's wgmma operands need 1024 bytes) it is aligned so.
// ALIGNED: llvm.mlir.global external @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 1024 : i64}
// CHECK: llvm.mlir.global internal @static_tile() {addr_space = 3 : i32} : !llvm.array<64 x f32>
// CHECK: llvm.mlir.global internal @table() {addr_space = 0 : i32} : !llvm.array<0 x i8>
module attributes {gpu.container_module} {
  gpu.module @k {
    llvm.mlir.global internal @__dynamic_shmem__0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<0 x i8>
    llvm.mlir.global internal @static_tile() {addr_space = 3 : i32} : !llvm.array<64 x f32>
    llvm.mlir.global internal @table() {addr_space = 0 : i32} : !llvm.array<0 x i8>
  }
}
