// RUN: tile-opt %s -split-input-file --tile-cpu-expand-exp | filecheck %s

// f32 exp: clamp, Cody-Waite reduction with floor and two fmas, the
// polynomial as an fma chain, the scale from exponent bits in two steps,
// and NaN passed through.
// CHECK-LABEL: func.func @exp_f32
// CHECK-SAME: (%[[X:.*]]: f32)
// CHECK: %[[LO:.*]] = arith.maxnumf %[[X]], %{{.*}} : f32
// CHECK: %[[C:.*]] = arith.minnumf %[[LO]], %{{.*}} : f32
// CHECK: %[[N:.*]] = math.floor %{{.*}} : f32
// CHECK: %[[NEG:.*]] = arith.negf %[[N]] : f32
// CHECK: %[[R1:.*]] = math.fma %[[NEG]], %{{.*}}, %[[C]] : f32
// CHECK: %[[R:.*]] = math.fma %[[NEG]], %{{.*}}, %[[R1]] : f32
// CHECK: %[[E:.*]] = arith.fptosi %[[N]] : f32 to i32
// CHECK: %[[BITS:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[NAN:.*]] = arith.cmpf uno, %[[X]], %[[X]] : f32
// CHECK: %[[Y:.*]] = arith.select %[[NAN]], %[[X]], %{{.*}} : f32
// CHECK: return %[[Y]] : f32
// CHECK-NOT: math.exp
func.func @exp_f32(%x: f32) -> f32 {
  %y = math.exp %x : f32
  return %y : f32
}

// -----

// exp2 of a vector: the same code on vector<8xf32>.
// CHECK-LABEL: func.func @exp2_vector
// CHECK: math.floor %{{.*}} : vector<8xf32>
// CHECK: arith.fptosi %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK-NOT: math.exp2
func.func @exp2_vector(%x: vector<8xf32>) -> vector<8xf32> {
  %y = math.exp2 %x : vector<8xf32>
  return %y : vector<8xf32>
}

// -----

// f16 goes through f32; f64 keeps libm's exp.
// CHECK-LABEL: func.func @exp_f16_and_f64
// CHECK-SAME: (%[[H:.*]]: f16, %[[D:.*]]: f64)
// CHECK: %[[W:.*]] = arith.extf %[[H]] : f16 to f32
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %[[W]], %{{.*}} : f32
// CHECK: arith.truncf %[[S]] : f32 to f16
// CHECK: math.exp %[[D]] : f64
func.func @exp_f16_and_f64(%h: f16, %d: f64) -> (f16, f64) {
  %a = math.exp %h : f16
  %b = math.exp %d : f64
  return %a, %b : f16, f64
}
