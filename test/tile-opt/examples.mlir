// The IR examples shipped in examples/ stay valid and behave as documented.
// RUN: tile-opt %S/../../examples/gemm.mlir --tile-verify-kernels=target=cuda --tile-cleanup | filecheck %S/../../examples/gemm.mlir
