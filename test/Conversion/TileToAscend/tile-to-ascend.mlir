// RUN: tile-opt %s --tile-to-ascend="target=ascend:950" | filecheck %s
// RUN: tile-opt %s --tile-to-ascend="target=ascend:950" | tile-sim - --profile 950 \
// RUN:     --arg arg0=arange:20x40xf32 --arg arg1=2.5 --block-dim 2 --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM
// RUN: tile-opt %s --tile-to-ascend="target=ascend:950 sync=barrier" | filecheck %s --check-prefix=BARRIER
// RUN: not tile-opt %s --tile-to-ascend="target=ascend:310" 2>&1 | filecheck %s --check-prefix=BAD
// RUN: not tile-opt %s --tile-to-ascend="profile=950" 2>&1 | filecheck %s --check-prefix=PROFILE

// The whole pipeline on a vector kernel: a grid-stride loop over the
// vector cores, UB tiles at planned offsets, the copies and the multiply
// ordered by flags (no barrier), and the result runs in tile-sim on a
// ragged matrix (20 rows in tiles of 8) with no race.
// CHECK-LABEL: func.func @scale
// CHECK-SAME: ascend.kernel = #ascend.core<aiv>
// CHECK: memref.alloc() {ascend.offset = {{[0-9]+}} : i64} : memref<8x40xf32, #ascend.mem<ub>>
// CHECK: scf.for
// CHECK: ascend.copy
// CHECK: ascend.set_flag mte2 -> v
// CHECK: ascend.wait_flag mte2 -> v
// CHECK: ascend.vbins muls
// CHECK: ascend.set_flag v -> mte3
// CHECK-NOT: pipe_barrier
// CHECK-NOT: tile.

// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM: %arg0 = {{\[\[}}  0.    2.5   5.

// BARRIER: ascend.pipe_barrier all
// BARRIER-NOT: set_flag

// BAD: error: pipeline 'tile-to-ascend': unknown ascend variant '310'; variants: 910b, 950
// PROFILE: error: pipeline 'tile-to-ascend' has no option 'profile' (options: target, max-stages, sync, skew, auto-sync)
func.func @scale(%A: memref<?x40xf32>, %s: f32) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %A, %c0 : memref<?x40xf32>
  %g = arith.ceildivsi %m, %c8 : index
  tile.kernel blocks(%bx) in (%g) threads = 128 {
    %row = arith.muli %bx, %c8 : index
    %t = tile.alloc : memref<8x40xf32, #tile.scope<fragment>>
    tile.copy %A[%row, %c0], %t[%c0, %c0] : memref<?x40xf32>, memref<8x40xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (8, 40) {
      %x = memref.load %t[%i, %j] : memref<8x40xf32, #tile.scope<fragment>>
      %y = arith.mulf %x, %s : f32
      memref.store %y, %t[%i, %j] : memref<8x40xf32, #tile.scope<fragment>>
    }
    tile.copy %t[%c0, %c0], %A[%row, %c0] : memref<8x40xf32, #tile.scope<fragment>>, memref<?x40xf32>
  }
  return
}
