// Output parses back and is stable; stdin and -o work.
// RUN: tile-opt %s | tile-opt | filecheck %s
// RUN: tile-opt < %s | filecheck %s
// RUN: tile-opt %s -o %t.mlir && tile-opt %t.mlir | filecheck %s

// CHECK-LABEL: func.func @fill_shared
// CHECK: tile.fill %{{.*}}, %{{.*}} : memref<16x16xf32, #tile.scope<shared>>, f32
func.func @fill_shared(%a: memref<16x16xf32, #tile.scope<shared>>) {
  %c = arith.constant 1.0 : f32
  tile.fill %a, %c : memref<16x16xf32, #tile.scope<shared>>, f32
  return
}
