// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// A scalar atomic add at the point's coordinates (plus uniform offsets) adds
// into a distinct GM element per point: the region is one atomic DMA of its
// extent, from a view of the tile the addend is loaded from.
// CHECK-LABEL: func.func @split_k_epilogue
// CHECK-SAME: (%[[T:.*]]: memref<16x64xf32, #ascend.mem<ub>>, %[[C:.*]]: memref<?x?xf32, #ascend.mem<gm>>, %[[R:.*]]: index, %[[K:.*]]: index)
// CHECK-NOT: scf.for
// CHECK: ascend.copy %[[T]][%{{.*}}, %{{.*}}], %[[C]][%[[R]], %[[K]]] sizes [16, 64] atomic_add : memref<16x64xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
// CHECK-NOT: atomic_add
// CHECK: return
func.func @split_k_epilogue(%t: memref<16x64xf32, #tile.scope<ub>>, %c: memref<?x?xf32>,
                            %r: index, %k: index) {
  tile.parallel (%i, %j) in (16, 64) {
    %v = memref.load %t[%i, %j] : memref<16x64xf32, #tile.scope<ub>>
    %row = arith.addi %r, %i : index
    %col = arith.addi %j, %k : index
    tile.atomic_add %v, %c[%row, %col] : f32, memref<?x?xf32>
  }
  return
}

// -----

// A computed addend: the vector ops write a UB temporary, added with one DMA.
// CHECK-LABEL: func.func @scaled
// CHECK-NOT: scf.for
// CHECK: ascend.vbins muls %[[TMP:.*]], %{{.*}}, %{{.*}} : memref<8x32xf16, #ascend.mem<ub>>, f16
// CHECK: ascend.copy %[[TMP]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] sizes [8, 32] atomic_add
func.func @scaled(%t: memref<8x32xf16, #tile.scope<ub>>, %c: memref<?x?xf16>, %r: index,
                  %s: f16) {
  tile.parallel (%i, %j) in (8, 32) {
    %v = memref.load %t[%i, %j] : memref<8x32xf16, #tile.scope<ub>>
    %w = arith.mulf %v, %s : f16
    %row = arith.addi %i, %r : index
    tile.atomic_add %w, %c[%row, %j] : f16, memref<?x?xf16>
  }
  return
}

// -----

// Every point of a row adds into the same element: a loop of one-element
// atomic DMAs on the S pipe, not one DMA of the region.
// CHECK-LABEL: func.func @row_sums
// CHECK: scf.for
// CHECK: scf.for
// CHECK: ascend.vdup %[[ONE:.*]], %{{.*}} : memref<1xf32, #ascend.mem<ub>>, f32
// CHECK: ascend.copy %[[ONE]][%{{.*}}], %{{.*}}[%{{.*}}] sizes [1] atomic_add
func.func @row_sums(%t: memref<8x32xf32, #tile.scope<ub>>, %s: memref<?xf32>, %r: index) {
  tile.parallel (%i, %j) in (8, 32) {
    %v = memref.load %t[%i, %j] : memref<8x32xf32, #tile.scope<ub>>
    %row = arith.addi %i, %r : index
    tile.atomic_add %v, %s[%row] : f32, memref<?xf32>
  }
  return
}
