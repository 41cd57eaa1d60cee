// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu=ops=tile.reduce,tile.cumsum | filecheck %s

// Along the last dim: a vector of partial maxima per row, then halved by
// shuffles down to one lane; -inf is the identity.
// CHECK-LABEL: func.func @max_rows
// CHECK-SAME: (%[[S:.*]]: memref<4x16xf32, {{.*}}>, %[[M:.*]]: memref<4xf32, {{.*}}>)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[NINF:.*]] = arith.constant dense<0xFF800000> : vector<8xf32>
// CHECK: %[[ACC:.*]] = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[NINF]]) -> (vector<8xf32>) {
// CHECK: %[[V:.*]] = vector.load %[[S]][%[[I]], %[[J]]]
// CHECK: %[[N:.*]] = arith.maximumf %[[A]], %[[V]] : vector<8xf32>
// CHECK: scf.yield %[[N]]
// CHECK: %[[LO:.*]] = vector.shuffle %[[ACC]], %[[ACC]] [0, 1, 2, 3] : vector<8xf32>, vector<8xf32>
// CHECK: %[[HI:.*]] = vector.shuffle %[[ACC]], %[[ACC]] [4, 5, 6, 7] : vector<8xf32>, vector<8xf32>
// CHECK: arith.maximumf %[[LO]], %[[HI]] : vector<4xf32>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : vector<2xf32>
// CHECK: %[[ONE:.*]] = arith.maximumf %{{.*}}, %{{.*}} : vector<1xf32>
// CHECK: %[[R:.*]] = vector.extract %[[ONE]][0] : f32 from vector<1xf32>
// CHECK: memref.store %[[R]], %[[M]][%[[I]]]
// CHECK-NOT: tile.reduce
func.func @max_rows(%s: memref<4x16xf32, #tile.scope<fragment>>, %m: memref<4xf32, #tile.scope<fragment>>) {
  tile.reduce max %s, %m dim = 1 : memref<4x16xf32, #tile.scope<fragment>>, memref<4xf32, #tile.scope<fragment>>
  return
}

// -----

// Along dim 0 with clear = false: the old dst row is the initial vector and
// whole rows of |src| are added into it.
// CHECK-LABEL: func.func @abssum_columns
// CHECK-SAME: (%[[S:.*]]: memref<3x8xf32, {{.*}}>, %[[D:.*]]: memref<8xf32, {{.*}}>)
// CHECK: %[[OLD:.*]] = vector.load %[[D]][%{{.*}}] : memref<8xf32, {{.*}}>, vector<8xf32>
// CHECK: %[[ACC:.*]] = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[A:.*]] = %[[OLD]]) -> (vector<8xf32>) {
// CHECK: %[[V:.*]] = vector.load %[[S]][%[[K]], %{{.*}}]
// CHECK: %[[ABS:.*]] = math.absf %[[V]] : vector<8xf32>
// CHECK: arith.addf %[[A]], %[[ABS]] : vector<8xf32>
// CHECK: vector.store %[[ACC]], %[[D]]
func.func @abssum_columns(%s: memref<3x8xf32, #tile.scope<fragment>>, %d: memref<8xf32, #tile.scope<fragment>>) {
  tile.reduce abssum %s, %d dim = 0 clear = false : memref<3x8xf32, #tile.scope<fragment>>, memref<8xf32, #tile.scope<fragment>>
  return
}

// -----

// A 1-D reduction writes element 0 of dst; a tail narrower than a register
// is reduced on its own and combined.
// CHECK-LABEL: func.func @min_1d_int
// CHECK: vector.reduction <minsi>, %{{.*}} : vector<8xi32> into i32
// CHECK: vector.reduction <minsi>, %{{.*}} : vector<2xi32> into i32
// CHECK: arith.minsi
// CHECK: memref.store
func.func @min_1d_int(%s: memref<10xi32, #tile.scope<local>>, %d: memref<1xi32, #tile.scope<local>>) {
  tile.reduce min %s, %d dim = 0 : memref<10xi32, #tile.scope<local>>, memref<1xi32, #tile.scope<local>>
  return
}

// -----

// cumsum along the last dim is a scalar loop carrying the running sum;
// reverse walks from the end.
// CHECK-LABEL: func.func @cumsum_rows_reverse
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (f32) {
// CHECK: %[[P:.*]] = arith.subi %{{.*}}, %[[K]] : index
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[I]], %[[P]]]
// CHECK: %[[T:.*]] = arith.addf %[[SUM]], %[[X]] : f32
// CHECK: memref.store %[[T]], %{{.*}}[%[[I]], %[[P]]]
// CHECK-NOT: tile.cumsum
func.func @cumsum_rows_reverse(%s: memref<2x5xf32, #tile.scope<fragment>>, %d: memref<2x5xf32, #tile.scope<fragment>>) {
  tile.cumsum %s, %d dim = 1 reverse = true : memref<2x5xf32, #tile.scope<fragment>>, memref<2x5xf32, #tile.scope<fragment>>
  return
}

// -----

// cumsum along dim 0 carries a vector of running sums over the last dim.
// CHECK-LABEL: func.func @cumsum_columns
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (vector<8xf32>) {
// CHECK: %[[X:.*]] = vector.load %{{.*}}[%[[K]], %{{.*}}]
// CHECK: %[[T:.*]] = arith.addf %[[SUM]], %[[X]] : vector<8xf32>
// CHECK: vector.store %[[T]], %{{.*}}[%[[K]], %{{.*}}]
func.func @cumsum_columns(%s: memref<4x8xf32, #tile.scope<fragment>>) {
  tile.cumsum %s, %s dim = 0 : memref<4x8xf32, #tile.scope<fragment>>, memref<4x8xf32, #tile.scope<fragment>>
  return
}
