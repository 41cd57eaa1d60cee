// RUN: tile-opt %s --convert-tile-to-ascend | filecheck %s

// Tiles are allocated at the start of the function, in the buffer of their
// scope: a portable scope that tile-ascend-place-tiles did not place is UB.

// CHECK-LABEL: func.func @alloc
// CHECK-NEXT: memref.alloc() : memref<8xf16, #ascend.mem<ub>>
// CHECK-NEXT: memref.alloc() : memref<16x128xf32, #ascend.mem<ub>>
// CHECK-NEXT: ascend.block_idx
// CHECK-NOT: tile.alloc
func.func @alloc(%n: index, %v: f32, %h: f16) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %a = tile.alloc : memref<16x128xf32, #tile.scope<fragment>>
    %b = tile.alloc : memref<8xf16, #tile.scope<ub>>
    tile.fill %a, %v : memref<16x128xf32, #tile.scope<fragment>>, f32
    tile.fill %b, %h : memref<8xf16, #tile.scope<ub>>, f16
  }
  return
}
