// RUN: tile-opt %s -split-input-file --tile-cpu-forward-copies | filecheck %s

// A whole-tile copy read only by the gemm that follows: the gemm reads the
// source, the copy and its destination tile are gone. A copy from global
// memory between them touches neither tile.
// CHECK-LABEL: func.func @forwarded
// CHECK: %[[S:.*]] = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
// CHECK-NOT: tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
// CHECK: tile.alloc : memref<8x8xf32, #tile.scope<shared>>
// CHECK: %[[ACC:.*]] = tile.alloc : memref<8x8xf32, #tile.scope<local>>
// CHECK-NEXT: tile.fill %[[S]]
// CHECK-NEXT: tile.copy %arg0
// CHECK-NEXT: tile.gemm %[[S]], %{{.*}}, %[[ACC]]
func.func @forwarded(%V: memref<8x8xf32>, %x: f32) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  %p = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  %v = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %acc = tile.alloc : memref<8x8xf32, #tile.scope<local>>
  tile.fill %s, %x : memref<8x8xf32, #tile.scope<fragment>>, f32
  tile.copy %s[%c0, %c0], %p[%c0, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.copy %V[%c0, %c0], %v[%c0, %c0] : memref<8x8xf32>, memref<8x8xf32, #tile.scope<shared>>
  tile.gemm %p, %v, %acc : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<local>>
  return
}

// -----

// The source is written between the copy and the gemm (inside a
// tile.parallel): the copy still holds the old values and stays.
// CHECK-LABEL: func.func @source_written
// CHECK: tile.copy %[[S:.*]][%{{.*}}], %[[P:.*]][%{{.*}}]
// CHECK: tile.parallel
// CHECK: tile.gemm %[[P]]
func.func @source_written(%x: f32) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  %p = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  %acc = tile.alloc : memref<8x8xf32, #tile.scope<local>>
  tile.copy %s[%c0, %c0], %p[%c0, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.parallel (%i, %j) in (8, 8) {
    memref.store %x, %s[%i, %j] : memref<8x8xf32, #tile.scope<fragment>>
  }
  tile.gemm %p, %p, %acc : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<local>>
  return
}

// -----

// The copy is read twice, written by the gemm, converts, or copies part of
// the tile: each keeps its copy.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-4: tile.copy
func.func @kept() {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %s = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  %p = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  %q = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  %h = tile.alloc : memref<8x8xf16, #tile.scope<fragment>>
  %r = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  %acc = tile.alloc : memref<8x8xf32, #tile.scope<local>>
  tile.copy %s[%c0, %c0], %p[%c0, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %p, %p, %acc : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<local>>
  tile.gemm %p, %s, %acc : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<local>>
  tile.copy %s[%c0, %c0], %q[%c0, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %s, %s, %q : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.copy %s[%c0, %c0], %h[%c0, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf16, #tile.scope<fragment>>
  tile.gemm %h, %h, %acc : memref<8x8xf16, #tile.scope<fragment>>, memref<8x8xf16, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<local>>
  tile.copy %s[%c0, %c4], %r[%c0, %c0] sizes [8, 4] : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %r, %r, %acc : memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<fragment>>, memref<8x8xf32, #tile.scope<local>>
  return
}
