// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles \
// RUN:   --tile-ascend-split-cores="slots=3" | filecheck %s --check-prefix=SLOTS
// RUN: tile-opt %s -split-input-file --tile-to-ascend="profile=910b" | filecheck %s --check-prefix=MIX

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
