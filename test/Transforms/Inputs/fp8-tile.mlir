// Input of tile-verify-kernels-targets.mlir: an fp8 tensor and tile, which every
// cuda arch and ascend profile accepts.
func.func @fp8(%x: memref<?xf8E4M3FN>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %t = tile.alloc : memref<128xf8E4M3FN, #tile.scope<shared>>
  }
  return
}
