// RUN: tile-opt %s -split-input-file --tile-ascend-split-scopes --verify-diagnostics

// Outside the scopes of a kernel with cube and vector scopes, only what both kinds of
// core can run: a copy into L1 belongs in the cube scope.
func.func @work_outside_the_scopes(%a: memref<32x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%cid) in (%c1) threads = 128 {
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    // expected-error @+1 {{tile-ascend-split-scopes: 'tile.copy' is outside every T.Scope of a kernel with cube and vector scopes; put it in T.Scope("C") or T.Scope("V")}}
    tile.copy %a[%c0, %c0], %l1[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    scf.execute_region {
      scf.yield
    } {ascend.core_region = #ascend.core<aic>}
    scf.execute_region {
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
  }
  return
}

// -----

func.func @scope_in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%cid) in (%c1) threads = 128 {
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @+1 {{tile-ascend-split-scopes: a T.Scope region must be directly in the body of its T.Kernel}}
      scf.execute_region {
        scf.yield
      } {ascend.core_region = #ascend.core<aiv>}
    }
  }
  return
}

// -----

// Two programs per core kind cannot be told apart from two kernels in a row.
func.func @two_kernels(%n: index) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{tile-ascend-split-scopes: a kernel with vector scopes must be the only T.Kernel of its function}}
  tile.kernel blocks(%cid) in (%c1) threads = 128 {
    scf.execute_region {
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
  }
  tile.kernel blocks(%cid) in (%c1) threads = 128 {
  }
  return
}

// -----

// The cube core has no vector unit: element-wise code in its scope is an error at
// the op (not a kernel split around it).
func.func @vector_work_on_the_cube(%a: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%cid) in (%c1) threads = 128 {
    scf.execute_region {
      %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
      // expected-error @+1 {{tile-ascend-split-scopes: 'tile.parallel' is vector work in T.Scope("C"), but the cube core has no vector unit; do it in T.Scope("V") on a UB tile}}
      tile.parallel (%i, %j) in (32, 32) {
        %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<l0c>>
        %r = arith.maximumf %v, %zero : f32
        memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<l0c>>
      }
      tile.copy %acc[%c0, %c0], %a[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
      scf.yield
    } {ascend.core_region = #ascend.core<aic>}
    scf.execute_region {
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
  }
  return
}
