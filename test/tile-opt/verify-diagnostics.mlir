// --verify-diagnostics passes when expectations match and fails, naming
// what went wrong, when they do not.
// RUN: tile-opt %s -split-input-file -verify-diagnostics
// RUN: not tile-opt %S/Inputs/wrong-expectations.mlir -split-input-file -verify-diagnostics 2>&1 | filecheck %s

// CHECK-DAG: wrong-expectations.mlir:5:3: error: unexpected error: 'tile.fill' op expected value of type 'f32' (the dst element type) but got 'i32'
// CHECK-DAG: wrong-expectations.mlir:4:6: error: expected error "this message is never produced" was not produced
// CHECK-DAG: wrong-expectations.mlir:10:6: error: expected error "also never produced" was not produced

func.func @fill_type_mismatch(%a: memref<16x16xf32, #tile.scope<shared>>) {
  %c = arith.constant 0 : i32
  // expected-error @+1 {{expected value of type 'f32' (the dst element type) but got 'i32'}}
  tile.fill %a, %c : memref<16x16xf32, #tile.scope<shared>>, i32
  return
}

// -----

func.func @below_and_above(%a: memref<16x16xf32, #tile.scope<shared>>) {
  %c = arith.constant 0 : i32
  // expected-error @below {{expected value of type 'f32'}}
  tile.fill %a, %c : memref<16x16xf32, #tile.scope<shared>>, i32
  return
}

// -----

func.func @regex(%a: memref<16x16xf32, #tile.scope<shared>>) {
  %c = arith.constant 0 : i64
  tile.fill %a, %c : memref<16x16xf32, #tile.scope<shared>>, i64
  // expected-error-re @above {{expected value of type 'f32' (the dst element type) but got 'i{{[0-9]+}}'}}
  return
}
