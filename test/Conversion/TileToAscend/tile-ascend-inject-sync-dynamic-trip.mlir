// A K/V loop whose trip count is the block's index, as causal attention's key
// loop (the diagonal bounds it): block 0 runs no iteration, block 1 one, ...
// (the grid is walked in snake order, see kernel-snake-order.mlir).
// Split-cores pipelines each core's copy of the loop with stage 1 two
// iterations ahead, and puts the whole pipelined loop, its first stage 1 and
// its guarded second one, under one `scf.if` on the loop running at all. The
// path that runs nothing then holds no flag, and the second stage's skip path
// runs after a first stage that ordered every pipe of the AIC: the flags keep
// their places of a constant trip count (no acknowledgements), within the
// event ids the runtime leaves (no borrowing of its M -> MTE1 flags). With a
// guard per stage before the loop, the 950's AIC needed 9 MTE1 ids at once.
//
// RUN: tile-opt %s --tile-to-ascend="target=ascend:950 max-stages=1" > %t.950.mlir
// RUN: filecheck %s < %t.950.mlir
// RUN: tile-opt %s --tile-to-ascend="target=ascend:910b max-stages=1" > %t.910b.mlir
// RUN: filecheck %s < %t.910b.mlir
// RUN: tile-sim %t.950.mlir --profile 950 --block-dim 2 --arg ones:4x32x32xf16 \
// RUN:     --arg ones:4x32x32xf16 --arg ones:4x32x32xf16 --arg zeros:4x32x32xf32 \
// RUN:     --arg zeros:128x32xf16 --flag-identity source --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM
// RUN: tile-sim %t.910b.mlir --profile 910b --block-dim 2 --arg ones:4x32x32xf16 \
// RUN:     --arg ones:4x32x32xf16 --arg ones:4x32x32xf16 --arg zeros:4x32x32xf32 \
// RUN:     --arg zeros:128x32xf32 --arg zeros:128x32xf16 --arg zeros:128x32xf32 \
// RUN:     --flag-identity source --print-outputs | filecheck %s --check-prefix=SIM

// CHECK-LABEL: func.func @causal
// CHECK:       ascend.core aic {
// CHECK-NOT:   ascend.wait_flag m -> mte1
// CHECK:       scf.for %[[I:[^ ]*]] = %block_idx
// CHECK:       %[[B:.*]] = arith.select %{{.*}}, %{{.*}}, %[[I]] : index
// CHECK:       %[[RUNS:.*]] = arith.cmpi sgt, %[[B]], %c0 : index
// CHECK-NEXT:  scf.if %[[RUNS]] {
// CHECK-NOT:   scf.if
// CHECK:       ascend.mmad
// CHECK:       %[[SECOND:.*]] = arith.cmpi sgt, %[[B]], %c1 : index
// CHECK-NEXT:  scf.if %[[SECOND]] {
// CHECK:       ascend.mmad
// CHECK:       } else {
// CHECK:       scf.for %[[K:[^ ]*]] = %c0 to %[[B]] step %c1 {
// CHECK-NEXT:  %[[AHEAD:.*]] = arith.addi %[[K]], %c2 : index
// CHECK-NEXT:  arith.cmpi slt, %[[AHEAD]], %[[B]] : index
// CHECK:       ascend.mmad
// CHECK:       ascend.mmad
// CHECK:       } else {
// CHECK:       ascend.core aiv {

// Q = K = V = ones: S = 32, P V = 1024, and each iteration halves O first:
// O = 0, 1024, 1536, 1792 for blocks 0 to 3.
// SIM:      races: 0
// SIM-NEXT: deadlocks: 0
// SIM:      %arg3 = {{\[\[\[}} 0. 0. 0.
// SIM:      {{\[\[}}1024. 1024. 1024.
// SIM:      {{\[\[}}1536. 1536. 1536.
// SIM:      {{\[\[}}1792. 1792. 1792.
func.func @causal(%q: memref<4x32x32xf16>, %k: memref<4x32x32xf16>, %v: memref<4x32x32xf16>, %out: memref<4x32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %half = arith.constant 0.5 : f32
  tile.kernel blocks(%bx) in (%c4) threads = 128 {
    %qs = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %ks = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %vs = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %p = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %o = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %r = tile.alloc : memref<32xf32, #tile.scope<fragment>>
    tile.copy %q[%bx, %c0, %c0], %qs[%c0, %c0] sizes [1, 32, 32] : memref<4x32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.clear %o : memref<32x32xf32, #tile.scope<fragment>>
    tile.pipelined %i = %c0 to %bx step %c1 num_stages = 2 {
      tile.copy %k[%i, %c0, %c0], %ks[%c0, %c0] sizes [1, 32, 32] : memref<4x32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.gemm %qs, %ks, %s transpose_b clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%a) in (32) {
        memref.store %half, %r[%a] : memref<32xf32, #tile.scope<fragment>>
      }
      tile.parallel (%a, %b) in (32, 32) {
        %x = memref.load %o[%a, %b] : memref<32x32xf32, #tile.scope<fragment>>
        %f = memref.load %r[%a] : memref<32xf32, #tile.scope<fragment>>
        %w = arith.mulf %x, %f : f32
        memref.store %w, %o[%a, %b] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.copy %s[%c0, %c0], %p[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<shared>>
      tile.copy %v[%i, %c0, %c0], %vs[%c0, %c0] sizes [1, 32, 32] : memref<4x32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.gemm %p, %vs, %o : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %o[%c0, %c0], %out[%bx, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<4x32x32xf32>
  }
  return
}
