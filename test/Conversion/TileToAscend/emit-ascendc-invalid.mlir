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
// transpose on the way to L0B has no call here yet.
func.func @f32_transpose() attributes {ascend.kernel = #ascend.core<aic>} {
  %l1 = memref.alloc() {ascend.offset = 0 : i64} : memref<8x1x16x8xf32, #ascend.mem<l1>>
  %l0b = memref.alloc() {ascend.offset = 0 : i64} : memref<2x4x16x8xf32, #ascend.mem<l0b>>
  // expected-error @+1 {{LoadData2D transposes only 16-bit fractals, not f32}}
  ascend.load_l0b %l1, %l0b sizes [16, 64] : memref<8x1x16x8xf32, #ascend.mem<l1>>, memref<2x4x16x8xf32, #ascend.mem<l0b>>
  return
}
