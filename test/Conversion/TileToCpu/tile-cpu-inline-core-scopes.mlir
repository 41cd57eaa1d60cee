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

// A cube program, then the vector cores' (DeepSeek-V4's int8 GEMM, the lightning
// indexer): the only cross-core flag goes from the cube to the AIVs, so running the
// cube's scope and then each AIV's in turn means what the NPU's concurrent programs
// mean. Each block is one AI core: the grid's vid dim (2 AIVs) becomes a loop
// around the vector scope, its index the AIV's, and the flags go.
// CHECK-LABEL: func.func @cube_then_vector
// CHECK-DAG:  %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:  %[[C2:.*]] = arith.constant 2 : index
// CHECK:      tile.kernel blocks(%{{.*}}, %[[CID:.*]]) in (%[[ONE:.*]], %[[C2]])
// CHECK-NOT:  ascend.vid_dim
// CHECK:      tile.clear %[[ACC:[^ ]*]]
// CHECK-NEXT: tile.copy %[[ACC]][{{.*}}], %arg0[%[[CID]], %{{.*}}]
// CHECK:      scf.for %[[VID:.*]] = %{{.*}} to %[[C2]] step %{{.*}} {
// CHECK-NEXT:   %[[ROW:.*]] = arith.muli %[[VID]]
// CHECK-NEXT:   tile.alloc
// CHECK-NEXT:   tile.copy %arg0[%[[CID]], %[[ROW]]]
// CHECK:      }
// CHECK-NOT:  ascend.
// CHECK-NOT:  scf.execute_region
func.func @cube_then_vector(%ws: memref<2x64xf32>, %out: memref<2x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 1 attributes {ascend.vid_dim = 0 : i64} {
    scf.execute_region {
      %acc = tile.alloc : memref<64xf32, #tile.scope<l0c>>
      tile.clear %acc : memref<64xf32, #tile.scope<l0c>>
      tile.copy %acc[%c0], %ws[%cid, %c0] sizes [1, 64] : memref<64xf32, #tile.scope<l0c>>, memref<2x64xf32>
      ascend.cross_core_set_flag mode 2, fix, 0
      scf.yield
    } {ascend.core_region = #ascend.core<aic>}
    scf.execute_region {
      %half = arith.muli %vid, %c32 : index
      %t = tile.alloc : memref<32xf32, #tile.scope<ub>>
      ascend.cross_core_wait_flag 0
      tile.copy %ws[%cid, %half], %t[%c0] sizes [1, 32] : memref<2x64xf32>, memref<32xf32, #tile.scope<ub>>
      tile.copy %t[%c0], %out[%cid, %half] sizes [1, 32] : memref<32xf32, #tile.scope<ub>>, memref<2x64xf32>
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
  }
  return
}
