// RUN: tile-opt %s -split-input-file --tile-cpu-inline-core-scopes --verify-diagnostics

// A cube program and a vector program run at the same time on the NPU.
func.func @both_kinds(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    scf.execute_region {
      ascend.cross_core_set_flag mode 2, fix, 0
      scf.yield
    } {ascend.core_region = #ascend.core<aic>}
    // expected-error @+1 {{tile-cpu-inline-core-scopes: this T.Scope("V") runs at the same time as the T.Scope("C") program and they wait for each other's flags: the kernel runs on ascend only}}
    scf.execute_region {
      ascend.cross_core_wait_flag 0, mte2
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
  }
  return
}

// -----

// A grid barrier waits for every core.
func.func @sync_all(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    scf.execute_region {
      // expected-error @+1 {{tile-cpu-inline-core-scopes: 'ascend.sync_all' waits for other cores, which one block's sequential code cannot: the kernel runs on ascend only}}
      ascend.sync_all
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
  }
  return
}
