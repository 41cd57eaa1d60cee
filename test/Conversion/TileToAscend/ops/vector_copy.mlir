// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// Same element type: one DMA, whose edge handling is the tile op's.

// CHECK-LABEL: func.func @gm_to_ub_same_type
// CHECK: ascend.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] sizes [16, 128] : memref<?x?xf32, #ascend.mem<gm>>, memref<16x128xf32, #ascend.mem<ub>>
// CHECK-NOT: tile.copy
func.func @gm_to_ub_same_type(%x: memref<?x?xf32>, %t: memref<16x128xf32, #tile.scope<ub>>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  tile.copy %x[%i, %j], %t[%c0, %c0] : memref<?x?xf32>, memref<16x128xf32, #tile.scope<ub>>
  return
}

// -----

// A conversion on the way in: DMA into a UB temporary, then vcast (exact
// when widening, so no rounding mode).

// CHECK-LABEL: func.func @gm_f16_to_ub_f32
// CHECK-SAME: %[[X:.*]]: memref<?x?xf16, #ascend.mem<gm>>, %[[T:.*]]: memref<16x128xf32, #ascend.mem<ub>>
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<16x128xf16, #ascend.mem<ub>>
// CHECK: ascend.copy %[[X]]{{.*}}, %[[TMP]]{{.*}} sizes [16, 128]
// CHECK: ascend.vcast %[[T]], %[[TMP]] : memref<16x128xf32, #ascend.mem<ub>>, memref<16x128xf16, #ascend.mem<ub>>
func.func @gm_f16_to_ub_f32(%x: memref<?x?xf16>, %t: memref<16x128xf32, #tile.scope<ub>>, %i: index) {
  %c0 = arith.constant 0 : index
  tile.copy %x[%i, %c0], %t[%c0, %c0] : memref<?x?xf16>, memref<16x128xf32, #tile.scope<ub>>
  return
}

// -----

// Floats to integers round toward zero, as arith.fptosi.

// CHECK-LABEL: func.func @ub_f32_to_gm_i8
// CHECK-SAME: %[[T:.*]]: memref<16x64xf32, #ascend.mem<ub>>, %[[Y:.*]]: memref<?x?xi8, #ascend.mem<gm>>
// CHECK: %[[TMP:.*]] = memref.alloc() : memref<16x64xi8, #ascend.mem<ub>>
// CHECK: ascend.vcast %[[TMP]], %[[T]] round trunc
// CHECK: ascend.copy %[[TMP]]{{.*}}, %[[Y]]{{.*}} sizes [16, 64]
func.func @ub_f32_to_gm_i8(%t: memref<16x64xf32, #tile.scope<ub>>, %y: memref<?x?xi8>, %i: index) {
  %c0 = arith.constant 0 : index
  tile.copy %t[%c0, %c0], %y[%i, %c0] : memref<16x64xf32, #tile.scope<ub>>, memref<?x?xi8>
  return
}

// -----

// UB to UB with a conversion into the leading part of a tile: the rest of the
// tile is padded first, and the region is a subview.

// CHECK-LABEL: func.func @ub_to_ub_cast
// CHECK-SAME: %[[A:.*]]: memref<8x32xf32, #ascend.mem<ub>>, %[[B:.*]]: memref<16x32xf16, #ascend.mem<ub>>
// CHECK: ascend.vdup %[[B]], %{{.*}} : memref<16x32xf16, #ascend.mem<ub>>, f16
// CHECK: %[[PART:.*]] = memref.subview %[[B]][0, 0] [8, 32] [1, 1]
// CHECK: ascend.vcast %[[PART]], %[[A]] round rint
func.func @ub_to_ub_cast(%a: memref<8x32xf32, #tile.scope<ub>>, %b: memref<16x32xf16, #tile.scope<ub>>) {
  %c0 = arith.constant 0 : index
  tile.copy %a[%c0, %c0], %b[%c0, %c0] sizes [8, 32] : memref<8x32xf32, #tile.scope<ub>>, memref<16x32xf16, #tile.scope<ub>>
  return
}

// -----

// A copy into a tile at an offset places a piece: the rest of the tile keeps the
// other pieces (no padding).

// CHECK-LABEL: func.func @ub_to_ub_cast_piece
// CHECK-NOT: ascend.vdup
// CHECK: %[[PART:.*]] = memref.subview %{{.*}}[8, 0] [8, 32] [1, 1]
// CHECK: ascend.vcast %[[PART]]
func.func @ub_to_ub_cast_piece(%a: memref<8x32xf32, #tile.scope<ub>>, %b: memref<16x32xf16, #tile.scope<ub>>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  tile.copy %a[%c0, %c0], %b[%c8, %c0] sizes [8, 32] : memref<8x32xf32, #tile.scope<ub>>, memref<16x32xf16, #tile.scope<ub>>
  return
}

// -----

// The lower-rank tile is viewed at the copy's rank.

// CHECK-LABEL: func.func @lower_rank
// CHECK: %[[E:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 64, 128]
// CHECK: ascend.copy %{{.*}}, %[[E]]{{.*}} sizes [1, 64, 128]
func.func @lower_rank(%q: memref<?x?x?xf16>, %t: memref<64x128xf16, #tile.scope<ub>>, %b: index, %i: index) {
  %c0 = arith.constant 0 : index
  tile.copy %q[%b, %i, %c0], %t[%c0, %c0] sizes [1, 64, 128] : memref<?x?x?xf16>, memref<64x128xf16, #tile.scope<ub>>
  return
}

// -----

// A pad other than zero cannot come from the DMA, which reads zeros past the
// tensor's edge: the DMA, then a Select of the pad where the position lies past
// the edge (from a compare of the positions with the tensor's extent), on V;
// no scalar loads.

// CHECK-LABEL: func.func @pad
// CHECK-SAME: %[[X:[^:]*]]: memref<?xf32, #ascend.mem<gm>>, %[[T:[^:]*]]: memref<64xf32, #ascend.mem<ub>>
// CHECK: ascend.copy %[[X]][%{{.*}}], %[[T]][%{{.*}}] sizes [64]
// CHECK: %[[N:.*]] = memref.dim %[[X]]
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]]
// CHECK: ascend.vdup %{{.*}}, %[[NI]]
// CHECK: ascend.vcmp lt %[[MASK:[^,]*]],
// CHECK: ascend.vsel %[[T]], %[[MASK]], %[[T]], %{{.*}}
// CHECK-NOT: memref.load
func.func @pad(%x: memref<?xf32>, %t: memref<64xf32, #tile.scope<ub>>, %i: index) {
  %c0 = arith.constant 0 : index
  %ninf = arith.constant 0xFF800000 : f32
  tile.copy %x[%i], %t[%c0] pad(%ninf : f32) : memref<?xf32>, memref<64xf32, #tile.scope<ub>>
  return
}
