// RUN: tile-opt %s -split-input-file --tile-widen-bools | filecheck %s

// A bool memref argument becomes a byte memref; a load gives byte != 0 and
// a store writes the bool's byte (0 or 1).
// CHECK-LABEL: func.func @load_store
// CHECK-SAME: (%[[A:.*]]: memref<?xi8>, %[[I:.*]]: index)
// CHECK: %[[BYTE:.*]] = memref.load %[[A]][%[[I]]] : memref<?xi8>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: %[[B:.*]] = arith.cmpi ne, %[[BYTE]], %[[ZERO]] : i8
// CHECK: %[[N:.*]] = arith.xori %[[B]], %{{.*}} : i1
// CHECK: %[[W:.*]] = arith.extui %[[N]] : i1 to i8
// CHECK: memref.store %[[W]], %[[A]][%[[I]]] : memref<?xi8>
// CHECK-NOT: xi1>
func.func @load_store(%A: memref<?xi1>, %i: index) {
  %true = arith.constant true
  %b = memref.load %A[%i] : memref<?xi1>
  %n = arith.xori %b, %true : i1
  memref.store %n, %A[%i] : memref<?xi1>
  return
}

// -----

// Tiles, views and results are retyped too, keeping scope and layout.
// CHECK-LABEL: func.func @views
// CHECK-SAME: -> memref<4xi8, strided<[1], offset: ?>, #tile.scope<fragment>>
// CHECK: tile.alloc : memref<8xi8, #tile.scope<fragment>>
// CHECK: memref.subview %{{.*}} : memref<8xi8, #tile.scope<fragment>> to memref<4xi8, strided<[1], offset: ?>, #tile.scope<fragment>>
// CHECK-NOT: xi1
func.func @views(%i: index) -> memref<4xi1, strided<[1], offset: ?>, #tile.scope<fragment>> {
  %t = tile.alloc : memref<8xi1, #tile.scope<fragment>>
  %v = memref.subview %t[%i] [4] [1] : memref<8xi1, #tile.scope<fragment>> to memref<4xi1, strided<[1], offset: ?>, #tile.scope<fragment>>
  return %v : memref<4xi1, strided<[1], offset: ?>, #tile.scope<fragment>>
}

// -----

// A copy between bools and another type marks the side of bytes, for the
// copy lowering to convert through i1; a copy of bools to bools copies
// bytes, with its pad widened. A fill stores the byte of its value, and a
// max reduction of 0/1 bytes is their any.
// CHECK-LABEL: func.func @tile_ops
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[B:.*]]: memref<?x?xi8>, %[[C:.*]]: memref<?x?xi32>
// CHECK: %[[T:.*]] = tile.alloc : memref<4x8xi8, #tile.scope<fragment>>
// CHECK: tile.copy %[[A]][%{{.*}}], %[[T]][%{{.*}}] {tile.bool_dst} : memref<?x?xf32>, memref<4x8xi8, #tile.scope<fragment>>
// CHECK: %[[PAD:.*]] = arith.extui %{{.*}} : i1 to i8
// CHECK: tile.copy %[[B]][%{{.*}}], %[[T]][%{{.*}}] pad(%[[PAD]] : i8) : memref<?x?xi8>, memref<4x8xi8, #tile.scope<fragment>>
// CHECK: tile.copy %[[T]][%{{.*}}], %[[C]][%{{.*}}] {tile.bool_src} : memref<4x8xi8, #tile.scope<fragment>>, memref<?x?xi32>
// CHECK: %[[FALSE:.*]] = arith.extui %{{.*}} : i1 to i8
// CHECK: tile.fill %[[T]], %[[FALSE]] : memref<4x8xi8, #tile.scope<fragment>>, i8
// CHECK: tile.reduce max %[[T]], %{{.*}} dim = 1 : memref<4x8xi8, #tile.scope<fragment>>, memref<4xi8, #tile.scope<fragment>>
// CHECK-NOT: xi1
func.func @tile_ops(%A: memref<?x?xf32>, %B: memref<?x?xi1>, %C: memref<?x?xi32>, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant true
  %false = arith.constant false
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<4x8xi1, #tile.scope<fragment>>
    tile.copy %A[%i, %c0], %t[%c0, %c0] : memref<?x?xf32>, memref<4x8xi1, #tile.scope<fragment>>
    tile.copy %B[%i, %c0], %t[%c0, %c0] pad(%pad : i1) : memref<?x?xi1>, memref<4x8xi1, #tile.scope<fragment>>
    tile.copy %t[%c0, %c0], %C[%i, %c0] : memref<4x8xi1, #tile.scope<fragment>>, memref<?x?xi32>
    tile.fill %t, %false : memref<4x8xi1, #tile.scope<fragment>>, i1
    %r = tile.alloc : memref<4xi1, #tile.scope<fragment>>
    tile.reduce max %t, %r dim = 1 : memref<4x8xi1, #tile.scope<fragment>>, memref<4xi1, #tile.scope<fragment>>
  }
  return
}

// -----

// Sums of bools are bools: a reduce sum, a cumsum and an atomic add are marked to
// combine their 0/1 bytes with an or; a scalar added atomically is widened too.
// CHECK-LABEL: func.func @sums
// CHECK: tile.reduce sum %{{.*}}, %{{.*}} dim = 1 {tile.bool_any} : memref<4x8xi8, #tile.scope<fragment>>, memref<4xi8, #tile.scope<fragment>>
// CHECK: tile.reduce max %{{.*}}, %{{.*}} dim = 1 : memref<4x8xi8, #tile.scope<fragment>>
// CHECK: tile.cumsum %{{.*}}, %{{.*}} dim = 1 {tile.bool_any} : memref<4x8xi8, #tile.scope<fragment>>
// CHECK: tile.atomic_add %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] {tile.bool_any} : memref<4x8xi8, #tile.scope<fragment>>, memref<?x?xi8>
// CHECK: %[[BYTE:.*]] = arith.extui %{{.*}} : i1 to i8
// CHECK: tile.atomic_add %[[BYTE]], %{{.*}}[%{{.*}}, %{{.*}}] {tile.bool_any} : i8, memref<?x?xi8>
// CHECK-NOT: xi1
func.func @sums(%out: memref<?x?xi1>, %b: i1, %i: index) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<4x8xi1, #tile.scope<fragment>>
    %r = tile.alloc : memref<4xi1, #tile.scope<fragment>>
    tile.reduce sum %t, %r dim = 1 : memref<4x8xi1, #tile.scope<fragment>>, memref<4xi1, #tile.scope<fragment>>
    tile.reduce max %t, %r dim = 1 : memref<4x8xi1, #tile.scope<fragment>>, memref<4xi1, #tile.scope<fragment>>
    tile.cumsum %t, %t dim = 1 : memref<4x8xi1, #tile.scope<fragment>>, memref<4x8xi1, #tile.scope<fragment>>
    tile.atomic_add %t, %out[%i, %i] : memref<4x8xi1, #tile.scope<fragment>>, memref<?x?xi1>
    tile.atomic_add %b, %out[%i, %i] : i1, memref<?x?xi1>
  }
  return
}

// -----

// Memrefs of other types are left alone.
// CHECK-LABEL: func.func @no_bools
// CHECK-SAME: (%{{.*}}: memref<?xi8>, %{{.*}}: memref<4xf32, #tile.scope<local>>, %{{.*}}: index) -> i8
// CHECK-NOT: arith.cmpi
func.func @no_bools(%a: memref<?xi8>, %t: memref<4xf32, #tile.scope<local>>, %i: index) -> i8 {
  %x = memref.load %a[%i] : memref<?xi8>
  return %x : i8
}
