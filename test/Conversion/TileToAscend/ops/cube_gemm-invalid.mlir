// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend --verify-diagnostics

// 1040 rows of f32 take 66560 bytes of L0A for the shallowest K step (16).
func.func @operand_does_not_fit_l0a() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<1040x16xf32, #tile.scope<l1>>
    %b = tile.alloc : memref<16x16xf32, #tile.scope<l1>>
    %acc = tile.alloc : memref<1040x16xf32, #tile.scope<l0c>>
    // expected-error @+1 {{tile.gemm operands of 1040x16 (f32) do not fit the cube: one 16-deep step needs 66560 bytes of L0A and 1024 of L0B, the 910b has 65536 and 65536}}
    tile.gemm %a, %b, %acc clear_accum : memref<1040x16xf32, #tile.scope<l1>>, memref<16x16xf32, #tile.scope<l1>>, memref<1040x16xf32, #tile.scope<l0c>>
  }
  return
}

// -----

func.func @accumulator_does_not_fit_l0c() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<256x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x256xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<256x256xf32, #tile.scope<l0c>>
    // expected-error @+1 {{the 256x256 accumulator needs 262144 bytes of L0C, the 910b has 131072}}
    tile.gemm %a, %b, %acc clear_accum : memref<256x16xf16, #tile.scope<l1>>, memref<16x256xf16, #tile.scope<l1>>, memref<256x256xf32, #tile.scope<l0c>>
  }
  return
}

// -----

func.func @f16_accumulator() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf16, #tile.scope<l0c>>
    // expected-error @+1 {{the cube of the 910b profile has no f16 -> f16 mode (it has f16 -> f32, bf16 -> f32, f32 -> f32, i8 -> i32)}}
    tile.gemm %a, %b, %acc clear_accum : memref<32x16xf16, #tile.scope<l1>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l0c>>
  }
  return
}

// -----

// Which iteration's mmad overwrites? One after an iteration of the inner loop
// that cleared: the clear is too deep for a condition of the outer one.
func.func @clear_after_the_gemm_in_an_inner_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %i = %c0 to %n step %c1 {
      tile.gemm %a, %b, %acc : memref<32x16xf16, #tile.scope<l1>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      // expected-error @+1 {{a clear of the accumulator in here, after its tile.gemm in the loop, is not supported: clear it in the loop's body or under an `if` there}}
      scf.for %j = %c0 to %n step %c1 {
        tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
      }
    }
  }
  return
}

// -----

// The previous iteration's clear under a condition read from memory: the
// condition cannot be recomputed for it.
func.func @clear_after_the_gemm_on_a_loaded_condition(%n: index, %mask: memref<8xi1>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %i = %c0 to %n step %c1 {
      tile.gemm %a, %b, %acc : memref<32x16xf16, #tile.scope<l1>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      // expected-error @+1 {{the condition of the clear after the tile.gemm must be computed from the loop counter, not by 'memref.load'}}
      %m = memref.load %mask[%i] : memref<8xi1>
      scf.if %m {
        tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
      }
    }
  }
  return
}

// -----

func.func @clear_under_a_condition(%flag: i1) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    // expected-error @+1 {{cannot tell which tile.gemm first writes the accumulator cleared in here: clear it in the block of the gemm or in a block around it}}
    scf.if %flag {
      tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
    }
    tile.gemm %a, %b, %acc : memref<32x16xf16, #tile.scope<l1>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
  }
  return
}

// -----

func.func @transposed_l0a_operand() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<16x32xf16, #tile.scope<l0a>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    // expected-error @+1 {{an operand in l0a is multiplied as it is: transpose_a needs it in l1}}
    tile.gemm %a, %b, %acc transpose_a clear_accum : memref<16x32xf16, #tile.scope<l0a>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
  }
  return
}

// -----

// A in L0A holds K = 512 (f16, 16 KiB): B's L0B buffer for all of it would take 128 KiB.
func.func @l0a_operand_too_deep_for_l0b() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<16x512xf16, #tile.scope<l0a>>
    %b = tile.alloc : memref<512x128xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<16x128xf32, #tile.scope<l0c>>
    // expected-error @+1 {{an operand in l0a holds all 512 of K, which the L0 buffer of the other operand cannot}}
    tile.gemm %a, %b, %acc clear_accum : memref<16x512xf16, #tile.scope<l0a>>, memref<512x128xf16, #tile.scope<l1>>, memref<16x128xf32, #tile.scope<l0c>>
  }
  return
}

// -----

// The first iteration skips the gemm: its first mmad is not the first iteration's.
func.func @conditional_gemm_in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %i = %c0 to %n step %c1 {
      %later = arith.cmpi ugt, %i, %c0 : index
      // expected-error @+1 {{a tile.gemm under a condition in a loop after the clear of its accumulator is not supported in l0c: leave the accumulator a fragment (the vector cores then add each product onto it)}}
      scf.if %later {
        tile.gemm %a, %b, %acc : memref<32x16xf16, #tile.scope<l1>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      }
    }
  }
  return
}
