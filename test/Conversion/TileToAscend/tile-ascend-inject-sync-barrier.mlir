// strategy=barrier, the PIPE_ALL baseline for benchmarks: the same hazards
// as the flags, each ordered by an `ascend.pipe_barrier all` right before
// the later op, and no flag. One barrier serves every hazard it orders (the
// one before the store also frees `a` and `b` for the next loads). Hazards
// within one pipe get a barrier of that pipe only, as with the flags. Slower
// than the flags (see the BARRIER checks of tile-ascend-inject-sync-cube.mlir and
// tile-ascend-inject-sync-double-buffer.mlir), same numbers.
//
// RUN: tile-opt %S/tile-ascend-inject-sync.mlir --tile-ascend-inject-sync=strategy=barrier | filecheck %s
// RUN: tile-opt %S/tile-ascend-inject-sync-cube.mlir --tile-ascend-inject-sync=strategy=barrier \
// RUN:   | filecheck %s --check-prefix=CUBE
// RUN: tile-opt %S/tile-ascend-inject-sync.mlir --tile-ascend-inject-sync=strategy=barrier \
// RUN:   | tile-sim - --arg arange:512xf32 --arg ones:512xf32 --arg zeros:512xf32 --print-outputs \
// RUN:   | filecheck %s --check-prefix=SIM

// CHECK-LABEL: func.func @straight
// CHECK:      ascend.copy %arg0[%c0]
// CHECK-NEXT: ascend.copy %arg1[%c0]
// CHECK-NEXT: ascend.pipe_barrier all
// CHECK-NEXT: ascend.vbin add
// CHECK-NEXT: ascend.pipe_barrier v
// CHECK-NEXT: ascend.vbins muls
// CHECK-NEXT: ascend.pipe_barrier all
// CHECK-NEXT: ascend.copy {{.*}}, %arg2[%c0]
// CHECK-NEXT: ascend.copy %arg0[%c256]
// CHECK-NEXT: ascend.copy %arg1[%c256]
// CHECK-NEXT: ascend.pipe_barrier all
// CHECK-NEXT: ascend.vbin add
// CHECK-NEXT: ascend.pipe_barrier all
// CHECK-NEXT: ascend.copy {{.*}}, %arg2[%c256]
// CHECK-NEXT: return
// CHECK-NOT: _flag

// CUBE-LABEL: func.func @gemm_k
// CUBE:      scf.for
// CUBE-NEXT: ascend.copy_nd2nz
// CUBE-NEXT: ascend.copy_nd2nz
// CUBE-NEXT: ascend.pipe_barrier all
// CUBE-NEXT: ascend.load_l0a
// CUBE-NEXT: ascend.load_l0b
// CUBE-NEXT: arith.cmpi
// CUBE-NEXT: scf.if
// CUBE-NEXT: ascend.pipe_barrier all
// CUBE-NEXT: ascend.mmad
// CUBE-NEXT: } else {
// CUBE-NEXT: ascend.pipe_barrier all
// CUBE-NEXT: ascend.mmad
// CUBE-NEXT: }
// CUBE-NEXT: }
// CUBE-NEXT: ascend.pipe_barrier all
// CUBE-NEXT: ascend.fixpipe
// CUBE-NOT: _flag

// SIM: races: 0
// SIM-NEXT: deadlocks: 0
// SIM-NEXT: sync instructions: 5 (set_flag 0, wait_flag 0, pipe_barrier 1, pipe_barrier all 4)
// SIM: %arg2 = [  2.   4.   6. ... 510. 511. 512.]
