// Atomic adds into GM: every block loads its 64-element slice of x and adds
// it into the same vector out with `ascend.copy ... atomic_add`. The adds of
// different blocks overlap and are unordered, yet commute: no race, and
// out[j] = sum over blocks b of x[64 b + j] = 4 j + 384. out has 60 elements,
// so the last 4 lanes of each add fall outside it and are dropped.
//
// RUN: tile-sim %s --kernel accumulate --arg x=arange:256xf32 --arg out=zeros:60xf32 \
// RUN:     --block-dim 4 --print-outputs | filecheck %s
// RUN: tile-sim %s --kernel accumulate_i8 --arg x=ones:256xi8 --arg out=arange:4xi8 \
// RUN:     --block-dim 2 --print-outputs | filecheck %s --check-prefix=I8
// RUN: not tile-sim %s --kernel accumulate_and_read --arg x=arange:256xf32 \
// RUN:     --arg out=zeros:64xf32 --block-dim 2 2>&1 | filecheck %s --check-prefix=RACE
// RUN: not tile-sim %s --kernel store_and_accumulate --arg x=arange:256xf32 \
// RUN:     --arg out=zeros:64xf32 --block-dim 2 2>&1 | filecheck %s --check-prefix=WAW

// CHECK: kernel @accumulate (aiv) on 910b
// CHECK: races: 0
// CHECK-NEXT: deadlocks: 0
// CHECK: %out = [384. 388. 392. 396.
// CHECK: 612. 616. 620.]{{$}}
func.func @accumulate(%x: memref<256xf32, #ascend.mem<gm>>, %out: memref<?xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %block = ascend.block_idx : index
  %start = arith.muli %block, %c64 : index
  %ub = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%start], %ub[%c0] sizes [64]
      : memref<256xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.set_flag mte2 -> mte3, 0
  ascend.wait_flag mte2 -> mte3, 0
  ascend.copy %ub[%c0], %out[%c0] sizes [64] atomic_add
      : memref<64xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  return
}

// i8 adds: each of the 2 blocks adds ones into the 4 lanes twice (two
// copies, from two halves of one UB buffer), so out[j] = j + 4.
// I8: races: 0
// I8: %out = [4 5 6 7]
func.func @accumulate_i8(%x: memref<256xi8, #ascend.mem<gm>>, %out: memref<4xi8, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %ub = memref.alloc() : memref<8xi8, #ascend.mem<ub>>
  ascend.copy %x[%c0], %ub[%c0] sizes [8]
      : memref<256xi8, #ascend.mem<gm>>, memref<8xi8, #ascend.mem<ub>>
  ascend.set_flag mte2 -> mte3, 0
  ascend.wait_flag mte2 -> mte3, 0
  ascend.copy %ub[%c0], %out[%c0] sizes [4] atomic_add
      : memref<8xi8, #ascend.mem<ub>>, memref<4xi8, #ascend.mem<gm>>
  ascend.copy %ub[%c4], %out[%c0] sizes [4] atomic_add
      : memref<8xi8, #ascend.mem<ub>>, memref<4xi8, #ascend.mem<gm>>
  return
}

// An atomic add is still a write to a plain read of another core: the load
// of out in each block races with the add of the other (one report, 2 times).
// RACE: races: 1
// RACE: atomic-add.mlir:[[# @LINE + 9]]:3: error: race (write-after-read): ascend.copy ub -> gm atomic_add on MTE3 of block 1 aiv1 writes argument %out, bytes [0, 256) read by ascend.copy gm -> ub on MTE2 of block 0 aiv0 at {{.*}}atomic-add.mlir:[[# @LINE + 5]]:3, and no flag, barrier or cross-core sync orders them (2 times)
func.func @accumulate_and_read(%x: memref<256xf32, #ascend.mem<gm>>, %out: memref<64xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.copy %out[%c0], %ub[%c0] sizes [64]
      : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.set_flag mte2 -> mte3, 0
  ascend.wait_flag mte2 -> mte3, 0
  ascend.copy %ub[%c0], %out[%c0] sizes [64] atomic_add
      : memref<64xf32, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<gm>>
  return
}

// Each block stores its own half of out (no race between the plain stores)
// and adds into all of it: the add races with the other block's store (each
// block's own store and add are ordered by its MTE3 barrier: the pipe overlaps
// DataCopys to overlapping GM otherwise).
// WAW: races: 1
// WAW: atomic-add.mlir:[[# @LINE + 11]]:3: error: race (write-after-write): ascend.copy ub -> gm atomic_add on MTE3 of block {{[01]}} aiv{{[01]}} writes argument %out, bytes {{.*}} written by ascend.copy ub -> gm on MTE3 of block {{[01]}} aiv{{[01]}} at {{.*}}atomic-add.mlir:[[# @LINE + 8]]:3, and no flag, barrier or cross-core sync orders them (2 times)
func.func @store_and_accumulate(%x: memref<256xf32, #ascend.mem<gm>>, %out: memref<64xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %block = ascend.block_idx : index
  %half = arith.muli %block, %c32 : index
  %ub = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.copy %ub[%c0], %out[%half] sizes [32]
      : memref<64xf32, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<gm>>
  ascend.pipe_barrier mte3
  ascend.copy %ub[%c0], %out[%c0] sizes [64] atomic_add
      : memref<64xf32, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<gm>>
  return
}
