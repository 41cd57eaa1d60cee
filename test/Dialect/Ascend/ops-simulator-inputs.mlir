// The example programs the simulator runs parse, verify and round-trip.
// RUN: tile-opt %S/../../Simulator/Inputs/vadd-double-buffer.mlir | tile-opt | filecheck %s --check-prefix=VADD
// RUN: tile-opt %S/../../Simulator/Inputs/gemm-tile.mlir | tile-opt | filecheck %s --check-prefix=GEMM
// RUN: tile-opt %S/../../Simulator/Inputs/cube-vector-handoff.mlir | tile-opt | filecheck %s --check-prefix=HANDOFF

// VADD-LABEL: func.func @vadd
// VADD-SAME: attributes {ascend.kernel = #ascend.core<aiv>}
// VADD: scf.for
// VADD: ascend.vbin add
// VADD: scf.if
// VADD: ascend.vbin add

// GEMM-LABEL: func.func @gemm_tile
// GEMM-SAME: attributes {ascend.kernel = #ascend.core<aic>}
// GEMM: ascend.copy_nd2nz
// GEMM: ascend.load_l0a
// GEMM: ascend.load_l0b
// GEMM: ascend.mmad {{.*}} sizes [64, 48, 32] {init}
// GEMM: ascend.fixpipe

// HANDOFF-LABEL: func.func @matmul_bias_relu
// HANDOFF-SAME: attributes {ascend.kernel = #ascend.core<mix>}
// HANDOFF: ascend.core aic {
// HANDOFF: ascend.fixpipe
// HANDOFF: ascend.cross_core_set_flag mode 2, fix, 0
// HANDOFF: ascend.core aiv {
// HANDOFF: ascend.cross_core_wait_flag 0, mte2
// HANDOFF: ascend.vunary relu
