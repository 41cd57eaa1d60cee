// RUN: tile-opt %s -split-input-file --tile-cpu-inline-core-scopes --verify-diagnostics

// A cube program and a vector program that run at the same time on the NPU and
// wait for each other (the cube for a flag the AIVs set): no order of the two is
// the same program.
func.func @both_ways(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    scf.execute_region {
      ascend.cross_core_set_flag mode 2, fix, 0
      ascend.cross_core_wait_flag 1
      scf.yield
    } {ascend.core_region = #ascend.core<aic>}
    // expected-error @+1 {{tile-cpu-inline-core-scopes: this T.Scope("V") runs at the same time as the T.Scope("C") program and they wait for each other's flags: the kernel runs on ascend only}}
    scf.execute_region {
      ascend.cross_core_wait_flag 0, mte2
      ascend.cross_core_set_flag mode 2, mte3, 1
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
  }
  return
}

// -----

// The vector scope first: the AIVs' program would wait for the cube's, which a
// sequential run has not started.
func.func @vector_first(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    scf.execute_region {
      ascend.cross_core_wait_flag 0, mte2
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
    // expected-error @+1 {{tile-cpu-inline-core-scopes: this T.Scope("C") runs at the same time as the T.Scope("V") program and they wait for each other's flags: the kernel runs on ascend only}}
    scf.execute_region {
      ascend.cross_core_set_flag mode 2, fix, 0
      scf.yield
    } {ascend.core_region = #ascend.core<aic>}
  }
  return
}

// -----

// A cross-core wait in a kernel of one kind of core waits for a core that is not there.
func.func @one_kind_waits(%a: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    scf.execute_region {
      // expected-error @+1 {{tile-cpu-inline-core-scopes: 'ascend.cross_core_wait_flag' waits for other cores, which one block's sequential code cannot: the kernel runs on ascend only}}
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

// -----

// tilelang-ascend's AUTO_CV_COMBINE: the cube reads what the AIVs write later in the body.
func.func @combined(%ws: memref<64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  // expected-error @+1 {{tile-cpu-inline-core-scopes: this kernel's cube and vector work hand data through global tensors (AUTO_CV_COMBINE): two programs that run at once and wait for each other's flags, so it runs on ascend only}}
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 128 attributes {ascend.combine_cores, ascend.vid_dim = 0 : i64} {
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %ub = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
    tile.copy %ws[%c0, %c0], %l1[%c0, %c0] : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.copy %ub[%c0, %c0], %ws[%vid, %c0] : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
  }
  return
}
