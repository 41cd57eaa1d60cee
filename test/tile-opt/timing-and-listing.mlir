// RUN: tile-opt %s --tile-verify-kernels --cse --mlir-timing -o /dev/null 2>&1 | filecheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING-DAG: VerifyKernelsPass
// TIMING-DAG: CSE
// TIMING: Total

// RUN: tile-opt --list-passes | filecheck %s --check-prefix=LIST
// LIST: tilec passes:
// LIST-DAG: --tile-canonicalize-ops
// LIST-DAG: --tile-verify-kernels
// LIST-DAG: --convert-tile-to-cpu
// LIST-DAG: target=<str> (default any)
// LIST: tilec pipelines:
// LIST-DAG: --tile-cleanup
// LIST-DAG: --tile-to-cpu
// LIST: upstream passes:
// LIST-DAG: --canonicalize
// LIST-DAG: --convert-scf-to-cf
// LIST: upstream pipelines:
// LIST: --gpu-lower-to-nvvm-pipeline

// RUN: tile-opt --help | filecheck %s --check-prefix=HELP
// HELP: USAGE: tile-opt [options] [input file]
// HELP: --verify-diagnostics

func.func @f() {
  return
}
