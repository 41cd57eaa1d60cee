// RUN: tile-opt %s -split-input-file --tile-cpu-prefetch-copies | filecheck %s

// The next iteration's A rows are prefetched inside the micro-tile loop
// that follows the copy (not in its k loop, which carries values), a share
// of the rows per iteration of that loop: 8 rows over 4 iterations are 2
// each. The offsets are the copy's arithmetic on %k + 1, the rows past the
// end of A are skipped and the columns are clamped into A: one prefetch per
// 64-byte line of a 32-wide f32 row (columns 0 and 16) and its last (31).
// CHECK-LABEL: func.func @spread
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf32>, %[[I:.*]]: index, %[[N:.*]]: index
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %[[N]] step %[[C1:[^ ]*]] num_stages = 2 {
// CHECK: tile.copy %[[A]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]], %[[C1]] : index
// CHECK: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : index
// CHECK: arith.muli %[[NEXT]], %{{.*}} : index
// CHECK-NOT: memref.prefetch
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: arith.subi %[[R]]
// CHECK: scf.if %[[MORE]] {
// CHECK: scf.for %[[ROW:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.if %{{.*}} {
// CHECK-COUNT-3: memref.prefetch %[[A]][%{{.*}}, %{{.*}}], read, locality<2>, data : memref<?x?xf32>
// CHECK-NOT: memref.prefetch
// CHECK: scf.for {{.*}} iter_args
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @spread(%A: memref<?x?xf32>, %i: index, %n: index, %v: vector<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %a = tile.alloc : memref<8x32xf32, #tile.scope<shared>>
  tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
    %o = arith.muli %k, %c32 : index
    tile.copy %A[%i, %o], %a[%c0, %c0] : memref<?x?xf32>, memref<8x32xf32, #tile.scope<shared>>
    scf.for %r = %c0 to %c4 step %c1 {
      %acc = scf.for %kk = %c0 to %c32 step %c1 iter_args(%x = %v) -> (vector<4xf32>) {
        %y = arith.addf %x, %x : vector<4xf32>
        scf.yield %y : vector<4xf32>
      }
      vector.store %acc, %a[%r, %c0] : memref<8x32xf32, #tile.scope<shared>>, vector<4xf32>
    }
  }
  return
}

// -----

// Without a loop nest after the copies, all rows are prefetched right
// after the last copy from global memory; a copy whose offset is loaded
// from memory (an index table) is not prefetched, nor a copy between two
// tiles. A 16-wide f16 row is 32 bytes, within at most two lines: its first
// and last elements. One stage asks for no overlap: nothing changes.
// CHECK-LABEL: func.func @burst
// CHECK: tile.pipelined %[[K:[^ ]*]]
// CHECK: %[[O:.*]] = arith.muli %[[K]]
// CHECK: tile.copy %[[B:arg[0-9]+]][%[[O]],
// CHECK: tile.copy %[[B]]
// CHECK: %[[NEXT:.*]] = arith.addi %[[K]]
// CHECK: %[[O1:.*]] = arith.muli %[[NEXT]]
// CHECK: scf.if
// CHECK: scf.for %[[R:[^ ]*]]
// CHECK: %[[ROW:.*]] = arith.addi %[[O1]], %[[R]]
// CHECK: scf.if
// CHECK-COUNT-2: memref.prefetch %[[B]][%[[ROW]], %{{.*}}]
// CHECK-NOT: memref.prefetch
// CHECK: tile.copy %{{.*}} : memref<4x16xf16, #tile.scope<shared>>, memref<4x16xf16, #tile.scope<shared>>
// CHECK: tile.pipelined
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @burst(%B: memref<?x16xf16>, %T: memref<?xindex>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %b = tile.alloc : memref<4x16xf16, #tile.scope<shared>>
  %t = tile.alloc : memref<4x16xf16, #tile.scope<shared>>
  tile.pipelined %k = %c0 to %n step %c1 num_stages = 3 {
    %o = arith.muli %k, %c4 : index
    tile.copy %B[%o, %c0], %b[%c0, %c0] : memref<?x16xf16>, memref<4x16xf16, #tile.scope<shared>>
    %p = memref.load %T[%k] : memref<?xindex>
    tile.copy %B[%p, %c0], %t[%c0, %c0] : memref<?x16xf16>, memref<4x16xf16, #tile.scope<shared>>
    tile.copy %b[%c0, %c0], %t[%c0, %c0] : memref<4x16xf16, #tile.scope<shared>>, memref<4x16xf16, #tile.scope<shared>>
  }
  tile.pipelined %k = %c0 to %n step %c1 num_stages = 1 {
    %o = arith.muli %k, %c4 : index
    tile.copy %B[%o, %c0], %b[%c0, %c0] : memref<?x16xf16>, memref<4x16xf16, #tile.scope<shared>>
  }
  return
}

// -----

// Copies of adjacent column pieces of the same rows (a gemm's B written
// into its panels) are prefetched as one region: 32 f32 columns from %o are
// the lines of columns 0 and 16 and the last column, 31, once each, not the
// first and last column of each 16-wide piece. A piece of other rows stays
// a region of its own.
// CHECK-LABEL: func.func @joined
// CHECK: scf.if
// CHECK-COUNT-3: memref.prefetch %{{.*}}, read, locality<2>, data : memref<?x?xf32>
// CHECK-NEXT: }
// CHECK: scf.for
// CHECK: scf.if
// CHECK-COUNT-2: memref.prefetch %{{.*}}, read, locality<2>, data : memref<?x?xf32>
// CHECK-NEXT: }
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @joined(%B: memref<?x?xf32>, %j: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %p = tile.alloc : memref<3x8x16xf32, #tile.scope<local>>
  tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
    %o = arith.muli %k, %c8 : index
    tile.copy %B[%o, %j], %p[%c0, %c0, %c0] sizes [1, 8, 16] : memref<?x?xf32>, memref<3x8x16xf32, #tile.scope<local>>
    %j1 = arith.addi %j, %c16 : index
    tile.copy %B[%o, %j1], %p[%c1, %c0, %c0] sizes [1, 8, 16] : memref<?x?xf32>, memref<3x8x16xf32, #tile.scope<local>>
    %o2 = arith.addi %o, %c8 : index
    tile.copy %B[%o2, %j], %p[%c2, %c0, %c0] sizes [1, 8, 16] : memref<?x?xf32>, memref<3x8x16xf32, #tile.scope<local>>
  }
  return
}
