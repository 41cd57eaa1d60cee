// Column sums and a row histogram by atomic adds from every block (see
// ../vector_atomic_add.mlir).
func.func @column_sums(%X: memref<?x8xf32>, %Total: memref<8xf32>, %Hist: memref<4xi32>)
    attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %X, %c0 : memref<?x8xf32>
  %g = arith.ceildivsi %m, %c8 : index
  tile.kernel blocks(%bx) in (%g) threads = 128 {
    %row = arith.muli %bx, %c8 : index
    %t = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
    %s = tile.alloc : memref<8xf32, #tile.scope<fragment>>
    tile.copy %X[%row, %c0], %t[%c0, %c0] : memref<?x8xf32>, memref<8x8xf32, #tile.scope<fragment>>
    tile.reduce sum %t, %s dim = 0 : memref<8x8xf32, #tile.scope<fragment>>, memref<8xf32, #tile.scope<fragment>>
    tile.atomic_add %s, %Total[%c0] : memref<8xf32, #tile.scope<fragment>>, memref<8xf32>
    tile.parallel (%i) in (8) {
      %r = arith.addi %row, %i : index
      %inside = arith.cmpi slt, %r, %m : index
      %one = arith.extui %inside : i1 to i32
      %bin = arith.divui %r, %c8 : index
      tile.atomic_add %one, %Hist[%bin] : i32, memref<4xi32>
    }
  }
  return
}
