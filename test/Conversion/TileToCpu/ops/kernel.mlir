// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu=ops=tile.pipelined,tile.barrier,tile.alloc,tile.kernel | filecheck %s

// The grid becomes an scf.parallel whose body allocates the block's tiles
// on the stack first; the pipelined loop becomes scf.for; the barrier goes;
// the entry function gets the C interface.
// CHECK-LABEL: func.func @kernel
// CHECK-SAME: (%[[A:.*]]: memref<?xf32>, %[[N:.*]]: index, %[[M:.*]]: index, %[[K:.*]]: index)
// CHECK-SAME: attributes {llvm.emit_c_interface, tile.entry}
// CHECK: scf.parallel (%[[BX:.*]], %[[BY:.*]]) = (%{{.*}}, %{{.*}}) to (%[[N]], %[[M]]) step (%{{.*}}, %{{.*}}) {
// CHECK-NEXT: %[[T:.*]] = memref.alloca() {alignment = 64 : i64} : memref<64xf32, #tile.scope<shared>>
// CHECK: scf.for %[[KK:.*]] = %{{.*}} to %[[K]] step %{{.*}} {
// CHECK-NEXT: memref.store %{{.*}}, %[[T]][%[[BX]]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.reduce
// CHECK-NOT: tile.
func.func @kernel(%A: memref<?xf32>, %n: index, %m: index, %k: index) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = arith.constant 1.0 : f32
  tile.kernel blocks(%bx, %by) in (%n, %m) threads = 128 {
    tile.pipelined %kk = %c0 to %k step %c1 num_stages = 3 {
      %t = tile.alloc : memref<64xf32, #tile.scope<shared>>
      memref.store %v, %t[%bx] : memref<64xf32, #tile.scope<shared>>
      tile.barrier
    }
  }
  return
}

// -----

// A tile over the stack budget is heap memory, freed when the block ends.
// CHECK-LABEL: func.func @big_tile
// CHECK-NOT: llvm.emit_c_interface
// CHECK: scf.parallel
// CHECK-NEXT: %[[T:.*]] = memref.alloc() {alignment = 64 : i64} : memref<512x512xf32, #tile.scope<shared>>
// CHECK: memref.dealloc %[[T]]
// CHECK-NEXT: scf.reduce
func.func @big_tile(%n: index) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  tile.kernel blocks(%bx) in (%n) threads = 1 {
    %t = tile.alloc : memref<512x512xf32, #tile.scope<shared>>
    memref.store %v, %t[%c0, %c0] : memref<512x512xf32, #tile.scope<shared>>
  }
  return
}
