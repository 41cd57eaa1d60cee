// RUN: tile-opt %s --convert-tile-to-ascend | filecheck %s
// RUN: tile-opt %s --tile-to-ascend="target=ascend:910b" > %t.mlir
// RUN: tile-sim %t.mlir --kernel last_row --block-dim 2 --arg arange:5x16xf32 \
// RUN:     --arg zeros:5x16xf32 --print-outputs | filecheck %s --check-prefix=SIM

// A loop bounded by the block (as causal attention's key loop) gives the
// blocks different work: the grid-stride loop walks the grid in snake order,
// an odd round that the grid fills taking its blocks in reverse, so that the
// core with the longest block of one round gets the shortest of the next.
// The mirror image of iteration b in round r = b / n is 2 r n + n - 1 - b.
// Block b keeps the last of rows 0 .. b-1 of X (-1 for block 0): on 2 cores
// the 5 blocks run as 0 1 | 3 2 | 4, each once and in its own place.

// CHECK-LABEL: func.func @last_row
// CHECK-SAME: ascend.snake_grid
// CHECK: %[[B0:.*]] = ascend.block_idx : index
// CHECK: %[[NB:.*]] = ascend.block_num : index
// CHECK: scf.for %[[I:.*]] = %[[B0]] to %[[GX:.*]] step %[[NB]] {
// CHECK:   %[[ROUND:.*]] = arith.divui %[[I]], %[[NB]] : index
// CHECK:   %[[START:.*]] = arith.muli %[[ROUND]], %[[NB]] : index
// CHECK:   %[[LAST:.*]] = arith.subi %[[NB]], %{{.*}} : index
// CHECK:   %[[END:.*]] = arith.addi %[[START]], %[[LAST]] : index
// CHECK:   %[[AT:.*]] = arith.subi %[[I]], %[[START]] : index
// CHECK:   %[[MIRROR:.*]] = arith.subi %[[END]], %[[AT]] : index
// CHECK:   %[[PARITY:.*]] = arith.andi %[[ROUND]], %{{.*}} : index
// CHECK:   %[[ODD:.*]] = arith.cmpi ne, %[[PARITY]], %{{.*}} : index
// CHECK:   %[[NEXT:.*]] = arith.addi %[[START]], %[[NB]] : index
// CHECK:   %[[FULL:.*]] = arith.cmpi ule, %[[NEXT]], %[[GX]] : index
// CHECK:   %[[BOTH:.*]] = arith.andi %[[ODD]], %[[FULL]] : i1
// CHECK:   %[[BX:.*]] = arith.select %[[BOTH]], %[[MIRROR]], %[[I]] : index
// CHECK:   scf.for %{{.*}} = %{{.*}} to %[[BX]] step

// SIM:      races: 0
// SIM:      %arg1 = {{\[\[}}-1. -1. -1.
// SIM-NEXT:  [ 0.  1.  2.
// SIM-NEXT:  [16. 17. 18.
// SIM-NEXT:  [32. 33. 34.
// SIM-NEXT:  [48. 49. 50.
func.func @last_row(%x: memref<5x16xf32>, %out: memref<5x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %none = arith.constant -1.0 : f32
  tile.kernel blocks(%bx) in (%c5) threads = 128 {
    %t = tile.alloc : memref<16xf32, #tile.scope<ub>>
    tile.fill %t, %none : memref<16xf32, #tile.scope<ub>>, f32
    scf.for %i = %c0 to %bx step %c1 {
      tile.copy %x[%i, %c0], %t[%c0] sizes [1, 16] : memref<5x16xf32>, memref<16xf32, #tile.scope<ub>>
    }
    tile.copy %t[%c0], %out[%bx, %c0] sizes [1, 16] : memref<16xf32, #tile.scope<ub>>, memref<5x16xf32>
  }
  return
}

// The same work in every block: the plain order, core c running c, c + n, ...

// CHECK-LABEL: func.func @even
// CHECK-NOT: ascend.snake_grid
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK-NOT: arith.select
func.func @even(%x: memref<?x16xf32>, %gx: index, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%gx) threads = 128 {
    %t = tile.alloc : memref<16xf32, #tile.scope<ub>>
    scf.for %i = %c0 to %n step %c1 {
      tile.copy %x[%i, %c0], %t[%c0] sizes [1, 16] : memref<?x16xf32>, memref<16xf32, #tile.scope<ub>>
    }
  }
  return
}
