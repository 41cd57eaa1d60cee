// RUN: tile-opt %s -split-input-file --tile-cpu-emulate-fp8 --verify-diagnostics

// What a tile.reduce of 8-bit floats leaves has no byte form: an error at
// its location instead of a crash in the LLVM lowering.
func.func @reduction(%v: vector<8xf8E4M3FN>) -> f8E4M3FN {
  // expected-error @+1 {{'vector.reduction' on 8-bit float values has no cpu lowering (8-bit floats are bytes on cpu: convert them to float32 to compute)}}
  %r = vector.reduction <maximumf>, %v : vector<8xf8E4M3FN> into f8E4M3FN
  return %r : f8E4M3FN
}

// -----

// Arithmetic is for arith-emulate-unsupported-floats, which runs first in
// tile-to-cpu.
func.func @arithmetic(%a: f8E5M2) -> f8E5M2 {
  // expected-error @+1 {{'arith.addf' on 8-bit float values has no cpu lowering}}
  %s = arith.addf %a, %a : f8E5M2
  return %s : f8E5M2
}
