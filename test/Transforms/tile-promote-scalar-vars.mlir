// RUN: tile-opt %s -split-input-file --tile-promote-scalar-vars | filecheck %s

// A variable stored before an if, overwritten under it, updated in a loop and
// read by a parallel region: the if yields it, the loop carries it, the
// parallel captures the value; the one-element tile is gone. The 8-element
// tile stays a tile.
// CHECK-LABEL: func.func @through_if_and_for
// CHECK: tile.kernel
// CHECK-NOT: memref<1xi32
// CHECK: %[[A:.*]] = memref.load %{{.*}} : memref<?xi32>
// CHECK: %[[IF:.*]] = scf.if %{{.*}} -> (i32) {
// CHECK-NEXT: scf.yield %[[ZERO:.*]] : i32
// CHECK-NEXT: } else {
// CHECK-NEXT: scf.yield %[[A]] : i32
// CHECK: %[[FOR:.*]] = scf.for %{{.*}} iter_args(%[[X:.*]] = %[[IF]]) -> (i32) {
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[X]], %[[A]] : i32
// CHECK-NEXT: scf.yield %[[Y]] : i32
// CHECK: tile.parallel
// CHECK-NEXT: memref.store %[[FOR]], %{{.*}} : memref<8xi32, #tile.scope<local>>
func.func @through_if_and_for(%A: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i32
  tile.kernel blocks(%b) in (%n) threads = 1 {
    %v = tile.alloc : memref<1xi32, #tile.scope<local>>
    %t = tile.alloc : memref<8xi32, #tile.scope<local>>
    %a = memref.load %A[%b] : memref<?xi32>
    memref.store %a, %v[%c0] : memref<1xi32, #tile.scope<local>>
    %e = arith.cmpi eq, %a, %z : i32
    scf.if %e {
      memref.store %z, %v[%c0] : memref<1xi32, #tile.scope<local>>
    }
    scf.for %i = %c0 to %n step %c1 {
      %x = memref.load %v[%c0] : memref<1xi32, #tile.scope<local>>
      %y = arith.addi %x, %a : i32
      memref.store %y, %v[%c0] : memref<1xi32, #tile.scope<local>>
    }
    %k = memref.load %v[%c0] : memref<1xi32, #tile.scope<local>>
    tile.parallel (%j) in (8) {
      memref.store %k, %t[%j] : memref<8xi32, #tile.scope<local>>
      tile.yield
    }
    tile.copy %t[%c0], %A[%c0] sizes [8] : memref<8xi32, #tile.scope<local>>, memref<?xi32>
    tile.yield
  }
  return
}

// -----

// A load before any store reads zero; an if with results keeps them ahead of
// the variable's.
// CHECK-LABEL: func.func @uninitialized_and_results
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[IF:.*]]:2 = scf.if %{{.*}} -> (index, f32) {
// CHECK: scf.yield %{{.*}}, %[[S:.*]] : index, f32
// CHECK: } else {
// CHECK: scf.yield %{{.*}}, %[[Z]] : index, f32
// CHECK: memref.store %[[IF]]#1, %{{.*}}[%[[IF]]#0]
func.func @uninitialized_and_results(%A: memref<?xf32>, %c: i1, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 1 {
    %v = tile.alloc : memref<1xf32, #tile.scope<local>>
    %r = scf.if %c -> (index) {
      memref.store %s, %v[%c0] : memref<1xf32, #tile.scope<local>>
      scf.yield %c1 : index
    } else {
      scf.yield %c0 : index
    }
    %x = memref.load %v[%c0] : memref<1xf32, #tile.scope<local>>
    memref.store %x, %A[%r] : memref<?xf32>
    tile.yield
  }
  return
}

// -----

// A store inside a parallel region, or any use that is not a scalar load or
// store (a copy), keeps the tile.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-2: tile.alloc : memref<1xf32, #tile.scope<local>>
func.func @kept(%A: memref<?xf32>, %s: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%b) in (%c1) threads = 1 {
    %v = tile.alloc : memref<1xf32, #tile.scope<local>>
    %w = tile.alloc : memref<1xf32, #tile.scope<local>>
    tile.parallel (%j) in (1) {
      memref.store %s, %v[%j] : memref<1xf32, #tile.scope<local>>
      tile.yield
    }
    memref.store %s, %w[%c0] : memref<1xf32, #tile.scope<local>>
    tile.copy %w[%c0], %A[%c0] sizes [1] : memref<1xf32, #tile.scope<local>>, memref<?xf32>
    %x = memref.load %v[%c0] : memref<1xf32, #tile.scope<local>>
    memref.store %x, %A[%c1] : memref<?xf32>
    tile.yield
  }
  return
}

// -----

// A `while` on variables (stream-K's walk over its iterations): each is
// carried through both regions; one stored in the test region reaches the
// body and the loop's result through the condition's forwarded values.
// CHECK-LABEL: func.func @through_while
// CHECK-NOT: tile.alloc
// CHECK: %[[A:.*]] = memref.load %arg0[%{{.*}}] : memref<?xi32>
// CHECK: %[[Z:.*]] = arith.constant 0 : i32
// CHECK: %[[W:.*]]:2 = scf.while (%[[X:.*]] = %[[A]], %{{.*}} = %[[Z]]) : (i32, i32) -> (i32, i32) {
// CHECK-NEXT: %[[Y:.*]] = arith.addi %[[X]], %{{.*}} : i32
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[X]], %arg1 : i32
// CHECK-NEXT: scf.condition(%[[MORE]]) %[[X]], %[[Y]] : i32, i32
// CHECK: ^bb0(%[[X2:.*]]: i32, %[[Y2:.*]]: i32):
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[X2]], %[[Y2]] : i32
// CHECK-NEXT: scf.yield %[[S]], %[[Y2]] : i32, i32
// CHECK: memref.store %[[W]]#0, %arg0[%c0] : memref<?xi32>
// CHECK-NEXT: memref.store %[[W]]#1, %arg0[%c1] : memref<?xi32>
func.func @through_while(%A: memref<?xi32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1 : i32
  tile.kernel blocks(%b) in (%c1) threads = 1 {
    %v = tile.alloc : memref<1xi32, #tile.scope<local>>
    %w = tile.alloc : memref<1xi32, #tile.scope<local>>
    %a = memref.load %A[%b] : memref<?xi32>
    memref.store %a, %v[%c0] : memref<1xi32, #tile.scope<local>>
    scf.while : () -> () {
      %x = memref.load %v[%c0] : memref<1xi32, #tile.scope<local>>
      %y = arith.addi %x, %one : i32
      memref.store %y, %w[%c0] : memref<1xi32, #tile.scope<local>>
      %more = arith.cmpi slt, %x, %n : i32
      scf.condition(%more)
    } do {
      %x = memref.load %v[%c0] : memref<1xi32, #tile.scope<local>>
      %y = memref.load %w[%c0] : memref<1xi32, #tile.scope<local>>
      %z = arith.addi %x, %y : i32
      memref.store %z, %v[%c0] : memref<1xi32, #tile.scope<local>>
      scf.yield
    }
    %k = memref.load %v[%c0] : memref<1xi32, #tile.scope<local>>
    %l = memref.load %w[%c0] : memref<1xi32, #tile.scope<local>>
    memref.store %k, %A[%c0] : memref<?xi32>
    memref.store %l, %A[%c1] : memref<?xi32>
    tile.yield
  }
  return
}
