// RUN: tile-opt %s -split-input-file --tile-ascend-plan-memory --verify-diagnostics
// RUN: not tile-opt %S/Inputs/plan-memory-200k.mlir --tile-ascend-plan-memory 2>&1 \
// RUN:   | filecheck %s --check-prefix=OVERFLOW
// RUN: tile-opt %S/Inputs/plan-memory-200k.mlir --tile-ascend-plan-memory="target=ascend:950" \
// RUN:   | filecheck %s --check-prefix=P950
// RUN: not tile-opt %s --tile-ascend-plan-memory="target=cuda:sm_80" 2>&1 | filecheck %s --check-prefix=TARGET
// RUN: not tile-opt %s --tile-ascend-plan-memory="profile=950" 2>&1 | filecheck %s --check-prefix=PROFILE

// Three tiles live at once need 200 KiB of UB: more than the 184 KiB of
// the 910b (the error at the function names each), less than the 247.75 KiB
// of the 950.
// OVERFLOW: plan-memory-200k.mlir:2:1: error: ub overflow: 200.00 KiB needed, 184.00 KiB available (3 buffers, 200.00 KiB in all): memref<128x128xf32, #ascend.mem<ub>> (64.00 KiB) at {{.*}}plan-memory-200k.mlir:4:8, memref<128x128xf32, #ascend.mem<ub>> (64.00 KiB) at {{.*}}plan-memory-200k.mlir:5:8, memref<128x144xf32, #ascend.mem<ub>> (72.00 KiB) at {{.*}}plan-memory-200k.mlir:6:8
// Largest first: the 72 KiB tile takes the bottom of UB.
// P950: memref.alloc() {ascend.offset = 73728 : i64} : memref<128x128xf32, #ascend.mem<ub>>
// P950-NEXT: memref.alloc() {ascend.offset = 139264 : i64} : memref<128x128xf32, #ascend.mem<ub>>
// P950-NEXT: memref.alloc() {ascend.offset = 0 : i64} : memref<128x144xf32, #ascend.mem<ub>>
// TARGET: error: invalid value 'cuda:sm_80' for option 'target' of pass 'tile-ascend-plan-memory': 'cuda:sm_80' is not an ascend target (ascend:910b, ascend:950)
// The profile is the target's variant: one option, `target`, says it.
// PROFILE: error: pass 'tile-ascend-plan-memory' has no option 'profile' (options: target)

func.func @misaligned() {
  %zero = arith.constant 0.0 : f32
  // expected-error @+1 {{ascend.offset 16 is not a multiple of the 32-byte alignment of ub}}
  %a = memref.alloc() {ascend.offset = 16 : i64} : memref<64xf32, #ascend.mem<ub>>
  ascend.vdup %a, %zero : memref<64xf32, #ascend.mem<ub>>, f32
  return
}

// -----

func.func @dynamic(%n: index) {
  // expected-error @+1 {{on-chip buffers need a static shape, not memref<?xf32, #ascend.mem<ub>>}}
  %a = memref.alloc(%n) : memref<?xf32, #ascend.mem<ub>>
  return
}
