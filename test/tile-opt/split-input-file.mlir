// Chunks are processed separately, keep their line numbers, and an error in
// one chunk does not stop the others from being checked.
// RUN: tile-opt %s -split-input-file | filecheck %s
// RUN: not tile-opt %S/Inputs/split-errors.mlir -split-input-file 2>&1 | filecheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @first
// CHECK: // -----
// CHECK-LABEL: func.func @second
func.func @first() {
  return
}

// -----

func.func @second() {
  return
}

// ERR: split-errors.mlir:3:7: error: expected operation name in quotes
// ERR: split-errors.mlir:9:3: error: 'func.return' op has 0 operands, but enclosing function (@g) returns 1
