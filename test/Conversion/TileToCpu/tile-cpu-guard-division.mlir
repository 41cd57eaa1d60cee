// RUN: tile-opt %s --tile-cpu-guard-division | filecheck %s
// RUN: tile-opt %s --tile-cpu-guard-division --canonicalize | filecheck %s --check-prefix=FOLD

// A signed division by a run-time divisor: 1 replaces a zero divisor and
// the -1 of INT_MIN / -1, and the result is 0 where the divisor was zero.
// CHECK-LABEL: func.func @floordivsi_scalar
// CHECK-SAME: (%[[A:.*]]: i32, %[[D:.*]]: i32)
// CHECK-NOT: arith.floordivsi %[[A]], %[[D]]
// CHECK: %[[C0:.*]] = arith.constant 0 : i32
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[D]], %[[C0]] : i32
// CHECK: %[[MIN:.*]] = arith.constant -2147483648 : i32
// CHECK: %[[IS_MIN:.*]] = arith.cmpi eq, %[[A]], %[[MIN]] : i32
// CHECK: %[[M1:.*]] = arith.constant -1 : i32
// CHECK: %[[IS_M1:.*]] = arith.cmpi eq, %[[D]], %[[M1]] : i32
// CHECK: %[[OVERFLOW:.*]] = arith.andi %[[IS_MIN]], %[[IS_M1]] : i1
// CHECK: %[[TRAP:.*]] = arith.ori %[[ZERO]], %[[OVERFLOW]] : i1
// CHECK: %[[C1:.*]] = arith.constant 1 : i32
// CHECK: %[[SAFE:.*]] = arith.select %[[TRAP]], %[[C1]], %[[D]] : i32
// CHECK: %[[RAW:.*]] = arith.floordivsi %[[A]], %[[SAFE]] : i32
// CHECK: %[[Q:.*]] = arith.select %[[ZERO]], %[[C0]], %[[RAW]] : i32
// CHECK: return %[[Q]] : i32
func.func @floordivsi_scalar(%a: i32, %d: i32) -> i32 {
  %q = arith.floordivsi %a, %d : i32
  return %q : i32
}

// The other signed ops get the same guard, on index too, keeping their
// attributes.
// CHECK-LABEL: func.func @signed_ops
// CHECK-SAME: (%[[A:.*]]: index, %[[D:.*]]: index)
// CHECK-NOT: %[[A]], %[[D]]
// CHECK: arith.constant -9223372036854775808 : index
// CHECK: arith.divsi %[[A]], %[[SAFE:[^ ]*]] exact : index
// CHECK: arith.remsi %[[A]], %{{.*}} : index
// CHECK: arith.ceildivsi %[[A]], %{{.*}} : index
// CHECK-NOT: %[[A]], %[[D]]
func.func @signed_ops(%a: index, %d: index) -> (index, index, index) {
  %q = arith.divsi %a, %d exact : index
  %r = arith.remsi %a, %d : index
  %c = arith.ceildivsi %a, %d : index
  return %q, %r, %c : index, index, index
}

// Unsigned ops trap only on zero, so there is no INT_MIN test.
// CHECK-LABEL: func.func @remui_vector
// CHECK-SAME: (%[[A:.*]]: vector<8xi16>, %[[D:.*]]: vector<8xi16>)
// CHECK-NOT: arith.remui %[[A]], %[[D]]
// CHECK: %[[C0:.*]] = arith.constant dense<0> : vector<8xi16>
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[D]], %[[C0]] : vector<8xi16>
// CHECK: %[[C1:.*]] = arith.constant dense<1> : vector<8xi16>
// CHECK: %[[SAFE:.*]] = arith.select %[[ZERO]], %[[C1]], %[[D]] : vector<8xi1>, vector<8xi16>
// CHECK: %[[RAW:.*]] = arith.remui %[[A]], %[[SAFE]] : vector<8xi16>
// CHECK: %[[R:.*]] = arith.select %[[ZERO]], %[[C0]], %[[RAW]] : vector<8xi1>, vector<8xi16>
// CHECK: return %[[R]] : vector<8xi16>
func.func @remui_vector(%a: vector<8xi16>, %d: vector<8xi16>) -> vector<8xi16> {
  %r = arith.remui %a, %d : vector<8xi16>
  return %r : vector<8xi16>
}

// Constant divisors that cannot trap are left alone: the common case costs
// nothing. -1 cannot trap an unsigned division.
// CHECK-LABEL: func.func @safe_constant_divisors
// CHECK-NOT: arith.select
// CHECK: arith.ceildivsi %{{.*}}, %{{.*}} : i32
// CHECK: arith.divui %{{.*}}, %{{.*}} : i32
// CHECK: arith.remsi %{{.*}}, %{{.*}} : vector<4xi32>
// CHECK-NOT: arith.select
func.func @safe_constant_divisors(%a: i32, %v: vector<4xi32>) -> (i32, i32, vector<4xi32>) {
  %c16 = arith.constant 16 : i32
  %m1 = arith.constant -1 : i32
  %s = arith.constant dense<[1, 2, 3, 4]> : vector<4xi32>
  %0 = arith.ceildivsi %a, %c16 : i32
  %1 = arith.divui %a, %m1 : i32
  %2 = arith.remsi %v, %s : vector<4xi32>
  return %0, %1, %2 : i32, i32, vector<4xi32>
}

// A signed division by a constant -1, or by a constant vector with a zero
// element, can still trap and is guarded.
// CHECK-LABEL: func.func @unsafe_constant_divisors
// CHECK: %[[S1:.*]] = arith.select %{{.*}} : i32
// CHECK: arith.divsi %{{.*}}, %[[S1]] : i32
// CHECK: %[[S2:.*]] = arith.select %{{.*}} : vector<4xi1>, vector<4xi32>
// CHECK: arith.divui %{{.*}}, %[[S2]] : vector<4xi32>
func.func @unsafe_constant_divisors(%a: i32, %v: vector<4xi32>) -> (i32, vector<4xi32>) {
  %m1 = arith.constant -1 : i32
  %z = arith.constant dense<[1, 0, 3, 4]> : vector<4xi32>
  %0 = arith.divsi %a, %m1 : i32
  %1 = arith.divui %v, %z : vector<4xi32>
  return %0, %1 : i32, vector<4xi32>
}

// Once canonicalized, a division by a constant zero is the constant 0.
// FOLD-LABEL: func.func @divide_by_zero
// FOLD: %[[C0:.*]] = arith.constant 0 : i32
// FOLD-NOT: arith.divsi
// FOLD: return %[[C0]] : i32
func.func @divide_by_zero(%a: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %q = arith.divsi %a, %c0 : i32
  return %q : i32
}
