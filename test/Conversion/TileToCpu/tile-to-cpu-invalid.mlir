// IR for another target through the cpu pipeline: a memref in a memory space
// that has no LLVM address space is an error at the op that has it (the
// upstream memref lowering fails on it without a location).
//
// RUN: not tile-opt %s --tile-to-cpu 2>&1 | filecheck %s

// CHECK: tile-to-cpu-invalid.mlir:[[# @LINE + 2]]:1: error: a memref in memory space #ascend.mem<gm> cannot be lowered to LLVM (it has no address space there): is this IR for another target?
// CHECK-NOT: error:
func.func @k(%x: memref<64xf32, #ascend.mem<gm>>) attributes {tile.entry} {
  return
}
