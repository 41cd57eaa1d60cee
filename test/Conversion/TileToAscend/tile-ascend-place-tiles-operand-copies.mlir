// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles | filecheck %s

// TileLang's decode loop: the scores' gemm clears its accumulator, a
// softmax rewrites it in place, and the cast copy is the next gemm's A
// operand. Only the vector cores' copy holds the softmax, so the copy goes
// through a UB tile of its own: L0C -> UB (handed down), UB -> L1 (up).
// CHECK-LABEL: func.func @softmax_in_place_then_operand
// CHECK: %[[STAGED:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
// CHECK: %[[S:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: %[[P:.*]] = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
// CHECK: %[[O:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: tile.pipelined
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[S]] transpose_b clear_accum
// CHECK: tile.parallel
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: tile.copy %[[S]][%{{.*}}, %{{.*}}], %[[STAGED]][%{{.*}}, %{{.*}}] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32, #tile.scope<ub>>
// CHECK-NEXT: tile.copy %[[STAGED]][%{{.*}}, %{{.*}}], %[[P]][%{{.*}}, %{{.*}}] : memref<32x32xf32, #tile.scope<ub>>, memref<32x32xf16, #tile.scope<l1>>
// CHECK-NEXT: tile.gemm %[[P]], %{{.*}}, %[[O]] clear_accum
func.func @softmax_in_place_then_operand(%a: memref<32x128xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %q = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %k = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %p = tile.alloc : memref<32x32xf16, #tile.scope<fragment>>
    %o = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %q[%c0, %c0] sizes [32, 32] : memref<32x128xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.pipelined %t = %c0 to %c4 step %c1 num_stages = 1 {
      %col = arith.muli %t, %c32 : index
      tile.copy %a[%c0, %col], %k[%c0, %c0] sizes [32, 32] : memref<32x128xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.gemm %q, %k, %s transpose_b clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %x = memref.load %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %e = math.exp %x : f32
        memref.store %e, %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.copy %s[%c0, %c0], %p[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<fragment>>
      tile.gemm %p, %k, %o clear_accum : memref<32x32xf16, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.copy %o[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
    }
  }
  return
}

// -----

// No vector work between: the accumulator goes straight into the next
// gemm's operand. Tile IR has no L0C -> L1 copy, so it still goes through
// UB (the kernel becomes a mix kernel).
// CHECK-LABEL: func.func @accumulator_straight_to_operand
// CHECK: %[[STAGED:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
// CHECK: %[[S:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: %[[P:.*]] = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[S]] clear_accum
// CHECK-NEXT: tile.copy %[[S]][%{{.*}}, %{{.*}}], %[[STAGED]][%{{.*}}, %{{.*}}]
// CHECK-NEXT: tile.copy %[[STAGED]][%{{.*}}, %{{.*}}], %[[P]][%{{.*}}, %{{.*}}]
// CHECK-NEXT: tile.gemm %[[P]]
func.func @accumulator_straight_to_operand(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %p = tile.alloc : memref<32x32xf16, #tile.scope<fragment>>
    %o = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %s clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %s[%c0, %c0], %p[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<fragment>>
    tile.gemm %p, %l, %o clear_accum : memref<32x32xf16, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %o[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// The DSL's views of tiles in the rank of a global region (the tile's dims
// are not the region's trailing ones): only unit dims added, so the copies
// move onto the tiles with the views' shapes as extents; the L1 tile's
// collapse and expand, the 1-D UB tile's expand are gone. A view that
// regroups elements (4 x 16 of a 64-element tile) stays, and so does the
// 1 x 64 x 1 view of a 1 x 64 tile: on the tile, the copy would keep its
// dims 64 x 1.
// CHECK-LABEL: func.func @unit_dim_views
// CHECK: %[[K:.*]] = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
// CHECK-NOT: memref.collapse_shape
// CHECK: tile.copy %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}], %[[K]][%{{.*}}, %{{.*}}] sizes [1, 25, 1, 32] : memref<2x100x3x32xf16>, memref<32x32xf16, #tile.scope<l1>>
// CHECK: %[[M:.*]] = tile.alloc : memref<64xf32, #tile.scope<ub>>
// CHECK: tile.copy %arg2[%{{.*}}, %{{.*}}, %{{.*}}], %[[M]][%{{.*}}] sizes [1, 64, 1] : memref<2x64x3xf32>, memref<64xf32, #tile.scope<ub>>
// CHECK: %[[REGROUPED:.*]] = memref.expand_shape %[[M]] {{\[\[}}0, 1]] output_shape [4, 16]
// CHECK: tile.copy %[[REGROUPED]]
// CHECK: %[[R:.*]] = tile.alloc : memref<1x64xf32, #tile.scope<ub>>
// CHECK: %[[RFLAT:.*]] = memref.collapse_shape %[[R]]
// CHECK: %[[RVIEW:.*]] = memref.expand_shape %[[RFLAT]]
// CHECK: tile.copy %arg2[%{{.*}}, %{{.*}}, %{{.*}}], %[[RVIEW]][%{{.*}}, %{{.*}}, %{{.*}}] sizes [1, 64, 1]
func.func @unit_dim_views(%kv: memref<2x100x3x32xf16>, %c: memref<32x32xf32>, %m: memref<2x64x3xf32>,
                          %g: memref<4x16xf32>, %b: index, %row: index, %h: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %k = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %flat = memref.collapse_shape %k [[0, 1]] : memref<32x32xf16, #tile.scope<shared>> into memref<1024xf16, #tile.scope<shared>>
    %view = memref.expand_shape %flat [[0, 1, 2, 3]] output_shape [1, 32, 1, 32] : memref<1024xf16, #tile.scope<shared>> into memref<1x32x1x32xf16, #tile.scope<shared>>
    tile.copy %kv[%b, %row, %h, %c0], %view[%c0, %c0, %c0, %c0] sizes [1, 25, 1, 32] : memref<2x100x3x32xf16>, memref<1x32x1x32xf16, #tile.scope<shared>>
    tile.gemm %k, %k, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %t = tile.alloc : memref<64xf32, #tile.scope<fragment>>
    %column = memref.expand_shape %t [[0, 1, 2]] output_shape [1, 64, 1] : memref<64xf32, #tile.scope<fragment>> into memref<1x64x1xf32, #tile.scope<fragment>>
    tile.copy %m[%b, %c0, %h], %column[%c0, %c0, %c0] sizes [1, 64, 1] : memref<2x64x3xf32>, memref<1x64x1xf32, #tile.scope<fragment>>
    %grid = memref.expand_shape %t [[0, 1]] output_shape [4, 16] : memref<64xf32, #tile.scope<fragment>> into memref<4x16xf32, #tile.scope<fragment>>
    tile.copy %grid[%c0, %c0], %g[%c0, %c0] : memref<4x16xf32, #tile.scope<fragment>>, memref<4x16xf32>
    %r = tile.alloc : memref<1x64xf32, #tile.scope<fragment>>
    %rflat = memref.collapse_shape %r [[0, 1]] : memref<1x64xf32, #tile.scope<fragment>> into memref<64xf32, #tile.scope<fragment>>
    %rview = memref.expand_shape %rflat [[0, 1, 2]] output_shape [1, 64, 1] : memref<64xf32, #tile.scope<fragment>> into memref<1x64x1xf32, #tile.scope<fragment>>
    tile.copy %m[%b, %c0, %h], %rview[%c0, %c0, %c0] sizes [1, 64, 1] : memref<2x64x3xf32>, memref<1x64x1xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// TileLang's w4a8 dequantizing GEMM: the vector cores unpack the weights into a
// fragment, which a whole-tile copy hands to the gemm as its operand. The
// operand is the cube's (L1), the unpacked tile the vector cores' (UB), and
// the kernel is a mix kernel for tile-ascend-split-cores to split.
// CHECK-LABEL: func.func @dequantized_operand
// CHECK: %[[W:.*]] = tile.alloc : memref<32x64xi8, #tile.scope<ub>>
// CHECK: %[[B:.*]] = tile.alloc : memref<32x64xi8, #tile.scope<l1>>
// CHECK: tile.copy %[[W]][%{{.*}}, %{{.*}}], %[[B]][%{{.*}}, %{{.*}}] : memref<32x64xi8, #tile.scope<ub>>, memref<32x64xi8, #tile.scope<l1>>
// CHECK-NEXT: tile.gemm %[[B]]
func.func @dequantized_operand(%packed: memref<32x32xi8>, %a: memref<32x64xi8>, %c: memref<32x32xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4_i8 = arith.constant 4 : i8
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %q = tile.alloc : memref<32x32xi8, #tile.scope<fragment>>
    %w = tile.alloc : memref<32x64xi8, #tile.scope<fragment>>
    %b = tile.alloc : memref<32x64xi8, #tile.scope<fragment>>
    %x = tile.alloc : memref<32x64xi8, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xi32, #tile.scope<fragment>>
    tile.copy %packed[%c0, %c0], %q[%c0, %c0] : memref<32x32xi8>, memref<32x32xi8, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %x[%c0, %c0] : memref<32x64xi8>, memref<32x64xi8, #tile.scope<shared>>
    tile.parallel (%i, %j) in (32, 64) {
      %half = arith.divui %j, %c2 : index
      %byte = memref.load %q[%i, %half] : memref<32x32xi8, #tile.scope<fragment>>
      %low = arith.shli %byte, %c4_i8 : i8
      %v = arith.shrsi %low, %c4_i8 : i8
      memref.store %v, %w[%i, %j] : memref<32x64xi8, #tile.scope<fragment>>
    }
    tile.copy %w[%c0, %c0], %b[%c0, %c0] : memref<32x64xi8, #tile.scope<fragment>>, memref<32x64xi8, #tile.scope<fragment>>
    tile.gemm %b, %x, %acc transpose_b clear_accum : memref<32x64xi8, #tile.scope<fragment>>, memref<32x64xi8, #tile.scope<shared>>, memref<32x32xi32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xi32, #tile.scope<fragment>>, memref<32x32xi32>
  }
  return
}
