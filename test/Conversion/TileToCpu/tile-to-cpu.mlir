// RUN: tile-opt %s --tile-to-cpu | filecheck %s
// RUN: tile-opt %s --tile-to-cpu | filecheck %s --check-prefix=GONE

// The whole pipeline ends in the LLVM dialect: the entry keeps its C
// interface, the grid is dispatched through the async runtime, and no
// tile, scf, vector or memref op is left.
// CHECK-LABEL: llvm.func @scale
// CHECK: llvm.call @mlirAsyncRuntimeCreateGroup
// CHECK-LABEL: llvm.func @_mlir_ciface_scale
// GONE-NOT: {{(tile|scf|memref|vector|async)\.[a-z_]+ }}
func.func @scale(%A: memref<?x?xf32>, %s: f32) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %A, %c0 : memref<?x?xf32>
  %g = arith.ceildivsi %m, %c8 : index
  tile.kernel blocks(%bx) in (%g) threads = 128 {
    %row = arith.muli %bx, %c8 : index
    %t = tile.alloc : memref<8x16xf32, #tile.scope<fragment>>
    tile.copy %A[%row, %c0], %t[%c0, %c0] : memref<?x?xf32>, memref<8x16xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (8, 16) {
      %x = memref.load %t[%i, %j] : memref<8x16xf32, #tile.scope<fragment>>
      %y = arith.mulf %x, %s : f32
      memref.store %y, %t[%i, %j] : memref<8x16xf32, #tile.scope<fragment>>
    }
    tile.copy %t[%c0, %c0], %A[%row, %c0] : memref<8x16xf32, #tile.scope<fragment>>, memref<?x?xf32>
  }
  return
}
