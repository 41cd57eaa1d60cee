// RUN: tile-opt %s -split-input-file --tile-cpu-erase-scopes | filecheck %s

// Scoped memrefs in the signature, results and block arguments lose their
// memory space; global memrefs and layouts are kept.
// CHECK-LABEL: func.func @erase
// CHECK-SAME: (%{{.*}}: memref<8xf32>, %{{.*}}: memref<?xf32>) -> memref<8xf32>
// CHECK: memref.alloca() : memref<4x4xf16>
// CHECK: memref.subview %{{.*}}[0] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1]>>
// CHECK-NOT: #tile.scope
func.func @erase(%t: memref<8xf32, #tile.scope<fragment>>, %g: memref<?xf32>) -> memref<8xf32, #tile.scope<fragment>> {
  %a = memref.alloca() : memref<4x4xf16, #tile.scope<shared>>
  %v = memref.subview %t[0] [4] [1] : memref<8xf32, #tile.scope<fragment>> to memref<4xf32, strided<[1]>, #tile.scope<fragment>>
  return %t : memref<8xf32, #tile.scope<fragment>>
}
