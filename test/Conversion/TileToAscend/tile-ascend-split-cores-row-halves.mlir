// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-to-ascend="target=ascend:910b" | filecheck %s --check-prefix=MIX

// A tile of fewer rows than the handed one (M = 32) that takes its first r
// rows, as TileLang's `T.copy(acc_o[:8, :], O_shared)`, is split by rows
// too: each AIV holds its rows of [0, r) (AIV 0 rows [0, min(r, 16)), AIV 1
// rows [16, r)) and copies and stores only those, so each global row is
// written by one AIV. r = 8 < M/2: AIV 1 holds none and skips both copies.
// CHECK-LABEL: func.func @first_rows_under_half
// CHECK: %[[PART:.*]] = tile.alloc : memref<8x32xf16, #tile.scope<ub>>
// CHECK: %[[SUB:.*]] = ascend.sub_block_idx
// CHECK: %[[OFF:.*]] = arith.muli %[[SUB]], %c16
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[SUB]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[FIRST]] {
// CHECK-NEXT: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %[[PART]][%{{.*}}, %{{.*}}] sizes [8, 32] : memref<16x32xf32, #tile.scope<ub>>, memref<8x32xf16, #tile.scope<ub>>
// CHECK-NEXT: }
// CHECK-NOT: else
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK: %[[AGAIN:.*]] = arith.cmpi eq, %[[SUB]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[AGAIN]] {
// CHECK-NEXT: tile.copy %[[PART]][%{{.*}}, %{{.*}}], %{{.*}}[%[[ROW]], %{{.*}}] sizes [8, 32] : memref<8x32xf16, #tile.scope<ub>>, memref<?x32xf16>
// CHECK-NEXT: }
// CHECK-NOT: else
// MIX-LABEL: func.func @first_rows_under_half
// MIX-SAME: ascend.kernel = #ascend.core<mix>
func.func @first_rows_under_half(%a: memref<32x32xf16>, %c: memref<?x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %part = tile.alloc : memref<8x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %part[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<8x32xf16, #tile.scope<shared>>
    tile.copy %part[%c0, %c0], %c[%c0, %c0] : memref<8x32xf16, #tile.scope<shared>>, memref<?x32xf16>
  }
  return
}

// -----

// r = M/2: AIV 0 holds all 16 rows, AIV 1 none.
// CHECK-LABEL: func.func @first_rows_half
// CHECK: %[[PART:.*]] = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.copy %{{.*}}, %[[PART]][%{{.*}}, %{{.*}}] sizes [16, 32]
// CHECK-NEXT: }
// CHECK-NOT: else
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.copy %[[PART]][%{{.*}}, %{{.*}}], %{{.*}} sizes [16, 32]
// CHECK-NEXT: }
// CHECK-NOT: else
// MIX-LABEL: func.func @first_rows_half
func.func @first_rows_half(%a: memref<32x32xf16>, %c: memref<?x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %part = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %part[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<16x32xf16, #tile.scope<shared>>
    tile.copy %part[%c0, %c0], %c[%c0, %c0] : memref<16x32xf16, #tile.scope<shared>>, memref<?x32xf16>
  }
  return
}

// -----

// M/2 < r < M: AIV 0 holds 16 rows, AIV 1 the other r - 16 = 8; the global
// rows of AIV 1's store start at 16.
// CHECK-LABEL: func.func @first_rows_over_half
// CHECK: %[[PART:.*]] = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
// CHECK: %[[SUB:.*]] = ascend.sub_block_idx
// CHECK: %[[OFF:.*]] = arith.muli %[[SUB]], %c16
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.copy %{{.*}}, %[[PART]][%{{.*}}, %{{.*}}] sizes [16, 32]
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.copy %{{.*}}, %[[PART]][%{{.*}}, %{{.*}}] sizes [8, 32]
// CHECK-NEXT: }
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: scf.if
// CHECK-NEXT: tile.copy %[[PART]][%{{.*}}, %{{.*}}], %{{.*}}[%[[ROW]], %{{.*}}] sizes [16, 32]
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.copy %[[PART]][%{{.*}}, %{{.*}}], %{{.*}}[%[[ROW]], %{{.*}}] sizes [8, 32]
// CHECK-NEXT: }
// MIX-LABEL: func.func @first_rows_over_half
func.func @first_rows_over_half(%a: memref<32x32xf16>, %c: memref<?x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %part = tile.alloc : memref<24x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %part[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<24x32xf16, #tile.scope<shared>>
    tile.copy %part[%c0, %c0], %c[%c0, %c0] : memref<24x32xf16, #tile.scope<shared>>, memref<?x32xf16>
  }
  return
}

// -----

// Handed tiles of different rows (sparse MLA: gathered keys of 32 rows go
// up, scores of 16 heads come down): each AIV holds half of each, 16 rows
// of the keys and 8 of the scores, and each region and copy shifts its
// rows by the half of its own tile's group.
// CHECK-LABEL: func.func @two_row_counts
// CHECK: core_region = #ascend.core<aic>
// CHECK: %[[KEYS:.*]] = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
// CHECK: %[[SCORES:.*]] = tile.alloc : memref<8x32xf32, #tile.scope<ub>>
// CHECK: %[[SUB:.*]] = ascend.sub_block_idx
// CHECK: %[[OFF16:.*]] = arith.muli %[[SUB]], %c16
// CHECK: %[[OFF8:.*]] = arith.muli %[[SUB]], %c8
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (16, 32) {
// CHECK-NEXT: %[[ROW:.*]] = arith.addi %[[I]], %[[OFF16]] : index
// CHECK-NEXT: memref.load %{{.*}}[%[[ROW]], %[[J]]] : memref<32x32xf16>
// CHECK: memref.store %{{.*}}, %[[KEYS]][%[[I]], %[[J]]]
// CHECK: %[[UP:.*]] = arith.addi %{{.*}}, %[[OFF16]] : index
// CHECK-NEXT: tile.copy %[[KEYS]][%{{.*}}, %{{.*}}], %{{.*}}[%[[UP]], %{{.*}}] : memref<16x32xf16, #tile.scope<ub>>, memref<?x32xf16>
// CHECK: %[[DOWN:.*]] = arith.addi %{{.*}}, %[[OFF8]] : index
// CHECK-NEXT: tile.copy %{{.*}}[%[[DOWN]], %{{.*}}], %[[SCORES]][%{{.*}}, %{{.*}}] : memref<?x32xf32>, memref<8x32xf32, #tile.scope<ub>>
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (8, 32) {
// CHECK: memref.store %{{.*}}, %[[SCORES]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[OUT:.*]] = arith.addi %{{.*}}, %[[OFF8]] : index
// CHECK-NEXT: tile.copy %[[SCORES]][%{{.*}}, %{{.*}}], %{{.*}}[%[[OUT]], %{{.*}}] : memref<8x32xf32, #tile.scope<ub>>, memref<?x32xf32>
// MIX-LABEL: func.func @two_row_counts
// MIX-SAME: ascend.kernel = #ascend.core<mix>
func.func @two_row_counts(%kv: memref<32x32xf16>, %q: memref<16x32xf16>, %c: memref<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f16
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %k = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %ql = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<16x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %kv[%i, %j] : memref<32x32xf16>
      %s = arith.mulf %v, %two : f16
      memref.store %s, %k[%i, %j] : memref<32x32xf16, #tile.scope<shared>>
    }
    tile.copy %q[%c0, %c0], %ql[%c0, %c0] : memref<16x32xf16>, memref<16x32xf16, #tile.scope<shared>>
    tile.gemm %ql, %k, %acc transpose_b clear_accum : memref<16x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<16x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (16, 32) {
      %v = memref.load %acc[%i, %j] : memref<16x32xf32, #tile.scope<fragment>>
      %w = arith.addf %v, %v : f32
      memref.store %w, %acc[%i, %j] : memref<16x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %c[%bx, %c0] : memref<16x32xf32, #tile.scope<fragment>>, memref<?x32xf32>
  }
  return
}

// -----

// An atomic add of a split tile into global memory (split-K's epilogue) is
// a store: each AIV adds its 16 rows, at the global row shifted by its half.
// CHECK-LABEL: func.func @atomic_add_halves
// CHECK: core_region = #ascend.core<aic>
// CHECK: %[[HALF:.*]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: %[[SUB:.*]] = ascend.sub_block_idx
// CHECK: %[[OFF:.*]] = arith.muli %[[SUB]], %c16
// CHECK: tile.copy %{{.*}}, %[[HALF]][%{{.*}}, %{{.*}}] : memref<?x32xf32>, memref<16x32xf32, #tile.scope<ub>>
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK-NEXT: tile.atomic_add %[[HALF]], %{{.*}}[%[[ROW]], %{{.*}}] : memref<16x32xf32, #tile.scope<ub>>, memref<?x32xf32>
// MIX-LABEL: func.func @atomic_add_halves
// MIX-SAME: ascend.kernel = #ascend.core<mix>
func.func @atomic_add_halves(%a: memref<32x32xf16>, %c: memref<?x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %r = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %sum = tile.alloc : memref<32x32xf32, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %r[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %r, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %sum[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<shared>>
    tile.atomic_add %sum, %c[%bx, %c0] : memref<32x32xf32, #tile.scope<shared>>, memref<?x32xf32>
  }
  return
}
