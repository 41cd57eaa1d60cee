// RUN: tile-opt %s --tile-cpu-inline-core-scopes | filecheck %s

// A vector-only expert kernel: its scope's body runs in place, the author's
// flags and barriers go (sequential code is in order).
// CHECK-LABEL: func.func @vector_scope
// CHECK: tile.kernel
// CHECK-NEXT: %[[T:.*]] = tile.alloc
// CHECK-NEXT: tile.copy %{{.*}}, %[[T]]
// CHECK-NEXT: tile.copy %[[T]]
// CHECK-NOT: ascend.
// CHECK-NOT: scf.execute_region
func.func @vector_scope(%a: memref<64xf32>, %b: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<64xf32, #tile.scope<ub>>
    scf.execute_region {
      tile.copy %a[%c0], %t[%c0] : memref<64xf32>, memref<64xf32, #tile.scope<ub>>
      ascend.set_flag mte2 -> mte3, 0
      ascend.wait_flag mte2 -> mte3, 0
      ascend.pipe_barrier all
      tile.copy %t[%c0], %b[%c0] : memref<64xf32, #tile.scope<ub>>, memref<64xf32>
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
  }
  return
}
