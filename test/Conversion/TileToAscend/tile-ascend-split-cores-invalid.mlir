// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --tile-ascend-split-cores \
// RUN:   --verify-diagnostics


// The AIVs split the accumulator by rows: it must be indexed by the rows of
// the epilogue's tile.parallel.
func.func @transposed_epilogue(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      // expected-error @+1 {{tile-ascend-split-cores: a tile handed between the cores must be indexed by the rows of its tile.parallel (not supported yet)}}
      %v = memref.load %acc[%j, %i] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %acc[%j, %i] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// A handoff under a condition only the vector cores can compute (it reads a
// tile that vector work writes): the cube would not know which way to go.
// (Conditions both compute run on both: tile-ascend-split-cores-conditions.mlir.)
func.func @handoff_in_a_vector_condition(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %flag = tile.alloc : memref<4xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.fill %flag, %two : memref<4xf32, #tile.scope<fragment>>, f32
    %f = memref.load %flag[%c0] : memref<4xf32, #tile.scope<fragment>>
    %p = arith.cmpf ogt, %f, %zero : f32
    // expected-error @+1 {{tile-ascend-split-cores: a tile is handed between the cores under this `if`, but its condition depends on a tile only the vector cores hold ('memref.load'): compute it from loop indices, scalars and tensors the kernel only reads, or hand the tile over outside the `if`}}
    scf.if %p {
      tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %r = arith.mulf %v, %two : f32
        memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
    }
  }
  return
}

// -----

// Twelve tiles handed over need twelve cross-core flags even with one id for
// both flags of each; the 910b has eleven (the ones ascend.sync_all uses are
// not among them), and handoffs in different loops cannot share one.
func.func @too_many_handoffs(%a: memref<32x32xf16>, %c: memref<12x32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %r = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %g0 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g1 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g2 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g3 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g4 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g5 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g6 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g7 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g8 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g9 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g10 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %g11 = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %r[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    scf.for %k0 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g0 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      // expected-error @+1 {{tile-ascend-split-cores: 12 tiles handed between the cores need 12 cross-core flags, more than the 11 there are (handoffs share flags only when consecutive, in one block, one way)}}
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g0[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g0[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i0 = arith.constant 0 : index
      tile.copy %g0[%c0, %c0], %c[%i0, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k1 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g1 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g1[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g1[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i1 = arith.constant 1 : index
      tile.copy %g1[%c0, %c0], %c[%i1, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k2 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g2 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g2[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i2 = arith.constant 2 : index
      tile.copy %g2[%c0, %c0], %c[%i2, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k3 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g3 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g3[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g3[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i3 = arith.constant 3 : index
      tile.copy %g3[%c0, %c0], %c[%i3, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k4 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g4 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g4[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g4[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i4 = arith.constant 4 : index
      tile.copy %g4[%c0, %c0], %c[%i4, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k5 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g5 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g5[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g5[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i5 = arith.constant 5 : index
      tile.copy %g5[%c0, %c0], %c[%i5, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k6 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g6 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g6[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g6[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i6 = arith.constant 6 : index
      tile.copy %g6[%c0, %c0], %c[%i6, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k7 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g7 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g7[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g7[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i7 = arith.constant 7 : index
      tile.copy %g7[%c0, %c0], %c[%i7, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k8 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g8 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g8[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g8[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i8 = arith.constant 8 : index
      tile.copy %g8[%c0, %c0], %c[%i8, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k9 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g9 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g9[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g9[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i9 = arith.constant 9 : index
      tile.copy %g9[%c0, %c0], %c[%i9, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k10 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g10 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g10[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g10[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i10 = arith.constant 10 : index
      tile.copy %g10[%c0, %c0], %c[%i10, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
    scf.for %k11 = %c0 to %c1 step %c1 {
      tile.gemm %l, %r, %g11 clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %g11[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
        %s = arith.mulf %v, %two : f32
        memref.store %s, %g11[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      }
      %i11 = arith.constant 11 : index
      tile.copy %g11[%c0, %c0], %c[%i11, %c0, %c0] sizes [1, 32, 32] : memref<32x32xf32, #tile.scope<fragment>>, memref<12x32x32xf32>
    }
  }
  return
}

// -----

// The vector cores read the accumulator again after the cube's next gemm onto
// it: they hold the copy handed to them before that gemm.
func.func @read_after_the_cube_changed_it(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %o = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      memref.store %v, %o[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.gemm %l, %l, %acc : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      // expected-error @+1 {{tile-ascend-split-cores: 'memref.load' reads on the vector cores an accumulator that the cube changed after handing it to them (not supported yet): read it before the cube's next gemm onto it, or gemm into a fresh accumulator}}
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %w = memref.load %o[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.addf %v, %w : f32
      memref.store %r, %c[%i, %j] : memref<32x32xf32>
    }
  }
  return
}

// -----

// A `while` whose condition reads an accumulator would hand it over in its
// condition region, which runs once more than the body the trips count.
func.func @handoff_in_a_while_condition(%a: memref<32x32xf16>, %n: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    scf.while : () -> () {
      tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
      // expected-error @+1 {{tile-ascend-split-cores: a tile handed between the cores must not be handed in the condition of a `while` (not supported yet): compute the condition from scalars and tensors the kernel only reads, and use the tile in the loop's body}}
      %v = memref.load %acc[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>
      %more = arith.cmpf olt, %v, %n : f32
      scf.condition(%more)
    } do {
      scf.yield
    }
  }
  return
}
