// The fill value's type differs from the tile's element type.
func.func @f(%a: memref<16x16xf32, #tile.scope<shared>>) {
  %c = arith.constant 0 : i32
  tile.fill %a, %c : memref<16x16xf32, #tile.scope<shared>>, i32
  return
}
