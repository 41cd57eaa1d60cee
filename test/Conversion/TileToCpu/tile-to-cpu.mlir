// RUN: tile-opt %s --tile-to-cpu | filecheck %s
// RUN: tile-opt %s --tile-to-cpu | filecheck %s --check-prefix=GONE
// RUN: tile-opt %s --tile-to-cpu | filecheck %s --check-prefix=NARROW

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

// Bools and 8-bit floats end as bytes (tile-widen-bools,
// tile-cpu-emulate-fp8): no f8 type is left for LLVM, which has none.
// CHECK-LABEL: llvm.func @narrow
// NARROW-NOT: f8E
func.func @narrow(%M: memref<?x16xi1>, %X: memref<?x16xf8E4M3FN>, %Y: memref<?x16xf8E5M2>) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f8E4M3FN
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %m = tile.alloc : memref<8x16xi1, #tile.scope<fragment>>
    %x = tile.alloc : memref<8x16xf8E4M3FN, #tile.scope<fragment>>
    tile.copy %M[%c0, %c0], %m[%c0, %c0] : memref<?x16xi1>, memref<8x16xi1, #tile.scope<fragment>>
    tile.copy %X[%c0, %c0], %x[%c0, %c0] : memref<?x16xf8E4M3FN>, memref<8x16xf8E4M3FN, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (8, 16) {
      %b = memref.load %m[%i, %j] : memref<8x16xi1, #tile.scope<fragment>>
      %v = memref.load %x[%i, %j] : memref<8x16xf8E4M3FN, #tile.scope<fragment>>
      %w = arith.mulf %v, %half : f8E4M3FN
      %y = arith.select %b, %w, %v : f8E4M3FN
      memref.store %y, %x[%i, %j] : memref<8x16xf8E4M3FN, #tile.scope<fragment>>
    }
    tile.copy %x[%c0, %c0], %Y[%c0, %c0] : memref<8x16xf8E4M3FN, #tile.scope<fragment>>, memref<?x16xf8E5M2>
  }
  return
}
