// RUN: tile-opt %s -split-input-file --convert-tile-to-cuda --canonicalize --cse | filecheck %s

// 20 rows of 64 f32 over 128 threads: 4 lanes per row (128 / 20, rounded
// down to a power of two). Lane j sums elements j, j + 4, ... of its row;
// two xor shuffles combine the lanes; lane 0 of the group adds the old
// value (clear = false) and stores. Groups past row 19 read row 0 and
// store nothing.
// CHECK-LABEL: func.func @shuffle
// CHECK: %[[M:.*]] = memref.view %{{.*}}[%c5120][] : {{.*}} to memref<20xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S:.*]] = memref.view %{{.*}}[%c0][] : {{.*}} to memref<20x64xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[LANE:.*]] = arith.remui %[[TID]], %c4 : index
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c4 : index
// CHECK: %[[VALID:.*]] = arith.cmpi ult, %[[ROW]], %c20 : index
// CHECK: %[[SAFE:.*]] = arith.select %[[VALID]], %[[ROW]], %c0 : index
// CHECK: %[[PART:.*]] = scf.for %[[K:.*]] = %[[LANE]] to %c64 step %c4 iter_args(%[[A:.*]] = %cst) -> (f32) {
// CHECK: memref.load %[[S]][%[[SAFE]], %[[K]]]
// CHECK: %[[X1:.*]], %{{.*}} = gpu.shuffle xor %[[PART]], %c2_i32, %c32_i32 : f32
// CHECK: %[[P1:.*]] = arith.addf %[[PART]], %[[X1]] : f32
// CHECK: %[[X2:.*]], %{{.*}} = gpu.shuffle xor %[[P1]], %c1_i32, %c32_i32 : f32
// CHECK: %[[P2:.*]] = arith.addf %[[P1]], %[[X2]] : f32
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[LANE]], %c0 : index
// CHECK: %[[WRITE:.*]] = arith.andi %[[FIRST]], %[[VALID]] : i1
// CHECK: scf.if %[[WRITE]] {
// CHECK: %[[OLD:.*]] = memref.load %[[M]][%[[SAFE]]]
// CHECK: %[[NEW:.*]] = arith.addf %[[OLD]], %[[P2]] : f32
// CHECK: memref.store %[[NEW]], %[[M]][%[[SAFE]]]
// CHECK: gpu.barrier
func.func @shuffle(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %s = tile.alloc : memref<20x64xf32, #tile.scope<fragment>>
    %m = tile.alloc : memref<20xf32, #tile.scope<fragment>>
    tile.reduce sum %s, %m dim = 1 clear = false : memref<20x64xf32, #tile.scope<fragment>>, memref<20xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// One thread per output element when there are as many outputs as
// threads (or 16-bit elements): output e on thread e % 32, walking the
// reduced dimension from the old value (clear = false). A cumsum along
// dim 0 gives each thread whole columns, from the end with reverse.
// CHECK-LABEL: func.func @by_threads
// CHECK-NOT: gpu.shuffle
// CHECK: %[[M:.*]] = memref.view %{{.*}}[%c4096][] : {{.*}} to memref<32xf32, #gpu.address_space<workgroup>>
// CHECK: %[[S:.*]] = memref.view %{{.*}}[%c0][] : {{.*}} to memref<32x32xf32, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: scf.for %[[E:.*]] = %[[TID]] to %c32 step %c32 {
// CHECK: %[[OLD:.*]] = memref.load %[[M]][%[[E]]]
// CHECK: %[[MAX:.*]] = scf.for %[[K:.*]] = %c0 to %c32 step %c1 iter_args(%[[A:.*]] = %[[OLD]]) -> (f32) {
// CHECK: %[[X:.*]] = memref.load %[[S]][%[[E]], %[[K]]]
// CHECK: %[[Y:.*]] = arith.maximumf %[[A]], %[[X]] : f32
// CHECK: scf.yield %[[Y]] : f32
// CHECK: memref.store %[[MAX]], %[[M]][%[[E]]]
// CHECK: gpu.barrier
// CHECK: scf.for %[[COL:.*]] = %[[TID]] to %c32 step %c32 {
// CHECK: scf.for %[[R:.*]] = %c0 to %c32 step %c1 iter_args(%[[SUM:.*]] = %cst) -> (f32) {
// CHECK: %[[ROW:.*]] = arith.subi %c31, %[[R]] : index
// CHECK: %[[V:.*]] = memref.load %[[S]][%[[ROW]], %[[COL]]]
// CHECK: %[[T:.*]] = arith.addf %[[SUM]], %[[V]] : f32
// CHECK: memref.store %[[T]], %[[S]][%[[ROW]], %[[COL]]]
// CHECK: gpu.barrier
func.func @by_threads(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %s = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %m = tile.alloc : memref<32xf32, #tile.scope<fragment>>
    tile.reduce max %s, %m dim = 1 clear = false : memref<32x32xf32, #tile.scope<fragment>>, memref<32xf32, #tile.scope<fragment>>
    tile.cumsum %s, %s dim = 0 reverse = true : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}
