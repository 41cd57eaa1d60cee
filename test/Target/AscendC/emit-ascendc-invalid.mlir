// RUN: tile-opt %s -split-input-file --emit=ascendc --verify-diagnostics

// AscendC views every tile at its planned offset: ascend IR that did not go
// through tile-ascend-plan-memory has none.
func.func @unplanned() attributes {ascend.kernel = #ascend.core<aiv>} {
  // expected-error @+1 {{on-chip buffer without a planned offset (run tile-ascend-plan-memory before emitting AscendC)}}
  %x = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.vunary exp %x, %x : memref<64xf32, #ascend.mem<ub>>
  return
}

// -----

// A flag between two pipes that AscendC has no HardEvent for.
func.func @no_hard_event() attributes {ascend.kernel = #ascend.core<aic>} {
  // expected-error @+1 {{AscendC has no HardEvent for a flag from S to M}}
  ascend.set_flag s -> m, 0
  ascend.wait_flag s -> m, 0
  return
}

// -----

// LoadData2D transposes 16-bit fractals only: an f32 operand that needs a
// transpose on the way to L0B out of an Nz L1 tile has no call (the cube
// lowering keeps such operands out of Nz where their tiles are whole squares).
func.func @f32_transpose() attributes {ascend.kernel = #ascend.core<aic>} {
  %l1 = memref.alloc() {ascend.offset = 0 : i64} : memref<8x1x16x8xf32, #ascend.mem<l1>>
  %l0b = memref.alloc() {ascend.offset = 0 : i64} : memref<2x4x16x8xf32, #ascend.mem<l0b>>
  // expected-error @+1 {{LoadData2D transposes only 16-bit fractals, not f32}}
  ascend.load_l0b %l1, %l0b sizes [16, 64] : memref<8x1x16x8xf32, #ascend.mem<l1>>, memref<2x4x16x8xf32, #ascend.mem<l0b>>
  return
}

// -----

// The Nz of a transpose is a Dn2Nz copy, which only arch 3510 (the 950) has.
func.func @dn2nz_on_the_910b(%b: memref<64x64xf32, #ascend.mem<gm>>) attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() {ascend.offset = 0 : i64} : memref<4x4x16x8xf32, #ascend.mem<l1>>
  // expected-error @+1 {{the Nz of a transpose (DataCopy with Dn2NzParams) exists on arch 3510 only, not on the 910b}}
  ascend.copy_nd2nz %b[%c0, %c0], %l1 sizes [32, 64] {transpose} : memref<64x64xf32, #ascend.mem<gm>>, memref<4x4x16x8xf32, #ascend.mem<l1>>
  return
}

// -----

// LoadDataWithTranspose of f32 joins two fractals side by side: a Zz tile one
// fractal (8 columns) wide has no square.
func.func @zz_without_squares() attributes {ascend.kernel = #ascend.core<aic>} {
  %l1 = memref.alloc() {ascend.offset = 0 : i64} : memref<2x1x16x8xf32, #ascend.mem<l1>>
  %l0b = memref.alloc() {ascend.offset = 0 : i64} : memref<4x1x16x8xf32, #ascend.mem<l0b>>
  // expected-error @+1 {{LoadDataWithTranspose moves 16x16 squares of 32-bit elements: a Zz L1 tile of 2 x 1 fractals does not give the 4 x 1 fractals of L0B in whole squares}}
  ascend.load_l0b %l1, %l0b {zz} sizes [32, 8] : memref<2x1x16x8xf32, #ascend.mem<l1>>, memref<4x1x16x8xf32, #ascend.mem<l0b>>
  return
}

// -----

// The vendor's Cast converts fp8 from and to f32 only (the lowering goes
// through an f32 scratch for the other types).
func.func @f16_to_fp8() attributes {ascend.kernel = #ascend.core<aiv>} {
  %h = memref.alloc() {ascend.offset = 0 : i64} : memref<64xf16, #ascend.mem<ub>>
  %q = memref.alloc() {ascend.offset = 128 : i64} : memref<64xf8E4M3FN, #ascend.mem<ub>>
  // expected-error @+1 {{AscendC's Cast converts fp8 from and to f32 only, not f16 to f8E4M3FN}}
  ascend.vcast %q, %h round rint : memref<64xf8E4M3FN, #ascend.mem<ub>>, memref<64xf16, #ascend.mem<ub>>
  return
}

// -----

// A type AscendC code has no name for is a located error, not a lookup that
// fails inside the emitter (found by fuzzing lowered IR).
// expected-error @+1 {{AscendC has no type for the kernel argument type f64}}
func.func @f64_argument(%x: f64) attributes {ascend.kernel = #ascend.core<aiv>} {
  return
}

// -----

func.func @f64_value() attributes {ascend.kernel = #ascend.core<aiv>} {
  // expected-error @+1 {{AscendC has no type for f64}}
  %x = arith.constant 1.0 : f64
  return
}

// -----

func.func @dim_past_rank(%a: memref<16xf32, #ascend.mem<gm>>) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c3 = arith.constant 3 : index
  // expected-error @+1 {{memref.dim of dimension 3 of a rank-1 memref}}
  %d = memref.dim %a, %c3 : memref<16xf32, #ascend.mem<gm>>
  return
}
