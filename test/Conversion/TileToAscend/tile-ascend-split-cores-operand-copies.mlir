// RUN: tile-opt %s --tile-ascend-place-tiles --tile-ascend-split-cores | filecheck %s

// TileLang's decode loop: a softmax rewrites the scores' accumulator in
// place before the cast copy into the next gemm's operand. The scores go
// down (ring 0: flags 0/1), the AIVs' half of the rewritten tile goes back
// up into L1 (ring 1: flags 2/3, cast to f16 on the way): the AIC never
// reads the L0C tile after its handoff.
// CHECK-LABEL: func.func @softmax_in_place_then_operand
// CHECK-SAME: %[[DOWN:[^:]*]]: memref<?x32xf32> {ascend.workspace = 64 : i64}, %[[UP:[^:]*]]: memref<?x32xf16> {ascend.workspace = 64 : i64})
// CHECK: tile.kernel
// CHECK: tile.pipelined
// CHECK: tile.gemm
// CHECK: tile.copy %{{.*}}, %[[DOWN]][%{{.*}}, %{{.*}}] : memref<32x32xf32, #tile.scope<l0c>>, memref<?x32xf32>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK-NOT: tile.parallel
// CHECK: ascend.cross_core_wait_flag 2, mte2
// CHECK-NEXT: tile.copy %[[UP]][%{{.*}}, %{{.*}}], %[[P:[0-9]+]][%{{.*}}, %{{.*}}] : memref<?x32xf16>, memref<32x32xf16, #tile.scope<l1>>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte2, 3
// CHECK-NEXT: tile.gemm %[[P]]
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: tile.kernel
// CHECK: %[[STAGED:[0-9]+]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: %[[S:[0-9]+]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: tile.pipelined
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK: tile.copy %[[DOWN]][%{{.*}}, %{{.*}}], %[[S]][%{{.*}}, %{{.*}}]
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (16, 32)
// CHECK: math.exp
// CHECK: tile.copy %[[S]][%{{.*}}, %{{.*}}], %[[STAGED]][%{{.*}}, %{{.*}}]
// CHECK: ascend.cross_core_wait_flag 3, mte3
// CHECK: tile.copy %[[STAGED]][%{{.*}}, %{{.*}}], %[[UP]][%{{.*}}, %{{.*}}] : memref<16x32xf32, #tile.scope<ub>>, memref<?x32xf16>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte3, 2
// CHECK-NOT: tile.gemm
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
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
