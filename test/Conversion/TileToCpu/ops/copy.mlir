// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu=ops=tile.copy | filecheck %s

// Reading a tile from a dynamic global buffer: when the whole region is
// inside (an interior tile), plain vector loads; otherwise each row is one
// masked vector load whose lane count is clamped to the columns left, and
// zero for a row past the end; the pass-through is the zero pad.
// CHECK-LABEL: func.func @load_edge_tile
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK: %[[T:.*]] = tile.alloc
// CHECK: %[[PAD:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[END:.*]] = arith.addi %[[I]], %{{.*}} : index
// CHECK: %[[NOT_NEGATIVE:.*]] = arith.cmpi ule, %[[I]], %[[END]] : index
// CHECK: %[[ROWS_IN:.*]] = arith.cmpi ule, %[[END]], %{{.*}} : index
// CHECK: %[[ROWS_OK:.*]] = arith.andi %[[NOT_NEGATIVE]], %[[ROWS_IN]] : i1
// CHECK: %[[INSIDE:.*]] = arith.andi %[[ROWS_OK]], %{{.*}} : i1
// CHECK: scf.if %[[INSIDE]] {
// CHECK: scf.for %[[R0:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[V0:.*]] = vector.load %[[A]][%{{.*}}, %[[J]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: vector.store %[[V0]], %[[T]][%[[R0]], %{{.*}}]
// CHECK: } else {
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[ROW:.*]] = arith.addi %[[I]], %[[R]] : index
// CHECK: %[[ROWS:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK: %[[ROW_OK:.*]] = arith.cmpi ult, %[[ROW]], %[[ROWS]] : index
// CHECK: %[[COLS:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?xf32>
// CHECK: %[[LEFT:.*]] = arith.subi %[[COLS]], %[[J]] : index
// CHECK: %[[N:.*]] = arith.minsi
// CHECK: %[[COUNT:.*]] = arith.select %[[ROW_OK]], %[[N]], %{{.*}} : index
// CHECK: %[[BELOW:.*]] = vector.create_mask %[[COUNT]] : vector<8xi1>
// CHECK: %[[BEFORE_0:.*]] = vector.create_mask %{{.*}} : vector<8xi1>
// CHECK: %[[FROM_0:.*]] = arith.xori %[[BEFORE_0]], %{{.*}} : vector<8xi1>
// CHECK: %[[MASK:.*]] = arith.andi %[[BELOW]], %[[FROM_0]] : vector<8xi1>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[PAD]] : f32 to vector<8xf32>
// CHECK: %[[V:.*]] = vector.maskedload %[[A]][%[[ROW]], %[[J]]], %[[MASK]], %[[SPLAT]]
// CHECK: vector.store %[[V]], %[[T]][%[[R]], %{{.*}}] : memref<4x8xf32, #tile.scope<shared>>, vector<8xf32>
// CHECK-NOT: tile.copy
func.func @load_edge_tile(%A: memref<?x?xf32>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : memref<4x8xf32, #tile.scope<shared>>
  tile.copy %A[%i, %j], %t[%c0, %c0] : memref<?x?xf32>, memref<4x8xf32, #tile.scope<shared>>
  return
}

// -----

// Storing an f32 accumulator into an f16 tensor: 20 columns are two
// 8-lane chunks (a loop) and a 4-lane tail, converted with truncf and
// written with masked stores at the edge.
// CHECK-LABEL: func.func @store_converted
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[V:.*]] = vector.load %{{.*}}[%{{.*}}, %[[C]]] : memref<2x20xf32, #tile.scope<fragment>>, vector<8xf32>
// CHECK: %[[H:.*]] = arith.truncf %[[V]] : vector<8xf32> to vector<8xf16>
// CHECK: vector.maskedstore %{{.*}}, %{{.*}}, %[[H]] : memref<?x?xf16>, vector<8xi1>, vector<8xf16>
// CHECK: }
// CHECK: %[[TAIL:.*]] = vector.load %{{.*}} : memref<2x20xf32, #tile.scope<fragment>>, vector<4xf32>
// CHECK: arith.truncf %[[TAIL]] : vector<4xf32> to vector<4xf16>
// CHECK: vector.maskedstore {{.*}} : memref<?x?xf16>, vector<4xi1>, vector<4xf16>
func.func @store_converted(%C: memref<?x?xf16>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : memref<2x20xf32, #tile.scope<fragment>>
  tile.copy %t[%c0, %c0], %C[%i, %j] : memref<2x20xf32, #tile.scope<fragment>>, memref<?x?xf16>
  return
}

// -----

// Bounds that hold statically need no mask.
// CHECK-LABEL: func.func @static_in_bounds
// CHECK-NOT: vector.maskedload
// CHECK-NOT: vector.maskedstore
// CHECK: vector.load %{{.*}} : memref<16x16xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}} : memref<4x8xf32, #tile.scope<shared>>, vector<8xf32>
func.func @static_in_bounds(%A: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %t = tile.alloc : memref<4x8xf32, #tile.scope<shared>>
  tile.copy %A[%c8, %c8], %t[%c0, %c0] : memref<16x16xf32>, memref<4x8xf32, #tile.scope<shared>>
  return
}

// -----

// A rank-3 source seen through a unit dim keeps the vector path; the pad
// operand is the pass-through of the masked load.
// CHECK-LABEL: func.func @rank_reducing_pad
// CHECK-SAME: (%[[Q:.*]]: memref<?x?x?xf16>, %[[B:.*]]: index, %[[I:.*]]: index, %[[PAD:.*]]: f16)
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[PAD]] : f16 to vector<16xf16>
// CHECK: vector.maskedload %[[Q]][%[[B]], %{{.*}}, %{{.*}}], %{{.*}}, %[[SPLAT]] : memref<?x?x?xf16>, vector<16xi1>, vector<16xf16> into vector<16xf16>
func.func @rank_reducing_pad(%Q: memref<?x?x?xf16>, %b: index, %i: index, %pad: f16) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : memref<4x16xf16, #tile.scope<shared>>
  tile.copy %Q[%b, %i, %c0], %t[%c0, %c0] sizes [1, 4, 16] pad(%pad : f16) : memref<?x?x?xf16>, memref<4x16xf16, #tile.scope<shared>>
  return
}

// -----

// A column of a matrix into a 1-D tile: the innermost copy dim is a dropped
// unit dim of the tile, so each element is a one-lane masked access.
// CHECK-LABEL: func.func @column
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: vector.maskedload %{{.*}} : memref<?x?xf32>, vector<1xi1>, vector<1xf32> into vector<1xf32>
// CHECK: vector.store %{{.*}}, %{{.*}}[%[[R]]] : memref<8xf32, #tile.scope<local>>, vector<1xf32>
func.func @column(%A: memref<?x?xf32>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : memref<8xf32, #tile.scope<local>>
  tile.copy %A[%i, %j], %t[%c0] sizes [8, 1] : memref<?x?xf32>, memref<8xf32, #tile.scope<local>>
  return
}

// -----

// A side of bools held as bytes (tile-widen-bools) converts through
// i1: a number is true when nonzero (NaN too), a bool is 0 or 1.
// CHECK-LABEL: func.func @into_bool_bytes
// CHECK: %[[V:.*]] = vector.load %{{.*}} : memref<4x8xf32>, vector<8xf32>
// CHECK: %[[B:.*]] = arith.cmpf une, %[[V]], %{{.*}} : vector<8xf32>
// CHECK: %[[W:.*]] = arith.extui %[[B]] : vector<8xi1> to vector<8xi8>
// CHECK: vector.store %[[W]], %{{.*}} : memref<4x8xi8, #tile.scope<fragment>>, vector<8xi8>
// CHECK-NOT: arith.fptosi
func.func @into_bool_bytes(%A: memref<4x8xf32>, %t: memref<4x8xi8, #tile.scope<fragment>>) {
  %c0 = arith.constant 0 : index
  tile.copy %A[%c0, %c0], %t[%c0, %c0] {tile.bool_dst} : memref<4x8xf32>, memref<4x8xi8, #tile.scope<fragment>>
  return
}

// CHECK-LABEL: func.func @from_bool_bytes
// CHECK: %[[V:.*]] = vector.load %{{.*}} : memref<4x8xi8, #tile.scope<fragment>>, vector<8xi8>
// CHECK: %[[B:.*]] = arith.cmpi ne, %[[V]], %{{.*}} : vector<8xi8>
// CHECK: %[[W:.*]] = arith.extui %[[B]] : vector<8xi1> to vector<8xi8>
// CHECK: %[[I:.*]] = arith.extsi %[[W]] : vector<8xi8> to vector<8xi32>
// CHECK: vector.store %[[I]], %{{.*}} : memref<4x8xi32>, vector<8xi32>
func.func @from_bool_bytes(%t: memref<4x8xi8, #tile.scope<fragment>>, %C: memref<4x8xi32>) {
  %c0 = arith.constant 0 : index
  tile.copy %t[%c0, %c0], %C[%c0, %c0] {tile.bool_src} : memref<4x8xi8, #tile.scope<fragment>>, memref<4x8xi32>
  return
}

// -----

// Copies of the same rows of one source, at other columns, into disjoint
// parts of one tile (a gemm's B written into its panels) share one loop
// nest, emitted after the index arithmetic between them: each row of the
// source is read once, its pieces one after the other. Both regions are
// checked before the unmasked loop. A copy of other rows (%k1) keeps a loop
// of its own.
// CHECK-LABEL: func.func @row_group
// CHECK-SAME: (%[[B:.*]]: memref<?x?xf32>, %[[K:.*]]: index, %[[J:.*]]: index, %[[K1:.*]]: index
// CHECK: %[[J1:.*]] = arith.addi %[[J]]
// CHECK: arith.cmpi ule, %[[J]],
// CHECK: arith.cmpi ule, %[[J1]],
// CHECK: scf.if %{{.*}} {
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step
// CHECK: %[[ROW:.*]] = arith.addi %[[K]], %[[R]]
// CHECK: vector.load %[[B]][%[[ROW]], %[[J]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[P:.*]][%{{.*}}, %[[R]], %{{.*}}] : memref<2x4x8xf32, #tile.scope<local>>, vector<8xf32>
// CHECK-NOT: scf.for
// CHECK: arith.addi %[[K]], %[[R]]
// CHECK-NEXT: vector.load %[[B]][%{{.*}}, %[[J1]]] : memref<?x?xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[P]][%{{.*}}, %[[R]], %{{.*}}] : memref<2x4x8xf32, #tile.scope<local>>, vector<8xf32>
// CHECK: } else {
// CHECK-COUNT-2: vector.maskedload
// CHECK: }
// CHECK: scf.if
// CHECK: vector.load %[[B]][%{{.*}}, %[[J]]]
// CHECK-NOT: vector.load %[[B]]
// CHECK: } else {
// CHECK-NOT: tile.copy
func.func @row_group(%B: memref<?x?xf32>, %k: index, %j: index, %k1: index, %p: memref<2x4x8xf32, #tile.scope<local>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  tile.copy %B[%k, %j], %p[%c0, %c0, %c0] sizes [1, 4, 8] : memref<?x?xf32>, memref<2x4x8xf32, #tile.scope<local>>
  %j1 = arith.addi %j, %c8 : index
  tile.copy %B[%k, %j1], %p[%c1, %c0, %c0] sizes [1, 4, 8] : memref<?x?xf32>, memref<2x4x8xf32, #tile.scope<local>>
  tile.copy %B[%k1, %j], %p[%c0, %c0, %c0] sizes [1, 4, 8] : memref<?x?xf32>, memref<2x4x8xf32, #tile.scope<local>>
  return
}
