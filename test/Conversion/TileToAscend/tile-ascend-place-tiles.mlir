// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles | filecheck %s

// The operands of tile.gemm go to L1 and its accumulator to L0C; the shared
// tile of the epilogue is folded: the copy out reads the accumulator.
// CHECK-LABEL: func.func @gemm_epilogue
// CHECK-SAME: (%[[A:.*]]: memref<100x70xf16>, %[[B:.*]]: memref<70x130xf16>, %[[C:.*]]: memref<100x130xf16>)
// CHECK: %[[TA:.*]] = tile.alloc : memref<64x32xf16, #tile.scope<l1>>
// CHECK: %[[TB:.*]] = tile.alloc : memref<32x64xf16, #tile.scope<l1>>
// CHECK: %[[ACC:.*]] = tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
// CHECK-NOT: tile.alloc
// CHECK: tile.clear %[[ACC]] : memref<64x64xf32, #tile.scope<l0c>>
// CHECK: tile.copy %[[A]][{{.*}}], %[[TA]][{{.*}}] : memref<100x70xf16>, memref<64x32xf16, #tile.scope<l1>>
// CHECK: tile.gemm %[[TA]], %[[TB]], %[[ACC]] :
// CHECK-NOT: tile.copy %[[ACC]][{{.*}}], %{{.*}} : {{.*}}#tile.scope<shared>
// CHECK: tile.copy %[[ACC]][%{{.*}}, %{{.*}}], %[[C]][%{{.*}}, %{{.*}}] : memref<64x64xf32, #tile.scope<l0c>>, memref<100x130xf16>
func.func @gemm_epilogue(%A: memref<100x70xf16>, %B: memref<70x130xf16>, %C: memref<100x130xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  tile.kernel blocks(%bx, %by) in (%c3, %c3) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    %out = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
    tile.clear %acc : memref<64x64xf32, #tile.scope<fragment>>
    tile.pipelined %k = %c0 to %c3 step %c1 num_stages = 2 {
      tile.copy %A[%bx, %k], %a[%c0, %c0] : memref<100x70xf16>, memref<64x32xf16, #tile.scope<shared>>
      tile.copy %B[%k, %by], %b[%c0, %c0] : memref<70x130xf16>, memref<32x64xf16, #tile.scope<shared>>
      tile.gemm %a, %b, %acc : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %out[%c0, %c0] : memref<64x64xf32, #tile.scope<fragment>>, memref<64x64xf16, #tile.scope<shared>>
    tile.copy %out[%c0, %c0], %C[%bx, %by] : memref<64x64xf16, #tile.scope<shared>>, memref<100x130xf16>
  }
  return
}

// -----

// A tile that only vector code uses lives in UB; explicit Ascend scopes stay.
// CHECK-LABEL: func.func @vector_only
// CHECK: tile.alloc : memref<64xf32, #tile.scope<ub>>
// CHECK: tile.alloc : memref<32xf32, #tile.scope<ub>>
func.func @vector_only(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c4) threads = 128 {
    %t = tile.alloc : memref<64xf32, #tile.scope<fragment>>
    %u = tile.alloc : memref<32xf32, #tile.scope<ub>>
    tile.copy %x[%bx], %t[%c0] : memref<?xf32>, memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i) in (64) {
      %v = memref.load %t[%i] : memref<64xf32, #tile.scope<fragment>>
      %w = arith.addf %v, %v : f32
      memref.store %w, %t[%i] : memref<64xf32, #tile.scope<fragment>>
    }
    tile.copy %t[%c0], %x[%bx] : memref<64xf32, #tile.scope<fragment>>, memref<?xf32>
    tile.copy %u[%c0], %x[%bx] : memref<32xf32, #tile.scope<ub>>, memref<?xf32>
  }
  return
}

// -----

// Tiles the kernel already places stay where they are.
// CHECK-LABEL: func.func @explicit_scopes
// CHECK: tile.alloc : memref<32x32xf16, #tile.scope<l1>>
// CHECK: tile.alloc : memref<32x32xf16, #tile.scope<l1>>
// CHECK: tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
func.func @explicit_scopes(%a: memref<4x32x32xf16>, %c: memref<4x32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bz) in (%c4) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %r = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %a[%bz, %c0, %c0], %l[%c0, %c0] sizes [1, 32, 32] : memref<4x32x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.copy %a[%bz, %c0, %c0], %r[%c0, %c0] sizes [1, 32, 32] : memref<4x32x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.gemm %l, %r, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %c[%bz, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<l0c>>, memref<4x32x32xf32>
  }
  return
}

// -----

// A ReLU of the accumulator right before its copies out is the fixpipe's:
// the element-wise region goes, the copies (also the folded epilogue's) say so.
// CHECK-LABEL: func.func @relu_epilogue
// CHECK-NOT: tile.parallel
// CHECK: tile.copy %[[ACC:.*]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] {ascend.relu} : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
// CHECK: tile.copy %[[ACC]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] {ascend.relu} : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf16>
func.func @relu_epilogue(%a: memref<32x32xf16>, %c: memref<32x32xf32>, %d: memref<32x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %s = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.maximumf %zero, %v : f32
      memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
    tile.copy %acc[%c0, %c0], %s[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<shared>>
    tile.copy %s[%c0, %c0], %d[%c0, %c0] : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16>
  }
  return
}

// -----

// `T.copy(acc, C, enable_relu=True)` traces a ReLU into a tile of its own that
// only copies out read: they read the accumulator with the fixpipe's ReLU, the
// tile and its region go, and the kernel (an expert one: placed tiles) stays on
// the cube. The accumulator itself keeps its values.
// CHECK-LABEL: func.func @relu_copy_out
// CHECK-NOT: tile.parallel
// CHECK: %[[ACC:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK-NOT: tile.alloc
// CHECK: tile.copy %[[ACC]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] {ascend.relu} : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
// CHECK: tile.copy %[[ACC]][%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
func.func @relu_copy_out(%a: memref<32x32xf16>, %c: memref<32x32xf32>, %d: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    %r = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<l0c>>
      %m = arith.maximumf %v, %zero : f32
      memref.store %m, %r[%i, %j] : memref<32x32xf32, #tile.scope<l0c>>
    }
    tile.copy %r[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
    tile.copy %acc[%c0, %c0], %d[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
  }
  return
}

// -----

// Vector work writes %s before a gemm accumulates onto it (a mask): the
// gemm writes a fresh L0C accumulator (cleared) and an element-wise add puts
// it onto %s, which lives in UB. %acc is only read by vector work after its
// gemm: it stays the gemm's accumulator in L0C.
// CHECK-LABEL: func.func @gemm_onto_vector_results
// CHECK: %[[FRESH:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: %[[S:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
// CHECK: %[[ACC:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: tile.parallel
// CHECK: memref.store %{{.*}}, %[[S]]
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[FRESH]] clear_accum
// CHECK-NEXT: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 32) {
// CHECK-NEXT: %[[OLD:.*]] = memref.load %[[S]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[NEW:.*]] = memref.load %[[FRESH]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[OLD]], %[[NEW]] : f32
// CHECK-NEXT: memref.store %[[SUM]], %[[S]][%[[I]], %[[J]]]
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[ACC]] clear_accum
func.func @gemm_onto_vector_results(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %minus = arith.constant -1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.parallel (%i, %j) in (32, 32) {
      memref.store %minus, %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.gemm %l, %l, %s : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %x = memref.load %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %y = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %z = arith.mulf %x, %y : f32
      memref.store %z, %s[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %s[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// A mask the key loop's bounds decide (4 tiles of 32 columns, bound 128):
// the fill is all zeros, so the gemm clears its accumulator and the fresh
// one is copied onto %s, not added.
// CHECK-LABEL: func.func @decided_mask_before_gemm
// CHECK: %[[FRESH:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: %[[S:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
// CHECK: tile.pipelined
// CHECK-NOT: tile.parallel
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[FRESH]] transpose_b clear_accum
// CHECK: tile.copy %[[FRESH]][%{{.*}}, %{{.*}}], %[[S]][%{{.*}}, %{{.*}}]
// CHECK-NOT: arith.addf
// CHECK: tile.parallel
// CHECK: math.exp
func.func @decided_mask_before_gemm(%a: memref<32x128xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %q = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %k = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %q[%c0, %c0] sizes [32, 32] : memref<32x128xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.pipelined %t = %c0 to %c4 step %c1 num_stages = 1 {
      %col = arith.muli %t, %c32 : index
      tile.copy %a[%c0, %col], %k[%c0, %c0] sizes [32, 32] : memref<32x128xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.parallel (%i, %j) in (32, 32) {
        %key = arith.addi %col, %j : index
        %in = arith.cmpi slt, %key, %c128 : index
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

// Block-sparse GEMM: the gemm is under a condition in the K loop after the
// clear, so which of its runs comes first (if any does) is known at run time,
// and L0C cannot be zeroed without an mmad. The accumulator is zeroed by a
// vector fill in UB; each gemm writes a fresh L0C accumulator (cleared) that
// an element-wise add puts onto it.
// CHECK-LABEL: func.func @conditional_gemm_after_the_clear
// CHECK: %[[FRESH:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK: %[[ACC:.*]] = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
// CHECK: tile.clear %[[ACC]]
// CHECK: scf.for
// CHECK: scf.if
// CHECK: tile.gemm %{{.*}}, %{{.*}}, %[[FRESH]] clear_accum
// CHECK-NEXT: tile.parallel (%[[I:.*]], %[[J:.*]]) in (32, 32) {
// CHECK-NEXT: %[[OLD:.*]] = memref.load %[[ACC]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[NEW:.*]] = memref.load %[[FRESH]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[OLD]], %[[NEW]] : f32
// CHECK-NEXT: memref.store %[[SUM]], %[[ACC]][%[[I]], %[[J]]]
func.func @conditional_gemm_after_the_clear(%a: memref<32x64xf16>, %b: memref<64x32xf16>,
                                            %mask: memref<4xi1>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x16xf16, #tile.scope<shared>>
    %r = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.clear %acc : memref<32x32xf32, #tile.scope<fragment>>
    scf.for %k = %c0 to %c4 step %c1 {
      %m = memref.load %mask[%k] : memref<4xi1>
      scf.if %m {
        %off = arith.muli %k, %c16 : index
        tile.copy %a[%c0, %off], %l[%c0, %c0] : memref<32x64xf16>, memref<32x16xf16, #tile.scope<shared>>
        tile.copy %b[%off, %c0], %r[%c0, %c0] : memref<64x32xf16>, memref<16x32xf16, #tile.scope<shared>>
        tile.gemm %l, %r, %acc : memref<32x16xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      }
    }
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}
