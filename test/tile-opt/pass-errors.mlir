// A pass may report an error and still succeed (an upstream conversion
// whose type converter cannot map a memory space leaves the op alone): that
// is an error with exit code 1 too, never the bindings' abort.
// RUN: not tile-opt %s --split-input-file --convert-func-to-llvm 2>&1 | filecheck %s --check-prefix=FUNC
// RUN: not tile-opt %s --split-input-file --tile-to-cpu 2>&1 | filecheck %s --check-prefix=CPU

// FUNC: error: conversion of memref memory space #tile.scope<shared> to integer address space failed
// FUNC: error: conversion of memref memory space #ascend.mem<gm> to integer address space failed
// Through the cpu pipeline the check in front of the memref lowering gives it a location.
// CPU: pass-errors.mlir:[[# @LINE + 10]]:1: error: a memref in memory space #ascend.mem<gm> cannot be lowered to LLVM (it has no address space there)
// FUNC-NOT: Assertion
// CPU-NOT: Assertion

func.func @shared(%x: memref<4xf32, #tile.scope<shared>>) {
  return
}

// -----

func.func @global(%x: memref<?xf32, #ascend.mem<gm>>) {
  return
}

// A memref of i1 is a located error in front of the memref-to-LLVM lowering,
// which would assert and abort the process on it.
// RUN: not tile-opt %S/Inputs/i1-memref.mlir --finalize-memref-to-llvm 2>&1 | filecheck %s --check-prefix=SUBBYTE
// SUBBYTE: i1-memref.mlir:2:1: error: a memref of i1 cannot be lowered to LLVM (its elements are narrower than a byte)
