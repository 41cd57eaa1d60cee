// A vector add whose loads are not ordered before the add: the mte2 -> v flag
// pair is missing. Each conflicting pair of ops is reported once, naming both
// ops and the UB bytes they share: the add against both loads, and the store
// (ordered after the add only) against the load of x.
//
// RUN: not tile-sim %s --arg x=random:256xf32 --arg y=random:256xf32 2>&1 | filecheck %s

func.func @vadd(%x: memref<256xf32, #ascend.mem<gm>>, %y: memref<256xf32, #ascend.mem<gm>>,
                %z: memref<256xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %xs = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %ys = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %xs[%c0] sizes [256]
      : memref<256xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.copy %y[%c0], %ys[%c0] sizes [256]
      : memref<256xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.vbin add %xs, %xs, %ys : memref<256xf32, #ascend.mem<ub>>
  ascend.set_flag v -> mte3, 0
  ascend.wait_flag v -> mte3, 0
  ascend.copy %xs[%c0], %z[%c0] sizes [256]
      : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  return
}

// CHECK: kernel @vadd (aiv) on 910b
// CHECK: races: 3
// CHECK-NEXT: deadlocks: 0
// CHECK: {{.*}}vadd-race.mlir:18:3: error: race (read-after-write): ascend.vbin add on V of block 0 aiv0 reads ub of block 0 aiv0, bytes [0, 1024) (memref<256xf32, #ascend.mem<ub>> allocated at {{.*}}vadd-race.mlir:12:9, offset 0) written by ascend.copy gm -> ub on MTE2 of block 0 aiv0 at {{.*}}vadd-race.mlir:14:3, and no flag, barrier or cross-core sync orders them
// CHECK: {{.*}}vadd-race.mlir:14:3: note: the conflicting write is here
// CHECK: {{.*}}vadd-race.mlir:21:3: error: race (read-after-write): ascend.copy ub -> gm on MTE3 of block 0 aiv0 reads ub of block 0 aiv0, bytes [0, 1024) {{.*}} written by ascend.copy gm -> ub on MTE2 of block 0 aiv0 at {{.*}}vadd-race.mlir:14:3
// CHECK: {{.*}}vadd-race.mlir:14:3: note: the conflicting write is here
// CHECK: {{.*}}vadd-race.mlir:16:3: error: race (write-after-read): ascend.copy gm -> ub on MTE2 of block 0 aiv0 writes ub of block 0 aiv0, bytes [1024, 2048) (memref<256xf32, #ascend.mem<ub>> allocated at {{.*}}vadd-race.mlir:13:9, offset 0) read by ascend.vbin add on V of block 0 aiv0 at {{.*}}vadd-race.mlir:18:3
// CHECK: {{.*}}vadd-race.mlir:18:3: note: the conflicting read is here
