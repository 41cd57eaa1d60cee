// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles | filecheck %s

// A causal mask written before the gemm that accumulates onto it: the gemm
// overwrites the scores (a fresh accumulator copied onto them, which the
// AIVs receive in place) and the mask, moved after it, selects between the
// scores and -inf. No add of the scores onto the mask remains.
// CHECK-LABEL: func.func @causal_mask_before_gemm
// CHECK: %[[FRESH:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: %[[S:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
// CHECK: tile.pipelined
// CHECK-NOT: tile.parallel
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[FRESH]] transpose_b clear_accum
// CHECK: tile.copy %[[FRESH]][%{{.*}}, %{{.*}}], %[[S]][%{{.*}}, %{{.*}}]
// CHECK-NOT: arith.addf
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 32)
// CHECK: %[[X:.*]] = memref.load %[[S]][%[[I]], %[[J]]]
// CHECK: %[[V:.*]] = arith.select %{{.*}}, %[[X]], %{{.*}} : f32
// CHECK: memref.store %[[V]], %[[S]][%[[I]], %[[J]]]
// CHECK: math.exp
func.func @causal_mask_before_gemm(%a: memref<128x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  tile.kernel blocks(%bx) in (%c4) threads = 128 {
    %q = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %k = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %row0 = arith.muli %bx, %c32 : index
    tile.copy %a[%row0, %c0], %q[%c0, %c0] sizes [32, 32] : memref<128x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    %tiles = arith.addi %bx, %c1 : index
    tile.pipelined %t = %c0 to %tiles step %c1 num_stages = 1 {
      %col = arith.muli %t, %c32 : index
      tile.copy %a[%col, %c0], %k[%c0, %c0] sizes [32, 32] : memref<128x32xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.parallel (%i, %j) in (32, 32) {
        %query = arith.addi %row0, %i : index
        %key = arith.addi %col, %j : index
        %in = arith.cmpi sge, %query, %key : index
        %m = arith.select %in, %zero, %ninf : f32
        memref.store %m, %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.gemm %q, %k, %s transpose_b : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %x = memref.load %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %e = math.exp %x : f32
        memref.store %e, %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.copy %s[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
    }
  }
  return
}

// -----

// A mask of other values than 0 and an infinity is not a mask of the scores:
// it stays before the gemm, which adds onto it through a fresh accumulator.
// CHECK-LABEL: func.func @bias_before_gemm
// CHECK: tile.pipelined
// CHECK: tile.parallel
// CHECK: arith.select
// CHECK: tile.gemm
// CHECK: arith.addf
func.func @bias_before_gemm(%a: memref<128x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  tile.kernel blocks(%bx) in (%c4) threads = 128 {
    %q = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %k = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %row0 = arith.muli %bx, %c32 : index
    tile.copy %a[%row0, %c0], %q[%c0, %c0] sizes [32, 32] : memref<128x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.pipelined %t = %c0 to %c4 step %c1 num_stages = 1 {
      %col = arith.muli %t, %c32 : index
      tile.copy %a[%col, %c0], %k[%c0, %c0] sizes [32, 32] : memref<128x32xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.parallel (%i, %j) in (32, 32) {
        %query = arith.addi %row0, %i : index
        %key = arith.addi %col, %j : index
        %in = arith.cmpi sge, %query, %key : index
        %m = arith.select %in, %one, %ninf : f32
        memref.store %m, %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.gemm %q, %k, %s transpose_b : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.copy %s[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
    }
  }
  return
}
