// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-to-ascend="profile=910b" | filecheck %s --check-prefix=MIX

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
