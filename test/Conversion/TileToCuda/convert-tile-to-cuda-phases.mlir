// RUN: tile-opt %s --convert-tile-to-cuda --canonicalize | filecheck %s

// The tile ops of the later phases are collected once, after the software
// pipelines; a tile.parallel's lowering clones its body once per slot, so a
// tile op of a later phase inside it (here a tile.barrier) is collected
// afresh after the parallels: each of the two slots' copies of the body
// gets its gpu.barrier, and no tile op is left.
// CHECK-LABEL: func.func @barrier_in_parallel
// CHECK: gpu.launch
// CHECK: memref.load %{{.*}}[%c0] : memref<2xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c0] : memref<2xf32>
// CHECK-NEXT: memref.load %{{.*}}[%c1] : memref<2xf32>
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: memref.store %{{.*}}, %{{.*}}[%c1] : memref<2xf32>
// CHECK-NOT: tile.
func.func @barrier_in_parallel(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %x = tile.alloc : memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i) in (64) {
      %v = memref.load %x[%i] : memref<64xf32, #tile.scope<fragment>>
      tile.barrier
      memref.store %v, %x[%i] : memref<64xf32, #tile.scope<fragment>>
    }
  }
  return
}
