// RUN: tile-opt %s -split-input-file --tile-ascend-split-cores | filecheck %s

// Parts of a UB tile (sparse MLA's Q: its columns [0, 64) and [64, 96) as two
// gemm operands) that the vector cores only copied in from a tensor the kernel
// only reads: the cube copies the same parts of the tensor itself (the part's
// offset in the tensor: the tensor offset of the copy that filled it, plus the
// part's offset in the tile past that copy's), and the UB tile goes. Only the
// accumulator is handed over.
// CHECK-LABEL: func.func @q_slices_from_gm
// CHECK-SAME: %[[Q:[a-z0-9]+]]: memref<16x96xf16>
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<?x32xf32> {ascend.workspace = 32 : i64})
// CHECK: scf.execute_region {
// CHECK: %[[Q1:.*]] = tile.alloc : memref<16x64xf16, #tile.scope<l1>>
// CHECK: tile.copy %[[Q]][%{{.*}}, %{{.*}}], %[[Q1]][%c0, %c0] sizes [16, 64]
// CHECK: tile.gemm %[[Q1]]
// CHECK: %[[Q2:.*]] = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
// CHECK: tile.copy %[[Q]][%{{.*}}, %{{.*}}], %[[Q2]][%c0, %c0] sizes [16, 32]
// CHECK: tile.gemm %[[Q2]]
// CHECK: tile.copy %{{.*}}, %[[WS]][
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK-NOT: 16x96xf16, #tile.scope<ub>
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @q_slices_from_gm(%q: memref<16x96xf16>, %k: memref<32x96xf16>, %c: memref<16x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %qu = tile.alloc : memref<16x96xf16, #tile.scope<ub>>
    %k1 = tile.alloc : memref<32x64xf16, #tile.scope<l1>>
    %k2 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<16x32xf32, #tile.scope<l0c>>
    %s = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
    tile.copy %q[%c0, %c0], %qu[%c0, %c0] sizes [16, 64] : memref<16x96xf16>, memref<16x96xf16, #tile.scope<ub>>
    tile.copy %q[%c0, %c64], %qu[%c0, %c64] sizes [16, 32] : memref<16x96xf16>, memref<16x96xf16, #tile.scope<ub>>
    tile.copy %k[%c0, %c0], %k1[%c0, %c0] sizes [32, 64] : memref<32x96xf16>, memref<32x64xf16, #tile.scope<l1>>
    tile.copy %k[%c0, %c64], %k2[%c0, %c0] sizes [32, 32] : memref<32x96xf16>, memref<32x32xf16, #tile.scope<l1>>
    %q1 = tile.alloc : memref<16x64xf16, #tile.scope<l1>>
    tile.copy %qu[%c0, %c0], %q1[%c0, %c0] : memref<16x96xf16, #tile.scope<ub>>, memref<16x64xf16, #tile.scope<l1>>
    tile.gemm %q1, %k1, %acc transpose_b clear_accum : memref<16x64xf16, #tile.scope<l1>>, memref<32x64xf16, #tile.scope<l1>>, memref<16x32xf32, #tile.scope<l0c>>
    %q2 = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    tile.copy %qu[%c0, %c64], %q2[%c0, %c0] : memref<16x96xf16, #tile.scope<ub>>, memref<16x32xf16, #tile.scope<l1>>
    tile.gemm %q2, %k2, %acc transpose_b : memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<16x32xf32, #tile.scope<l0c>>
    tile.parallel (%i, %j) in (16, 32) {
      %v = memref.load %acc[%i, %j] : memref<16x32xf32, #tile.scope<l0c>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %s[%i, %j] : memref<16x32xf32, #tile.scope<ub>>
    }
    tile.copy %s[%c0, %c0], %c[%c0, %c0] : memref<16x32xf32, #tile.scope<ub>>, memref<16x32xf32>
  }
  return
}

// -----

// A guarded load of a gemm operand (TileLang's `if in bounds: load else:
// zeros`, on the vector cores) ends both branches with the same copy into
// L1: it runs once after the `if`, one handoff (one workspace, one pair of
// flags) instead of one in each branch.
// CHECK-LABEL: func.func @guarded_operand
// CHECK-SAME: %[[WS:[a-z0-9]+]]: memref<?x32xf16> {ascend.workspace = 64 : i64})
// CHECK-NOT: ascend.workspace
// CHECK: scf.execute_region {
// CHECK-NOT: scf.if %arg3
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK: tile.copy %[[WS]]
// CHECK: tile.gemm
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK: scf.if %arg3 {
// CHECK: tile.copy %arg0
// CHECK-NEXT: } else {
// CHECK-NEXT: tile.fill
// CHECK-NEXT: }
// CHECK: ascend.cross_core_wait_flag 1, mte3
// CHECK: tile.copy %{{.*}}, %[[WS]]
// CHECK: ascend.cross_core_set_flag mode 2, mte3, 0
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @guarded_operand(%a: memref<?x32xf16>, %b: memref<32x32xf16>, %c: memref<32x32xf32>,
                           %p: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f16
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %au = tile.alloc : memref<32x32xf16, #tile.scope<ub>>
    %al = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %bl = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    scf.if %p {
      tile.copy %a[%c0, %c0], %au[%c0, %c0] : memref<?x32xf16>, memref<32x32xf16, #tile.scope<ub>>
      tile.copy %au[%c0, %c0], %al[%c0, %c0] : memref<32x32xf16, #tile.scope<ub>>, memref<32x32xf16, #tile.scope<l1>>
    } else {
      tile.fill %au, %zero : memref<32x32xf16, #tile.scope<ub>>, f16
      tile.copy %au[%c0, %c0], %al[%c0, %c0] : memref<32x32xf16, #tile.scope<ub>>, memref<32x32xf16, #tile.scope<l1>>
    }
    tile.copy %b[%c0, %c0], %bl[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.gemm %al, %bl, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
  }
  return
}

// -----

// A running state (linear attention's h): the vector cores read it in each
// iteration, then the cube accumulates into it. The handoff goes in the loop
// (each iteration hands the current value over, not just the cleared one),
// the gemm after it and the final store stay on the AIC, whose L0C tile the
// handoff only copied.
// CHECK-LABEL: func.func @state_read_then_accumulated
// CHECK: scf.execute_region {
// CHECK: tile.clear %[[H:.*]] : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: scf.for
// CHECK: tile.copy %[[H]][%{{.*}}], %arg3[
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[H]] :
// CHECK: }
// CHECK: ascend.cross_core_wait_flag 1, fix
// CHECK: tile.copy %[[H]][%c0, %c0], %arg2[%c0, %c0]
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK-NOT: tile.gemm
// CHECK: scf.for
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK: tile.parallel
// CHECK-NOT: %arg2
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @state_read_then_accumulated(%a: memref<32x32xf16>, %c: memref<4x32x32xf32>,
                                       %h_out: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %h = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    %o = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.clear %h : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %k = %c0 to %c4 step %c1 {
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %h[%i, %j] : memref<32x32xf32, #tile.scope<l0c>>
        %r = arith.mulf %v, %two : f32
        memref.store %r, %o[%i, %j] : memref<32x32xf32, #tile.scope<ub>>
      }
      %ck = memref.subview %c[%k, 0, 0] [1, 32, 32] [1, 1, 1] : memref<4x32x32xf32> to memref<32x32xf32, strided<[32, 1], offset: ?>>
      tile.copy %o[%c0, %c0], %ck[%c0, %c0] : memref<32x32xf32, #tile.scope<ub>>, memref<32x32xf32, strided<[32, 1], offset: ?>>
      tile.gemm %l, %l, %h : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    }
    tile.copy %h[%c0, %c0], %h_out[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
  }
  return
}

// -----

// A scalar read of a tensor that the kernel also copies into a tile (mamba's
// dA_cumsum: its last element scales the whole chunk) is still a read of a
// tensor the kernel never writes: both cores compute it.
// CHECK-LABEL: func.func @scalar_of_a_copied_tensor
// CHECK: scf.execute_region {
// CHECK: memref.load %arg1[%c3] : memref<4xf32>
// CHECK: arith.truncf
// CHECK: tile.gemm
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK: memref.load %arg1[%c3] : memref<4xf32>
// CHECK: tile.copy %arg1
// CHECK: arith.extf
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @scalar_of_a_copied_tensor(%a: memref<32x32xf16>, %d: memref<4xf32>,
                                     %c: memref<32x32xf32>, %e: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %lu = tile.alloc : memref<32x32xf16, #tile.scope<ub>>
    %l = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %ls = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    %dt = tile.alloc : memref<4xf32, #tile.scope<ub>>
    %sc = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
    %last = memref.load %d[%c3] : memref<4xf32>
    %scale = arith.truncf %last : f32 to f16
    tile.copy %d[%c0], %dt[%c0] : memref<4xf32>, memref<4xf32, #tile.scope<ub>>
    tile.copy %dt[%c0], %e[%c0] : memref<4xf32, #tile.scope<ub>>, memref<4xf32>
    tile.parallel (%i, %j) in (32, 32) {
      %x = memref.load %a[%i, %j] : memref<32x32xf16>
      %y = arith.mulf %x, %scale : f16
      memref.store %y, %lu[%i, %j] : memref<32x32xf16, #tile.scope<ub>>
    }
    tile.copy %lu[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16, #tile.scope<ub>>, memref<32x32xf16, #tile.scope<l1>>
    tile.copy %a[%c0, %c0], %ls[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.gemm %l, %ls, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    %w = arith.extf %scale : f16 to f32
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<l0c>>
      %r = arith.mulf %v, %w : f32
      memref.store %r, %sc[%i, %j] : memref<32x32xf32, #tile.scope<ub>>
    }
    tile.copy %sc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<ub>>, memref<32x32xf32>
  }
  return
}

// -----

// The vector cores read the accumulator, then a gemm overwrites it on the
// cube: the AIC's L0C tile is still its own after the handoff (the fixpipe
// copied it), so the gemm and the store of its new value stay on the AIC.
// CHECK-LABEL: func.func @gemm_after_the_handoff
// CHECK: scf.execute_region {
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[ACC:.*]] clear_accum
// CHECK: tile.copy %[[ACC]][%{{.*}}], %arg3[
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[ACC]] clear_accum
// CHECK-NEXT: tile.copy %[[ACC]][%c0, %c0], %arg1[%c0, %c0]
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK-NOT: tile.gemm
// CHECK-NOT: %arg1[
// CHECK: tile.copy %{{.*}}, %arg2[
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @gemm_after_the_handoff(%a: memref<32x32xf16>, %c: memref<32x32xf32>, %d: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    %out = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<l0c>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %out[%i, %j] : memref<32x32xf32, #tile.scope<ub>>
    }
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
    tile.copy %out[%c0, %c0], %d[%c0, %c0] : memref<32x32xf32, #tile.scope<ub>>, memref<32x32xf32>
  }
  return
}
