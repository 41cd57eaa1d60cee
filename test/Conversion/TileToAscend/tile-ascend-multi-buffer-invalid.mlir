// RUN: tile-opt %s -split-input-file --tile-ascend-multi-buffer --verify-diagnostics
// RUN: not tile-opt %s --tile-ascend-multi-buffer="target=ascend:910c" 2>&1 | filecheck %s --check-prefix=PROFILE
// RUN: not tile-opt %s -split-input-file --tile-ascend-multi-buffer="max-stages=-1" 2>&1 \
// RUN:   | filecheck %s --check-prefix=CAP

// PROFILE: error: invalid value 'ascend:910c' for option 'target' of pass 'tile-ascend-multi-buffer': unknown ascend variant '910c'; variants: 910b, 950
// CAP: tile-ascend-multi-buffer-invalid.mlir:8:1: error: max-stages must be 0 (no cap) or positive, not -1
func.func @stages_not_an_integer(%x: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  // expected-error @+1 {{tile.num_stages must be an integer, not "two"}}
  scf.for %i = %c0 to %n step %c64 {
    ascend.copy %x[%i], %t[%c0] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
    ascend.copy %t[%c0], %x[%i] sizes [64] : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  } {tile.num_stages = "two"}
  return
}
