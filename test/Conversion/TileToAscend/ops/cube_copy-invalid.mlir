// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend --verify-diagnostics

// Nothing multiplied into the accumulator since its clear: zeros that L0C
// cannot produce without an mmad.
func.func @copy_out_of_a_cleared_accumulator(%C: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
    // expected-error @+1 {{the accumulator is copied out while it may still hold the zeros of its tile.clear (no tile.gemm wrote it since)}}
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
  }
  return
}

// -----

func.func @part_of_an_accumulator(%C: memref<64x64xf32>, %A: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<64x64xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x64xf16>, memref<64x64xf16, #tile.scope<l1>>
    tile.gemm %a, %a, %acc clear_accum : memref<64x64xf16, #tile.scope<l1>>, memref<64x64xf16, #tile.scope<l1>>, memref<64x64xf32, #tile.scope<l0c>>
    // expected-error @+1 {{a copy of 16x64 elements into or out of a 64x64 l0c tile: cube copies move whole tiles (only one from GM into L1 may move a smaller region)}}
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] sizes [16, 64] : memref<64x64xf32, #tile.scope<l0c>>, memref<64x64xf32>
  }
  return
}

// -----

// A copy of fewer rows than the L1 tile zeros the rest of it; here another
// copy writes all of the tile first, whose rows tile.copy would keep.
func.func @part_over_a_whole_l1_tile(%A: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<l1>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x64xf16>, memref<64x32xf16, #tile.scope<l1>>
    // expected-error @+1 {{a copy of 16x32 elements into a 64x32 L1 tile that another op writes (64x32}}
    tile.copy %A[%c0, %c0], %a[%c0, %c0] sizes [16, 32] : memref<64x64xf16>, memref<64x32xf16, #tile.scope<l1>>
  }
  return
}

// -----

// The same, the smaller copy first: it is checked against the later one.
func.func @whole_after_part_of_an_l1_tile(%A: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<l1>>
    // expected-error @+1 {{a copy of 25x32 elements into a 64x32 L1 tile that another op writes (64x32}}
    tile.copy %A[%c0, %c0], %a[%c0, %c0] sizes [25, 32] : memref<64x64xf16>, memref<64x32xf16, #tile.scope<l1>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x64xf16>, memref<64x32xf16, #tile.scope<l1>>
  }
  return
}

// -----

// Cube tiles are matrices.
func.func @three_dimensional_l1_tile(%A: memref<2x64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<2x64x32xf16, #tile.scope<l1>>
    // expected-error @+1 {{a cube tile is a matrix: this l1 tile is 2x64x32 (rank 3), not rows x cols}}
    tile.copy %A[%c0, %c0, %c0], %a[%c0, %c0, %c0] : memref<2x64x32xf16>, memref<2x64x32xf16, #tile.scope<l1>>
  }
  return
}

// -----

func.func @nonzero_pad(%A: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f16
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<l1>>
    // expected-error @+1 {{copies into L1 pad with zero only}}
    tile.copy %A[%c0, %c0], %a[%c0, %c0] pad(%one : f16) : memref<64x64xf16>, memref<64x32xf16, #tile.scope<l1>>
  }
  return
}

// -----

func.func @conversion_into_l1(%A: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<l1>>
    // expected-error @+1 {{a copy into L1 does not convert: f32 -> f16}}
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x64xf32>, memref<64x32xf16, #tile.scope<l1>>
  }
  return
}

// -----

func.func @fixpipe_cast(%C: memref<32x32xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x32xi8, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xi32, #tile.scope<l0c>>
    tile.gemm %a, %a, %acc clear_accum : memref<32x32xi8, #tile.scope<l1>>, memref<32x32xi8, #tile.scope<l1>>, memref<32x32xi32, #tile.scope<l0c>>
    // expected-error @+1 {{the fixpipe cannot store an i32 accumulator as i8 (it stores i32, f16)}}
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<32x32xi32, #tile.scope<l0c>>, memref<32x32xi8>
  }
  return
}

// -----

func.func @accumulator_to_ub() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    %u = tile.alloc : memref<32x32xf32, #tile.scope<ub>>
    tile.gemm %a, %a, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    // expected-error @+1 {{a copy l0c -> ub between the cube and a vector core: the kernel needs both cube and vector cores (mixed kernels are not supported yet)}}
    tile.copy %acc[%c0, %c0], %u[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32, #tile.scope<ub>>
  }
  return
}

// -----

func.func @fill_of_l1() {
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f16
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    // expected-error @+1 {{a fill of an l1 tile is not supported: the cube fills only its L0C accumulator, with zero}}
    tile.fill %a, %v : memref<32x32xf16, #tile.scope<l1>>, f16
  }
  return
}

// -----

func.func @nonzero_fill_of_l0c() {
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    // expected-error @+1 {{an L0C accumulator can only be filled with zero (it becomes the init of the next ascend.mmad)}}
    tile.fill %acc, %v : memref<32x32xf32, #tile.scope<l0c>>, f32
  }
  return
}

// -----

func.func @copy_out_of_part_of_l0c(%C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.gemm %a, %a, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    // expected-error @+1 {{a copy out of L0C starts at the tile's first element}}
    tile.copy %acc[%c16, %c0], %C[%c0, %c0] sizes [32, 32] : memref<32x32xf32, #tile.scope<l0c>>, memref<64x64xf32>
  }
  return
}

// -----

func.func @l0a_load_at_an_offset() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %a0 = tile.alloc : memref<32x32xf16, #tile.scope<l0a>>
    // expected-error @+1 {{a copy from L1 to L0A or L0B moves whole tiles}}
    tile.copy %a1[%c16, %c0], %a0[%c0, %c0] sizes [32, 32] : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l0a>>
  }
  return
}

// -----

func.func @copy_into_l1_at_an_offset(%A: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    // expected-error @+1 {{a copy into L1 starts at the tile's first element or at one of its rows (the whole width, in the Nz layout)}}
    tile.copy %A[%c0, %c0], %a[%c0, %c16] sizes [32, 16] : memref<64x64xf16>, memref<32x32xf16, #tile.scope<l1>>
  }
  return
}
