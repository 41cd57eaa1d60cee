// RUN: tile-opt %s -split-input-file --tile-guard-accesses | filecheck %s

// Affine accesses in a region are checked once for the whole region: the
// fast version has no per-element check, the other one guards each access.
// CHECK-LABEL: func.func @affine
// CHECK: %[[BASE:.*]] = arith.muli
// CHECK: %[[LAST:.*]] = arith.addi %[[BASE]], %c63
// CHECK: %[[LO:.*]] = arith.cmpi ult, %[[BASE]], %{{.*}} : index
// CHECK: %[[HI:.*]] = arith.cmpi ult, %[[LAST]], %{{.*}} : index
// CHECK: scf.if
// CHECK-NEXT: tile.parallel
// CHECK-NOT: scf.if
// CHECK: memref.load %{{.*}} : memref<?xf32>
// CHECK-NOT: scf.if
// CHECK: memref.store
// CHECK: } else {
// CHECK-NEXT: tile.parallel
// CHECK: %[[OK:.*]] = arith.cmpi ult
// CHECK: scf.if %[[OK]] -> (f32)
// CHECK: memref.load
// CHECK: } else {
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: scf.if
// CHECK-NEXT: memref.store
func.func @affine(%X: memref<?xf32>, %Y: memref<?xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 64 {
    tile.parallel (%i) in (64) {
      %c64 = arith.constant 64 : index
      %base = arith.muli %bx, %c64 : index
      %j = arith.addi %base, %i : index
      %x = memref.load %X[%j] : memref<?xf32>
      memref.store %x, %Y[%j] : memref<?xf32>
    }
  }
  return
}

// -----

// A gather's index is known only at run time: it is guarded in both
// versions, and a store through an index loaded outside is dropped.
// CHECK-LABEL: func.func @gather_scatter
// CHECK: scf.if
// CHECK: tile.parallel
// CHECK: %[[I:.*]] = memref.load %{{.*}} : memref<?xi32>
// CHECK: %[[IDX:.*]] = arith.index_cast %[[I]]
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[IDX]]
// CHECK: scf.if %[[OK]] -> (f32)
// CHECK: memref.store
// CHECK: } else {
// CHECK-NEXT: tile.parallel
// CHECK: %[[IOK:.*]] = arith.cmpi ult
// CHECK: %[[I2:.*]] = scf.if %[[IOK]] -> (i32)
// CHECK: %[[IDX2:.*]] = arith.index_cast %[[I2]]
// CHECK: %[[OWN:.*]] = arith.cmpi ult, %[[IDX2]]
// CHECK: arith.andi %[[OWN]], %[[IOK]]
func.func @gather_scatter(%X: memref<?xf32>, %I: memref<?xi32>, %G: memref<?xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    tile.parallel (%i) in (32) {
      %c32 = arith.constant 32 : index
      %base = arith.muli %bx, %c32 : index
      %j = arith.addi %base, %i : index
      %k32 = memref.load %I[%j] : memref<?xi32>
      %k = arith.index_cast %k32 : i32 to index
      %x = memref.load %X[%k] : memref<?xf32>
      memref.store %x, %X[%k] : memref<?xf32>
    }
  }
  return
}

// -----

// Indices known inside by their ranges need no guard: constants, a
// tile.parallel's induction variables over the tile's shape, a constant-bound
// loop's induction variable, and sums and constant multiples of those.
// CHECK-LABEL: func.func @static_ranges
// CHECK-NOT: scf.if
// CHECK: return
func.func @static_ranges(%X: memref<8xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c7 = arith.constant 7 : index
    %t = tile.alloc : memref<4x8xf32, #tile.scope<fragment>>
    %x = memref.load %X[%c7] : memref<8xf32>
    tile.parallel (%i, %j) in (4, 8) {
      memref.store %x, %t[%i, %j] : memref<4x8xf32, #tile.scope<fragment>>
    }
    scf.for %k = %c0 to %c4 step %c1 {
      %k2 = arith.muli %k, %c2 : index
      %k3 = arith.addi %k2, %c1 : index
      %y = memref.load %t[%k, %k3] : memref<4x8xf32, #tile.scope<fragment>>
      memref.store %y, %X[%k3] : memref<8xf32>
    }
  }
  return
}

// -----

// A tile indexed by a value the IR does not bound is guarded like a tensor:
// a write past it is dropped, a read past it gives 0.
// CHECK-LABEL: func.func @tile_at_runtime_index
// CHECK: %[[DIM:.*]] = memref.dim %{{.*}}, %{{.*}} : memref<64xf32, #tile.scope<fragment>>
// CHECK: %[[OK:.*]] = arith.cmpi ult, %{{.*}}, %[[DIM]]
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT: memref.store
// CHECK: scf.if %{{.*}} -> (f32) {
// CHECK-NEXT: memref.load
func.func @tile_at_runtime_index(%I: memref<4xi32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1.0 : f32
    %t = tile.alloc : memref<64xf32, #tile.scope<fragment>>
    %k32 = memref.load %I[%c0] : memref<4xi32>
    %k = arith.index_cast %k32 : i32 to index
    memref.store %c1, %t[%k] : memref<64xf32, #tile.scope<fragment>>
    %back = memref.load %t[%bx] : memref<64xf32, #tile.scope<fragment>>
    memref.store %back, %t[%c0] : memref<64xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Scalar code and serial loops: each access is guarded by itself.
// CHECK-LABEL: func.func @scalar
// CHECK: scf.for
// CHECK: %[[OK:.*]] = arith.cmpi ult
// CHECK-NEXT: scf.if %[[OK]] {
// CHECK-NEXT: memref.store
func.func @scalar(%Y: memref<?xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 1 {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %v = arith.constant 1.0 : f32
    scf.for %i = %c0 to %c16 step %c1 {
      %j = arith.addi %bx, %i : index
      memref.store %v, %Y[%j] : memref<?xf32>
    }
  }
  return
}

// -----

// tile.atomic_add drops adds past its destination itself; an index loaded
// from outside its tensor drops the add too.
// CHECK-LABEL: func.func @atomic_through_index
// CHECK: %[[OK:.*]] = arith.cmpi ult
// CHECK: %[[I:.*]] = scf.if %[[OK]] -> (i32)
// CHECK: scf.if %[[OK]] {
// CHECK-NEXT: tile.atomic_add
func.func @atomic_through_index(%I: memref<?xi32>, %H: memref<?xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 1 {
    %one = arith.constant 1.0 : f32
    %k32 = memref.load %I[%bx] : memref<?xi32>
    %k = arith.index_cast %k32 : i32 to index
    tile.atomic_add %one, %H[%k] : f32, memref<?xf32>
  }
  return
}
