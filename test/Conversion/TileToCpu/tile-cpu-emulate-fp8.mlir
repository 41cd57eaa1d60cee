// RUN: tile-opt %s -split-input-file --tile-cpu-emulate-fp8 | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-cpu-emulate-fp8 --canonicalize | filecheck %s --check-prefix=FOLD

// f8 memrefs hold bytes; an extf decodes them exactly in i32: a normal
// number's exponent is rebiased (e4m3fn: 3 mantissa bits, bias 7), a
// subnormal is magnitude * 2^-9 by one exact subtraction of 2^14, and the
// magnitude 0x7F is NaN; the sign is or'ed back.
// CHECK-LABEL: func.func @decode_e4m3fn
// CHECK-SAME: (%[[T:.*]]: memref<32xi8>, %[[I:.*]]: index) -> vector<32xf32>
// CHECK: %[[X:.*]] = vector.load %[[T]][%[[I]]] : memref<32xi8>, vector<32xi8>
// CHECK: %[[U:.*]] = arith.extui %[[X]] : vector<32xi8> to vector<32xi32>
// CHECK: %[[SIGN_BIT:.*]] = arith.andi %[[U]], %{{.*}} : vector<32xi32>
// CHECK: %[[SIGN:.*]] = arith.shli %[[SIGN_BIT]], %{{.*}} : vector<32xi32>
// CHECK: %[[C127:.*]] = arith.constant dense<127> : vector<32xi32>
// CHECK: %[[MAG:.*]] = arith.andi %[[U]], %[[C127]] : vector<32xi32>
// CHECK: %[[REBIAS:.*]] = arith.constant dense<1006632960> : vector<32xi32>
// CHECK: %[[C20:.*]] = arith.constant dense<20> : vector<32xi32>
// CHECK: %[[SHIFTED:.*]] = arith.shli %[[MAG]], %[[C20]] : vector<32xi32>
// CHECK: %[[NORMAL:.*]] = arith.addi %[[SHIFTED]], %[[REBIAS]] : vector<32xi32>
// CHECK: %[[MAGIC:.*]] = arith.constant dense<1.638400e+04> : vector<32xf32>
// CHECK: %[[COUNTED:.*]] = arith.addi %[[MAG]], %{{.*}} : vector<32xi32>
// CHECK: %[[F:.*]] = arith.bitcast %[[COUNTED]] : vector<32xi32> to vector<32xf32>
// CHECK: %[[SCALED:.*]] = arith.subf %[[F]], %[[MAGIC]] : vector<32xf32>
// CHECK: %[[SUB:.*]] = arith.bitcast %[[SCALED]] : vector<32xf32> to vector<32xi32>
// CHECK: %[[IS_SUB:.*]] = arith.cmpi ult, %[[MAG]], %{{.*}} : vector<32xi32>
// CHECK: %[[BITS:.*]] = arith.select %[[IS_SUB]], %[[SUB]], %[[NORMAL]]
// CHECK: %[[IS_NAN:.*]] = arith.cmpi uge, %[[MAG]], %{{.*}} : vector<32xi32>
// CHECK: %[[NAN:.*]] = arith.constant dense<2143289344> : vector<32xi32>
// CHECK: %[[ALL:.*]] = arith.select %[[IS_NAN]], %[[NAN]], %[[BITS]]
// CHECK: %[[SIGNED:.*]] = arith.ori %[[ALL]], %[[SIGN]] : vector<32xi32>
// CHECK: %[[Y:.*]] = arith.bitcast %[[SIGNED]] : vector<32xi32> to vector<32xf32>
// CHECK: return %[[Y]] : vector<32xf32>
// CHECK-NOT: f8E4M3FN
func.func @decode_e4m3fn(%t: memref<32xf8E4M3FN>, %i: index) -> vector<32xf32> {
  %x = vector.load %t[%i] : memref<32xf8E4M3FN>, vector<32xf8E4M3FN>
  %y = arith.extf %x : vector<32xf8E4M3FN> to vector<32xf32>
  return %y : vector<32xf32>
}

// -----

// e5m2 has inf (magnitude 0x7C) and NaNs from 0x7D; an extf to f16 goes
// through the exact f32.
// CHECK-LABEL: func.func @decode_e5m2_to_f16
// CHECK-SAME: (%[[X:.*]]: i8) -> f16
// CHECK: %[[U:.*]] = arith.extui %[[X]] : i8 to i32
// CHECK: %[[INF_CODE:.*]] = arith.constant 124 : i32
// CHECK: %[[IS_INF:.*]] = arith.cmpi eq, %{{.*}}, %[[INF_CODE]] : i32
// CHECK: %[[INF:.*]] = arith.constant 2139095040 : i32
// CHECK: arith.select %[[IS_INF]], %[[INF]], %{{.*}} : i32
// CHECK: %[[FIRST_NAN:.*]] = arith.constant 125 : i32
// CHECK: arith.cmpi uge, %{{.*}}, %[[FIRST_NAN]] : i32
// CHECK: %[[F32:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: %[[H:.*]] = arith.truncf %[[F32]] : f32 to f16
// CHECK: return %[[H]] : f16
func.func @decode_e5m2_to_f16(%x: f8E5M2) -> f16 {
  %y = arith.extf %x : f8E5M2 to f16
  return %y : f16
}

// -----

// A truncf rounds the f32 bits to nearest even (e5m2: 21 dropped bits, so
// add 2^20 - 1 plus the lowest kept bit), rebiases (112 << 2 = 448) and
// clamps at inf (0x7C); below the smallest normal (2^-14) the f32 adder
// rounds magnitude + 128 to the subnormal; NaN gives 0x7E; the sign goes
// back on top. An f64 is first truncated to f32, as ml_dtypes does.
// CHECK-LABEL: func.func @encode_f64_to_e5m2
// CHECK-SAME: (%[[X:.*]]: f64, %[[T:.*]]: memref<?xi8>, %[[I:.*]]: index)
// CHECK: %[[F:.*]] = arith.truncf %[[X]] : f64 to f32
// CHECK: %[[BITS:.*]] = arith.bitcast %[[F]] : f32 to i32
// CHECK: %[[MAG:.*]] = arith.andi %[[BITS]], %{{.*}} : i32
// CHECK: %[[C21:.*]] = arith.constant 21 : i32
// CHECK: %[[LOW:.*]] = arith.shrui %[[MAG]], %[[C21]] : i32
// CHECK: %[[ODD:.*]] = arith.andi %[[LOW]], %{{.*}} : i32
// CHECK: %[[HALF:.*]] = arith.constant 1048575 : i32
// CHECK: %[[BIAS:.*]] = arith.addi %[[ODD]], %[[HALF]] : i32
// CHECK: %[[ROUNDED:.*]] = arith.addi %[[MAG]], %[[BIAS]] : i32
// CHECK: %[[KEPT:.*]] = arith.shrui %[[ROUNDED]], %{{.*}} : i32
// CHECK: %[[REBIAS:.*]] = arith.constant 448 : i32
// CHECK: %[[REBIASED:.*]] = arith.subi %[[KEPT]], %[[REBIAS]] : i32
// CHECK: %[[OVERFLOW:.*]] = arith.constant 124 : i32
// CHECK: %[[NORMAL:.*]] = arith.minui %[[REBIASED]], %[[OVERFLOW]] : i32
// CHECK: %[[MAGIC:.*]] = arith.constant 1.280000e+02 : f32
// CHECK: %[[SUM:.*]] = arith.addf %{{.*}}, %[[MAGIC]] : f32
// CHECK: %[[SUB:.*]] = arith.subi %{{.*}}, %{{.*}} : i32
// CHECK: %[[SMALLEST:.*]] = arith.constant 947912704 : i32
// CHECK: %[[IS_SUB:.*]] = arith.cmpi ult, %[[MAG]], %[[SMALLEST]] : i32
// CHECK: %[[CODE:.*]] = arith.select %[[IS_SUB]], %[[SUB]], %[[NORMAL]] : i32
// CHECK: %[[IS_NAN:.*]] = arith.cmpi uge, %[[MAG]], %{{.*}} : i32
// CHECK: %[[NAN:.*]] = arith.constant 126 : i32
// CHECK: %[[CODE_NAN:.*]] = arith.select %[[IS_NAN]], %[[NAN]], %[[CODE]] : i32
// CHECK: %[[SIGN:.*]] = arith.andi %{{.*}}, %{{.*}} : i32
// CHECK: %[[SIGNED:.*]] = arith.ori %[[CODE_NAN]], %[[SIGN]] : i32
// CHECK: %[[BYTE:.*]] = arith.trunci %[[SIGNED]] : i32 to i8
// CHECK: memref.store %[[BYTE]], %[[T]][%[[I]]] : memref<?xi8>
// CHECK-NOT: f8E5M2
func.func @encode_f64_to_e5m2(%x: f64, %t: memref<?xf8E5M2>, %i: index) {
  %y = arith.truncf %x : f64 to f8E5M2
  memref.store %y, %t[%i] : memref<?xf8E5M2>
  return
}

// -----

// e4m3fn has no inf: an overflow (and inf) clamps to NaN, 0x7F.
// CHECK-LABEL: func.func @encode_e4m3fn
// CHECK: %[[BIAS:.*]] = arith.addi %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK: %[[ROUNDED:.*]] = arith.addi %{{.*}}, %[[BIAS]] : vector<4xi32>
// CHECK: %[[KEPT:.*]] = arith.shrui %[[ROUNDED]], %{{.*}} : vector<4xi32>
// CHECK: %[[REBIAS:.*]] = arith.constant dense<960> : vector<4xi32>
// CHECK: %[[REBIASED:.*]] = arith.subi %[[KEPT]], %[[REBIAS]] : vector<4xi32>
// CHECK: %[[NAN:.*]] = arith.constant dense<127> : vector<4xi32>
// CHECK: arith.minui %[[REBIASED]], %[[NAN]] : vector<4xi32>
// CHECK: arith.trunci %{{.*}} : vector<4xi32> to vector<4xi8>
func.func @encode_e4m3fn(%x: vector<4xf32>) -> vector<4xf8E4M3FN> {
  %y = arith.truncf %x : vector<4xf32> to vector<4xf8E4M3FN>
  return %y : vector<4xf8E4M3FN>
}

// -----

// Constants become their bit patterns (decimal or hex, splat or not);
// selects, broadcasts and masked accesses move the bytes unchanged.
// CHECK-LABEL: func.func @constants_and_moves
// CHECK-SAME: (%[[C:.*]]: i1, %[[T:.*]]: memref<?xi8>, %[[M:.*]]: vector<4xi1>, %[[I:.*]]: index) -> (i8, vector<2xi8>, vector<4xi8>)
// CHECK: %[[MINUS_TWO:.*]] = arith.constant -64 : i8
// CHECK: %[[NAN:.*]] = arith.constant -1 : i8
// CHECK: %[[S:.*]] = arith.select %[[C]], %[[MINUS_TWO]], %[[NAN]] : i8
// CHECK: %[[V:.*]] = arith.constant dense<[60, 127]> : vector<2xi8>
// CHECK: %[[INF:.*]] = arith.constant dense<124> : vector<4xi8>
// CHECK: %[[PAD:.*]] = vector.broadcast %[[S]] : i8 to vector<4xi8>
// CHECK: %[[L:.*]] = vector.maskedload %[[T]][%[[I]]], %[[M]], %[[PAD]] : memref<?xi8>, vector<4xi1>, vector<4xi8> into vector<4xi8>
// CHECK: vector.maskedstore %[[T]][%[[I]]], %[[M]], %[[L]] : memref<?xi8>, vector<4xi1>, vector<4xi8>
// CHECK: return %[[S]], %[[V]], %[[INF]] : i8, vector<2xi8>, vector<4xi8>
// CHECK-NOT: f8E
func.func @constants_and_moves(%c: i1, %t: memref<?xf8E4M3FN>, %m: vector<4xi1>, %i: index) -> (f8E4M3FN, vector<2xf8E4M3FN>, vector<4xf8E5M2>) {
  %a = arith.constant -2.0 : f8E4M3FN
  %nan = arith.constant 0xFF : f8E4M3FN
  %s = arith.select %c, %a, %nan : f8E4M3FN
  %v = arith.constant dense<[1.5, 0x7F]> : vector<2xf8E4M3FN>
  %w = arith.constant dense<0x7C> : vector<4xf8E5M2>
  %pad = vector.broadcast %s : f8E4M3FN to vector<4xf8E4M3FN>
  %l = vector.maskedload %t[%i], %m, %pad : memref<?xf8E4M3FN>, vector<4xi1>, vector<4xf8E4M3FN> into vector<4xf8E4M3FN>
  vector.maskedstore %t[%i], %m, %l : memref<?xf8E4M3FN>, vector<4xi1>, vector<4xf8E4M3FN>
  return %s, %v, %w : f8E4M3FN, vector<2xf8E4M3FN>, vector<4xf8E5M2>
}

// -----

// The integer code folds away on constants: 448 is 0x7E in e4m3fn, 464
// (halfway to the NaN encoding) rounds to even 0x7E, 465 overflows to NaN.
// FOLD-LABEL: func.func @folded
// FOLD-DAG: %[[MAX:.*]] = arith.constant 126 : i8
// FOLD-DAG: %[[NAN:.*]] = arith.constant 127 : i8
// FOLD: return %[[MAX]], %[[MAX]], %[[NAN]] : i8, i8, i8
func.func @folded() -> (f8E4M3FN, f8E4M3FN, f8E4M3FN) {
  %max = arith.constant 448.0 : f32
  %half = arith.constant 464.0 : f32
  %over = arith.constant 465.0 : f32
  %a = arith.truncf %max : f32 to f8E4M3FN
  %b = arith.truncf %half : f32 to f8E4M3FN
  %c = arith.truncf %over : f32 to f8E4M3FN
  return %a, %b, %c : f8E4M3FN, f8E4M3FN, f8E4M3FN
}

// -----

// The compare-and-swap loop of an f8 atomic add works on the bytes.
// CHECK-LABEL: func.func @atomic
// CHECK: memref.generic_atomic_rmw %{{.*}}[%{{.*}}] : memref<?xi8> {
// CHECK: ^bb0(%{{.*}}: i8):
// CHECK: memref.atomic_yield %{{.*}} : i8
// CHECK-NOT: f8E4M3FN
func.func @atomic(%sums: memref<?xf8E4M3FN>, %v: f32, %i: index) {
  %r = memref.generic_atomic_rmw %sums[%i] : memref<?xf8E4M3FN> {
  ^bb0(%old: f8E4M3FN):
    %wide = arith.extf %old : f8E4M3FN to f32
    %sum = arith.addf %wide, %v : f32
    %new = arith.truncf %sum : f32 to f8E4M3FN
    memref.atomic_yield %new : f8E4M3FN
  }
  return
}
