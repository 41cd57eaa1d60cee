// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// Global scratch (T.alloc_global) becomes a trailing GM argument the host
// allocates: `ascend.scratch` gives each dim as an expression over the
// arguments (here dim 0 of %x, and 2 * %s + 1), `tile.dims` names a dim
// another argument has by that argument's name. The dealloc goes.

// CHECK-LABEL: func.func @two_kernels
// CHECK-SAME: %[[X:.*]]: memref<?x16xf32, #ascend.mem<gm>> {tile.dims = ["N", "16"], tile.name = "X"}
// CHECK-SAME: %[[S:.*]]: index
// CHECK-SAME: %[[P:.*]]: memref<?x16xf32, #ascend.mem<gm>> {ascend.scratch = {{\[}}["dim", 0, 0], 16], tile.dims = ["N", "16"], tile.name = "scratch0"}
// CHECK-SAME: %[[Q:.*]]: memref<?xf32, #ascend.mem<gm>> {ascend.scratch = {{\[}}["arith.addi", ["arith.muli", ["arg", 1], 2], 1]], tile.dims = ["scratch1_dim0"], tile.name = "scratch1"}
// CHECK-NOT: memref.alloc({{.*}}#ascend.mem<gm>
// CHECK: ascend.copy %{{.*}}, %[[P]]
// CHECK: ascend.copy %[[P]]
// CHECK-NOT: memref.dealloc
func.func @two_kernels(%x: memref<?x16xf32> {tile.dims = ["N", "16"], tile.name = "X"}, %s: index)
    attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n = memref.dim %x, %c0 : memref<?x16xf32>
  %partial = memref.alloc(%n) : memref<?x16xf32>
  %m0 = arith.muli %s, %c2 : index
  %m = arith.addi %m0, %c1 : index
  %other = memref.alloc(%m) : memref<?xf32>
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %t = tile.alloc : memref<16xf32, #tile.scope<ub>>
    tile.copy %x[%bx, %c0], %t[%c0] sizes [1, 16] : memref<?x16xf32>, memref<16xf32, #tile.scope<ub>>
    tile.copy %t[%c0], %partial[%bx, %c0] sizes [1, 16] : memref<16xf32, #tile.scope<ub>>, memref<?x16xf32>
  }
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %t = tile.alloc : memref<16xf32, #tile.scope<ub>>
    tile.copy %partial[%bx, %c0], %t[%c0] sizes [1, 16] : memref<?x16xf32>, memref<16xf32, #tile.scope<ub>>
    tile.copy %t[%c0], %x[%bx, %c0] sizes [1, 16] : memref<16xf32, #tile.scope<ub>>, memref<?x16xf32>
  }
  memref.dealloc %other : memref<?xf32>
  memref.dealloc %partial : memref<?x16xf32>
  return
}

// -----

// A function without a kernel keeps its allocations.

// CHECK-LABEL: func.func @no_kernel
// CHECK: memref.alloc() : memref<4xf32, #ascend.mem<gm>>
func.func @no_kernel() {
  %a = memref.alloc() : memref<4xf32>
  memref.dealloc %a : memref<4xf32>
  return
}
