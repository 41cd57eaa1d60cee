// A kernel that fits the cuda target; printed unchanged.
// CHECK-LABEL: func.func @warps
// CHECK: tile.kernel
func.func @warps(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    tile.barrier
  }
  return
}
