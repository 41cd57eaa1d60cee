// tilec and upstream passes run in the order written, nested or not, and
// named pipelines expand in place.
// RUN: tile-opt %s --pass-pipeline='builtin.module(tile-verify-kernels,canonicalize,func.func(cse,tile-verify-kernels{target=cpu}),tile-cleanup)' --mlir-print-ir-after-all -o %t 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: filecheck %s --check-prefix=OUT < %t
// Pass flags build the same pipeline as --pass-pipeline.
// RUN: tile-opt %s --tile-verify-kernels --canonicalize --cse --mlir-print-ir-after-all -o /dev/null 2>&1 | filecheck %s --check-prefix=FLAGS

// ORDER: IR Dump After VerifyKernelsPass (tile-verify-kernels)
// ORDER: IR Dump After Canonicalizer (canonicalize)
// ORDER: IR Dump After CSE (cse)
// ORDER: IR Dump After VerifyKernelsPass (tile-verify-kernels{target=cpu})
// ORDER: IR Dump After VerifyKernelsPass (tile-verify-kernels)
// ORDER: IR Dump After CanonicalizeOpsPass (tile-canonicalize-ops)
// ORDER: IR Dump After Canonicalizer (canonicalize)
// ORDER: IR Dump After CSE (cse)

// FLAGS: IR Dump After VerifyKernelsPass (tile-verify-kernels)
// FLAGS-NEXT: module
// FLAGS: IR Dump After Canonicalizer (canonicalize)
// FLAGS: IR Dump After CSE (cse)

// The upstream passes really ran: the duplicated constant is gone.
// OUT-LABEL: func.func @twice
// OUT: arith.constant 2.0
// OUT-NOT: arith.constant
// OUT: return
func.func @twice(%a: memref<4xf32>) -> (f32, f32) {
  %x = arith.constant 2.0 : f32
  %y = arith.constant 2.0 : f32
  return %x, %y : f32, f32
}
