// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// A converting GM -> GM copy of 100 rows of 100 f32: through UB, in chunks of
// whole rows that fit 32 KiB. A UB row holds 112 elements (whole 32-byte
// blocks of f32 and of f16, as DataCopyPad writes them); the DMAs move the
// 100 of the region through a view, the cast converts the whole rows. 73 rows
// a chunk, then the 27 left over in the first rows of the same tiles.
// CHECK-LABEL: func.func @converting
// CHECK-DAG: %[[IN:.*]] = memref.alloc() : memref<73x112xf32, #ascend.mem<ub>>
// CHECK-DAG: %[[OUT:.*]] = memref.alloc() : memref<73x112xf16, #ascend.mem<ub>>
// CHECK: %[[V:.*]] = memref.subview %[[IN]][0, 0] [73, 100] [1, 1]
// CHECK: ascend.copy %[[X:.*]][%[[I:.*]], %[[I]]], %[[V]][%{{.*}}, %{{.*}}] sizes [73, 100]
// CHECK: ascend.vcast %[[OUT]], %[[IN]] round rint : memref<73x112xf16, #ascend.mem<ub>>, memref<73x112xf32, #ascend.mem<ub>>
// CHECK: %[[W:.*]] = memref.subview %[[OUT]][0, 0] [73, 100] [1, 1]
// CHECK: ascend.copy %[[W]][%{{.*}}, %{{.*}}], %[[Y:.*]][%[[I]], %[[I]]] sizes [73, 100]
// CHECK: %[[C73:.*]] = arith.constant 73 : index
// CHECK: %[[IN27:.*]] = memref.subview %[[IN]][0, 0] [27, 112] [1, 1]
// CHECK: %[[OUT27:.*]] = memref.subview %[[OUT]][0, 0] [27, 112] [1, 1]
// CHECK: %[[REST:.*]] = arith.addi %[[I]], %[[C73]] : index
// CHECK: ascend.copy %[[X]][%[[REST]], %[[I]]], %{{.*}}[%{{.*}}, %{{.*}}] sizes [27, 100]
// CHECK: ascend.vcast %[[OUT27]], %[[IN27]]
// CHECK: ascend.copy %{{.*}}[%{{.*}}, %{{.*}}], %[[Y]][%{{.*}}, %[[I]]] sizes [27, 100]
// CHECK-NOT: ascend.copy
func.func @converting(%x: memref<?x100xf32>, %y: memref<?x100xf16>, %i: index) {
  tile.copy %x[%i, %i], %y[%i, %i] {sizes = array<i64: 100, 100>} : memref<?x100xf32>, memref<?x100xf16>
  return
}

// -----

// Rows of whole blocks, same type: no cast, one tile; the leading dim is a
// loop, each step a chunk of 40 rows (40 x 64 f32 fit 32 KiB at once).
// CHECK-LABEL: func.func @batched
// CHECK: %[[T:.*]] = memref.alloc() : memref<1x40x64xf32, #ascend.mem<ub>>
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[B]] : index
// CHECK: ascend.copy %{{.*}}[%[[AT]], %{{.*}}, %{{.*}}], %[[T]][{{.*}}] sizes [1, 40, 64]
// CHECK-NOT: ascend.vcast
// CHECK: ascend.copy %[[T]][{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] sizes [1, 40, 64]
// CHECK: }
func.func @batched(%x: memref<4x40x64xf32>, %y: memref<8x40x64xf32>, %i: index) {
  tile.copy %x[%i, %i, %i], %y[%i, %i, %i] {sizes = array<i64: 3, 40, 64>} : memref<4x40x64xf32>, memref<8x40x64xf32>
  return
}
