// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores="skew=1" \
// RUN:   | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   | filecheck %s --check-prefix=SKEW
// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles \
// RUN:   --tile-ascend-split-cores="slots=3" | filecheck %s --check-prefix=SLOTS
// The whole pipeline: the pipelined loops of the last two kernels need more
// flags than the 910b has event ids with their cores two iterations apart or
// with two multi-buffer slots (tilec.compile retries so), hence the options.
// RUN: tile-opt %s -split-input-file --tile-to-ascend="target=ascend:910b skew=1 max-stages=1" \
// RUN:   | filecheck %s --check-prefix=MIX

// A GEMM whose accumulator gets a vector epilogue (scale and bias): the cube
// half keeps the gemm and fixpipes the tile into a ring of workspace slots
// (a new GM argument, 2 slots x 32 rows per AI core); each AIV copies its 16
// rows back, frees the slot, and does the epilogue on them.
// CHECK-LABEL: func.func @scale_epilogue
// CHECK-SAME: %[[N:[^:]*]]: index, %[[WS:.*]]: memref<?x32xf32> {ascend.workspace = 64 : i64})
// CHECK: scf.execute_region {
// CHECK: tile.kernel blocks(%[[BX:.*]]) in (%[[N]])
// CHECK-NOT: #tile.scope<ub>
// CHECK: %[[ACC:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: tile.gemm
// CHECK: %[[FIRST:.*]] = ascend.block_idx
// CHECK: %[[STEP:.*]] = ascend.block_num
// CHECK: %[[TRIP:.*]] = arith.divui
// CHECK: %[[SLOT:.*]] = arith.remui %[[TRIP]], %{{.*}}
// CHECK: %[[REUSED:.*]] = arith.cmpi uge, %[[TRIP]], %{{.*}}
// CHECK: scf.if %[[REUSED]] {
// CHECK-NEXT: ascend.cross_core_wait_flag 1, fix
// CHECK: tile.copy %[[ACC]][%{{.*}}, %{{.*}}], %[[WS]][%{{.*}}, %{{.*}}] : memref<32x32xf32, #tile.scope<l0c>>, memref<?x32xf32>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK-NOT: tile.parallel
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: scf.execute_region {
// CHECK: tile.kernel
// CHECK-NOT: tile.gemm
// CHECK: %[[HALF:.*]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: %[[SUB:.*]] = ascend.sub_block_idx
// CHECK: %[[OFF:.*]] = arith.muli %[[SUB]], %{{.*}}
// CHECK: %[[AGAIN:.*]] = arith.cmpi ult
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK: tile.copy %[[WS]][%{{.*}}, %{{.*}}], %[[HALF]]
// CHECK: scf.if %[[AGAIN]] {
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte2, 1
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (16, 32) {
// CHECK: memref.load %[[HALF]][%[[I]], %[[J]]]
// CHECK: memref.store %{{.*}}, %[[HALF]][%[[I]], %[[J]]]
// CHECK: %[[ROW:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// CHECK: tile.copy %[[HALF]][%{{.*}}, %{{.*}}], %{{.*}}[%[[ROW]], %{{.*}}] : memref<16x32xf32, #tile.scope<ub>>, memref<?x32xf32>
// CHECK: } {ascend.core_region = #ascend.core<aiv>}

// SLOTS-LABEL: func.func @scale_epilogue
// SLOTS-SAME: {ascend.workspace = 96 : i64}

// After the whole pipeline: a mix kernel with one region per core kind, each
// with its own grid-stride loop and its own buffers.
// MIX-LABEL: func.func @scale_epilogue
// MIX-SAME: memref<?x32xf32, #ascend.mem<gm>> {ascend.workspace = 64 : i64})
// MIX-SAME: ascend.kernel = #ascend.core<mix>
// MIX: ascend.core aic {
// MIX-NOT: #ascend.mem<ub>
// MIX: scf.for
// MIX: ascend.mmad
// MIX: ascend.cross_core_wait_flag 1, fix
// MIX: ascend.fixpipe
// MIX: ascend.cross_core_set_flag mode 2, fix, 0
// MIX: ascend.core aiv {
// MIX-NOT: ascend.mmad
// MIX: scf.for
// MIX: ascend.sub_block_idx
// MIX: ascend.cross_core_wait_flag 0, mte2
// MIX: ascend.cross_core_set_flag mode 2, mte2, 1
func.func @scale_epilogue(%a: memref<?x32xf16>, %bias: memref<32xf32>, %c: memref<?x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %b = tile.alloc : memref<32xf32, #tile.scope<shared>>
    %row = arith.muli %bx, %c32 : index
    tile.copy %a[%row, %c0], %l[%c0, %c0] : memref<?x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %bias[%c0], %b[%c0] : memref<32xf32>, memref<32xf32, #tile.scope<shared>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %w = memref.load %b[%j] : memref<32xf32, #tile.scope<shared>>
      %s = arith.mulf %v, %two : f32
      %r = arith.addf %s, %w : f32
      memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %c[%row, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<?x32xf32>
  }
  return
}

// -----

// A row-indexed global read in the epilogue (a residual) keeps its global
// row: the AIV's local row plus its half's offset.
// CHECK-LABEL: func.func @residual_epilogue
// CHECK: %[[HALF:.*]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: %[[OFF:.*]] = arith.muli %{{.*}}, %c16
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (16, 32) {
// CHECK-NEXT: %[[G:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK: memref.load %[[HALF]][%[[I]], %[[J]]]
// CHECK: memref.load %{{.*}}[%[[G]], %[[J]]] : memref<32x32xf32>
// CHECK: memref.store %{{.*}}, %[[HALF]][%[[I]], %[[J]]]
// MIX-LABEL: func.func @residual_epilogue
// MIX-SAME: ascend.kernel = #ascend.core<mix>
func.func @residual_epilogue(%a: memref<32x32xf16>, %d: memref<32x32xf32>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %w = memref.load %d[%i, %j] : memref<32x32xf32>
      %r = arith.addf %v, %w : f32
      memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// A kernel on one kind of core is left alone.
// CHECK-LABEL: func.func @cube_only
// CHECK-NOT: scf.execute_region
// CHECK-NOT: ascend.workspace
// CHECK: tile.kernel
func.func @cube_only(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// Softmax after a gemm: the row max and row sum (UB tiles of as many rows as
// the accumulator, used row by row with it) are split with the rows too.
// CHECK-LABEL: func.func @gemm_softmax
// CHECK: {ascend.core_region = #ascend.core<aic>}
// CHECK-DAG: %[[MAX:.*]] = tile.alloc : memref<16xf32, #tile.scope<ub>>
// CHECK-DAG: %[[HALF:.*]] = tile.alloc : memref<16x64xf32, #tile.scope<ub>>
// CHECK-NOT: memref<32xf32, #tile.scope<ub>>
// CHECK: tile.reduce max %[[HALF]], %[[MAX]] dim = 1 : memref<16x64xf32, #tile.scope<ub>>, memref<16xf32, #tile.scope<ub>>
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (16, 64) {
// CHECK: memref.load %[[MAX]][%[[I]]]
// MIX-LABEL: func.func @gemm_softmax
// MIX-SAME: ascend.kernel = #ascend.core<mix>
func.func @gemm_softmax(%a: memref<64x32xf16>, %b: memref<32x64xf16>, %y: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%bx) in (%c2) threads = 128 {
    %la = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %lb = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x64xf32, #tile.scope<fragment>>
    %m = tile.alloc : memref<32xf32, #tile.scope<fragment>>
    %row = arith.muli %bx, %c32 : index
    tile.copy %a[%row, %c0], %la[%c0, %c0] : memref<64x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.copy %b[%c0, %c0], %lb[%c0, %c0] : memref<32x64xf16>, memref<32x64xf16, #tile.scope<shared>>
    tile.gemm %la, %lb, %s clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<32x64xf32, #tile.scope<fragment>>
    tile.reduce max %s, %m dim = 1 : memref<32x64xf32, #tile.scope<fragment>>, memref<32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 64) {
      %v = memref.load %s[%i, %j] : memref<32x64xf32, #tile.scope<fragment>>
      %mx = memref.load %m[%i] : memref<32xf32, #tile.scope<fragment>>
      %d = arith.subf %v, %mx : f32
      %e = math.exp %d : f32
      memref.store %e, %s[%i, %j] : memref<32x64xf32, #tile.scope<fragment>>
    }
    tile.copy %s[%c0, %c0], %y[%row, %c0] : memref<32x64xf32, #tile.scope<fragment>>, memref<64x64xf32>
  }
  return
}

// -----

// An accumulator copied into a UB tile of another type (rounded to f16, then
// stored as f32: twice, as the kernel says) is handed over too; the UB tile
// is split by rows with it.
// CHECK-LABEL: func.func @double_rounding_epilogue
// CHECK: {ascend.core_region = #ascend.core<aic>}
// CHECK-DAG: %[[S:.*]] = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
// CHECK-DAG: %[[HALF:.*]] = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: tile.copy %[[HALF]][%{{.*}}, %{{.*}}], %[[S]][%{{.*}}, %{{.*}}] : memref<16x32xf32, #tile.scope<ub>>, memref<16x32xf16, #tile.scope<ub>>
// CHECK: tile.copy %[[S]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] : memref<16x32xf16, #tile.scope<ub>>, memref<32x32xf32>
// MIX-LABEL: func.func @double_rounding_epilogue
// MIX-SAME: ascend.kernel = #ascend.core<mix>
func.func @double_rounding_epilogue(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %s = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %s[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<shared>>
    tile.copy %s[%c0, %c0], %c[%c0, %c0] : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32>
  }
  return
}

// -----

// Attention's K/V loop in small, starting at 1: S = Q K^T is handed down
// every iteration (a fresh accumulator: the vector work writes %s before the
// gemm adds to it), the AIVs hand their UB tile %s up as the f16 A operand of
// the second gemm (cast on the way), whose partial product goes down again
// onto the running output %o (rescaled by the AIVs every iteration, so it
// lives on them). Three rings of 2 slots x 32 rows; after the loop each
// producer takes the "free" sets of the last uses of its rings.
// CHECK-LABEL: func.func @loop_handoffs
// CHECK-SAME: %{{.*}}: memref<?x32xf32> {ascend.workspace = 64 : i64}, %[[WP:.*]]: memref<?x32xf16> {ascend.workspace = 64 : i64}, %{{.*}}: memref<?x32xf32> {ascend.workspace = 64 : i64})
// CHECK: tile.kernel
// CHECK-NOT: #tile.scope<ub>
// CHECK: tile.pipelined %[[I:.*]] = %[[C1:.*]] to %[[N:[^ ]*]] step
// CHECK: tile.gemm {{.*}} transpose_b clear_accum
// CHECK: arith.subi %[[I]], %[[C1]]
// CHECK: arith.cmpi uge
// CHECK: ascend.cross_core_wait_flag 1, fix
// CHECK: tile.copy {{.*}} : memref<32x32xf32, #tile.scope<l0c>>, memref<?x32xf32>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK: ascend.cross_core_wait_flag 2, mte2
// CHECK-NEXT: tile.copy %[[WP]]{{.*}} : memref<?x32xf16>, memref<32x32xf16, #tile.scope<l1>>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte2, 3
// CHECK: tile.gemm {{.*}} clear_accum
// CHECK: ascend.cross_core_wait_flag 5, fix
// CHECK: ascend.cross_core_set_flag mode 2, fix, 4
// CHECK: arith.minui
// CHECK: scf.for
// CHECK-NEXT: ascend.cross_core_wait_flag 5, fix
// CHECK: arith.minui
// CHECK: scf.for
// CHECK-NEXT: ascend.cross_core_wait_flag 1, fix
// CHECK-NOT: tile.parallel
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: tile.kernel
// CHECK-NOT: tile.gemm
// CHECK: tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK: tile.pipelined
// CHECK: tile.parallel (%{{.*}}, %{{.*}}) in (16, 32)
// CHECK: ascend.cross_core_wait_flag 0, mte2
// CHECK: tile.copy {{.*}} : memref<?x32xf32>, memref<16x32xf32, #tile.scope<ub>>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte2, 1
// CHECK: ascend.cross_core_wait_flag 3, mte3
// CHECK: tile.copy {{.*}} : memref<16x32xf32, #tile.scope<ub>>, memref<?x32xf16>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte3, 2
// CHECK: ascend.cross_core_wait_flag 4, mte2
// CHECK: tile.copy {{.*}} : memref<?x32xf32>, memref<16x32xf32, #tile.scope<ub>>
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, mte2, 5
// CHECK: scf.for
// CHECK-NEXT: ascend.cross_core_wait_flag 3, mte3
// CHECK: tile.copy {{.*}} : memref<16x32xf32, #tile.scope<ub>>, memref<32x32xf32>
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
// MIX-LABEL: func.func @loop_handoffs
// MIX-SAME: ascend.kernel = #ascend.core<mix>
// MIX: ascend.core aic {
// MIX-NOT: #ascend.mem<ub>
// MIX: ascend.mmad
// MIX: ascend.fixpipe
// MIX: ascend.copy_nd2nz
// MIX: ascend.mmad
// MIX: ascend.core aiv {
// MIX-NOT: ascend.mmad
// MIX: ascend.vcast
// MIX: ascend.cross_core_set_flag mode 2, mte3, 2
func.func @loop_handoffs(%q: memref<32x32xf16>, %k: memref<4x32x32xf16>, %out: memref<32x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %bias = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %qs = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %ks = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %p = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %o = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %q[%c0, %c0], %qs[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.clear %o : memref<32x32xf32, #tile.scope<fragment>>
    tile.pipelined %i = %c1 to %n step %c1 num_stages = 2 {
      tile.copy %k[%i, %c0, %c0], %ks[%c0, %c0] sizes [1, 32, 32] : memref<4x32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.parallel (%a, %b) in (32, 32) {
        memref.store %bias, %s[%a, %b] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.gemm %qs, %ks, %s transpose_b : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.copy %s[%c0, %c0], %p[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<shared>>
      tile.parallel (%a, %b) in (32, 32) {
        %v = memref.load %o[%a, %b] : memref<32x32xf32, #tile.scope<fragment>>
        %w = arith.mulf %v, %half : f32
        memref.store %w, %o[%a, %b] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.gemm %p, %ks, %o : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %o[%c0, %c0], %out[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// The same loop with its own V tile: both cores are pipelined. With skew=1
// the AIC computes S for the first key tile before the loop and, in the
// loop, S(k+1) before it waits for P(k); the AIVs turn S(k+1) into P(k+1)
// before they take P(k) V(k), the output's rescale sunk next to that add and
// reading a shadow of the factor %r, copied at the top of the body before
// stage 1 of the next iteration overwrites it. The loop (its bound is an
// argument) and its first stages sit under one test that it runs at all. By
// default (SKEW) both cores run two iterations ahead: the first stage 1 and
// a guarded second one before the loop, stage 1 of k + 2 steps in it, and a
// chain of two shadows, shifted at the top of the body (and between the two
// first stages), stage 2 reading the older one.
// SKEW-LABEL: func.func @pipelined_handoffs
// SKEW: %[[LB:.*]] = arith.constant 1 : index
// SKEW: %[[RUNS:.*]] = arith.cmpi slt, %[[LB]], %[[N:[^ ]*]] : index
// SKEW-NEXT: scf.if %[[RUNS]] {
// SKEW-NOT: scf.if
// SKEW: tile.gemm {{.*}} transpose_b clear_accum
// SKEW: ascend.cross_core_set_flag mode 2, fix, 0
// SKEW: %[[SECOND:.*]] = arith.cmpi slt
// SKEW-NEXT: scf.if %[[SECOND]] {
// SKEW: tile.gemm {{.*}} transpose_b clear_accum
// SKEW: ascend.cross_core_set_flag mode 2, fix, 0
// SKEW: tile.pipelined %[[I:.*]] = %[[LB]] to %[[N]] step %[[STEP:[^ ]*]]
// SKEW-NEXT: %[[C2:.*]] = arith.constant 2 : index
// SKEW-NEXT: %[[TWO:.*]] = arith.muli %[[STEP]], %[[C2]] : index
// SKEW-NEXT: %[[AHEAD:.*]] = arith.addi %[[I]], %[[TWO]] : index
// SKEW-NEXT: arith.cmpi slt, %[[AHEAD]], %[[N]] : index
// SKEW: } {ascend.core_region = #ascend.core<aic>}
// SKEW: %[[NEWER:.*]] = tile.alloc : memref<16xf32, #tile.scope<ub>>
// SKEW: %[[OLDER:.*]] = tile.alloc : memref<16xf32, #tile.scope<ub>>
// SKEW: ascend.cross_core_set_flag mode 2, mte3, 2
// SKEW: tile.copy %[[NEWER]][%{{.*}}], %[[OLDER]][%{{.*}}]
// SKEW-NEXT: tile.copy %[[R:.*]][%{{.*}}], %[[NEWER]][%{{.*}}]
// SKEW: ascend.cross_core_set_flag mode 2, mte3, 2
// SKEW: tile.pipelined
// SKEW-NOT: scf.if
// SKEW: tile.copy %[[NEWER]][%{{.*}}], %[[OLDER]][%{{.*}}]
// SKEW-NEXT: tile.copy %[[R]][%{{.*}}], %[[NEWER]][%{{.*}}]
// SKEW: memref.store %{{.*}}, %[[R]]
// SKEW: ascend.cross_core_set_flag mode 2, mte3, 2
// SKEW: tile.parallel
// SKEW: memref.load %[[OLDER]]
// SKEW: ascend.cross_core_wait_flag 4, mte2
// SKEW: } {ascend.core_region = #ascend.core<aiv>}
// CHECK-LABEL: func.func @pipelined_handoffs
// CHECK: %[[LB:.*]] = arith.constant 1 : index
// CHECK: tile.kernel
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %[[LB]], %[[N:[^ ]*]] : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: tile.gemm {{.*}} transpose_b clear_accum
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK: tile.pipelined %[[I:.*]] = %[[LB]] to %[[N]] step %[[STEP:[^ ]*]]
// CHECK-NEXT: %[[NEXT:.*]] = arith.addi %[[I]], %[[STEP]] : index
// CHECK-NEXT: %[[MORE:.*]] = arith.cmpi slt, %[[NEXT]], %[[N]] : index
// CHECK-NEXT: scf.if %[[MORE]] {
// CHECK: tile.gemm {{.*}} transpose_b clear_accum
// CHECK: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK: }
// CHECK-NOT: tile.gemm
// CHECK: ascend.cross_core_wait_flag 2, mte2
// CHECK: tile.gemm
// CHECK: ascend.cross_core_set_flag mode 2, fix, 4
// CHECK: } {ascend.core_region = #ascend.core<aic>}
// CHECK: %[[SHADOW:.*]] = tile.alloc : memref<16xf32, #tile.scope<ub>>
// CHECK: %[[R:.*]] = tile.alloc : memref<16xf32, #tile.scope<ub>>
// CHECK: scf.if
// CHECK: ascend.cross_core_set_flag mode 2, mte3, 2
// CHECK: tile.pipelined
// CHECK-NOT: scf.if
// CHECK: tile.copy %[[R]][%{{.*}}], %[[SHADOW]][%{{.*}}]
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[R]]
// CHECK: ascend.cross_core_set_flag mode 2, mte3, 2
// CHECK: }
// CHECK: tile.parallel
// CHECK: memref.load %[[SHADOW]]
// CHECK: ascend.cross_core_wait_flag 4, mte2
// CHECK: } {ascend.core_region = #ascend.core<aiv>}
func.func @pipelined_handoffs(%q: memref<32x32xf16>, %k: memref<4x32x32xf16>, %out: memref<32x32xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %bias = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %qs = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %ks = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %vs = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %p = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %o = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %r = tile.alloc : memref<32xf32, #tile.scope<fragment>>
    tile.copy %q[%c0, %c0], %qs[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.clear %o : memref<32x32xf32, #tile.scope<fragment>>
    tile.pipelined %i = %c1 to %n step %c1 num_stages = 2 {
      tile.copy %k[%i, %c0, %c0], %ks[%c0, %c0] sizes [1, 32, 32] : memref<4x32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.parallel (%a, %b) in (32, 32) {
        memref.store %bias, %s[%a, %b] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.gemm %qs, %ks, %s transpose_b : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%a) in (32) {
        memref.store %half, %r[%a] : memref<32xf32, #tile.scope<fragment>>
      }
      tile.parallel (%a, %b) in (32, 32) {
        %v = memref.load %o[%a, %b] : memref<32x32xf32, #tile.scope<fragment>>
        %f = memref.load %r[%a] : memref<32xf32, #tile.scope<fragment>>
        %w = arith.mulf %v, %f : f32
        memref.store %w, %o[%a, %b] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.copy %s[%c0, %c0], %p[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<shared>>
      tile.copy %k[%i, %c0, %c0], %vs[%c0, %c0] sizes [1, 32, 32] : memref<4x32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.gemm %p, %vs, %o : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %o[%c0, %c0], %out[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}
