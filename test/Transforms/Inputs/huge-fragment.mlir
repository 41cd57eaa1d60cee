// Input of tile-verify-kernels-targets.mlir: a tile no machine can hold.
func.func @f(%n: index) attributes {tile.entry} {
  tile.kernel blocks(%bx) in (%n) threads = 1 {
    %t = tile.alloc : memref<131072x131072xf32, #tile.scope<fragment>>
  }
  return
}
