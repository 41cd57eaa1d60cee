// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend --verify-diagnostics

// The store path adds only f32, f16, bf16, i32, i16 and i8 atomically.
func.func @atomic_add_f64(%t: memref<16xf64, #tile.scope<ub>>, %out: memref<?xf64>, %i: index) {
  // expected-error @+1 {{the NPU adds f32, f16, bf16, i32, i16 and i8 atomically, not f64: no ascend lowering of an atomic add into memref<?xf64>}}
  tile.atomic_add %t, %out[%i] : memref<16xf64, #tile.scope<ub>>, memref<?xf64>
  return
}

// -----

func.func @atomic_add_i64_scalar(%out: memref<?xi64>, %i: index, %v: i64) {
  // expected-error @+1 {{the NPU adds f32, f16, bf16, i32, i16 and i8 atomically, not i64}}
  tile.atomic_add %v, %out[%i] : i64, memref<?xi64>
  return
}

// -----

// An L0C accumulator would be added by the fixpipe's atomic mode, not lowered yet.
func.func @atomic_add_from_l0c(%acc: memref<16x16xf32, #tile.scope<l0c>>, %out: memref<?x?xf32>, %i: index) {
  // expected-error @+1 {{candidates: ascend-vector-atomic-add (the addend is in the cube buffer l0c)}}
  tile.atomic_add %acc, %out[%i, %i] : memref<16x16xf32, #tile.scope<l0c>>, memref<?x?xf32>
  return
}

// -----

func.func @atomic_add_into_ub(%t: memref<16xf32, #tile.scope<ub>>, %u: memref<16xf32, #tile.scope<ub>>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{candidates: ascend-vector-atomic-add (the destination is in the on-chip buffer ub, not in global memory)}}
  tile.atomic_add %t, %u[%c0] : memref<16xf32, #tile.scope<ub>>, memref<16xf32, #tile.scope<ub>>
  return
}
