// RUN: tile-opt %s -split-input-file --tile-canonicalize-ops | filecheck %s
// Nested under func.func it runs per function with the same result.
// RUN: tile-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-canonicalize-ops))' | filecheck %s

!acc = memref<64x64xf32, #tile.scope<fragment>>
!a = memref<64x32xf16, #tile.scope<shared>>
!b = memref<32x64xf16, #tile.scope<shared>>

// A zero fill becomes a clear, and a clear that only feeds a gemm becomes
// the gemm's clear_accum.
// CHECK-LABEL: func.func @fold_zero_fill_into_gemm
// CHECK-SAME: (%[[A:.*]]: memref<64x32xf16, {{.*}}>, %[[B:.*]]: memref<32x64xf16, {{.*}}>, %[[C:.*]]: memref<64x64xf32, {{.*}}>)
// CHECK-NOT: tile.fill
// CHECK-NOT: tile.clear
// CHECK: tile.gemm %[[A]], %[[B]], %[[C]] clear_accum :
// CHECK-NEXT: return
func.func @fold_zero_fill_into_gemm(%a: !a, %b: !b, %acc: !acc) {
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : !acc, f32
  tile.gemm %a, %b, %acc : !a, !b, !acc
  return
}

// -----

// A non-zero fill is kept, and so is the gemm's accumulation.
// CHECK-LABEL: func.func @keep_nonzero_fill
// CHECK: tile.fill %{{.*}}, %{{.*}} : memref<64x64xf32, #tile.scope<fragment>>, f32
// CHECK: tile.gemm
// CHECK-NOT: clear_accum
func.func @keep_nonzero_fill(%a: memref<64x32xf16, #tile.scope<shared>>, %b: memref<32x64xf16, #tile.scope<shared>>, %acc: memref<64x64xf32, #tile.scope<fragment>>) {
  %one = arith.constant 1.0 : f32
  tile.fill %acc, %one : memref<64x64xf32, #tile.scope<fragment>>, f32
  tile.gemm %a, %b, %acc : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  return
}

// -----

// A clear read by something else first stays a clear.
// CHECK-LABEL: func.func @clear_read_before_gemm
// CHECK: tile.clear %[[ACC:.*]] :
// CHECK-NEXT: tile.copy %[[ACC]]
// CHECK-NEXT: tile.gemm
// CHECK-NOT: clear_accum
func.func @clear_read_before_gemm(%a: memref<64x32xf16, #tile.scope<shared>>, %b: memref<32x64xf16, #tile.scope<shared>>, %acc: memref<64x64xf32, #tile.scope<fragment>>, %out: memref<?x?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  tile.fill %acc, %zero : memref<64x64xf32, #tile.scope<fragment>>, f32
  tile.copy %acc[%c0, %c0], %out[%c0, %c0] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xf32>
  tile.gemm %a, %b, %acc : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  return
}

// -----

// A fill overwritten before anything reads the tile is dead.
// CHECK-LABEL: func.func @overwritten_fill
// CHECK-SAME: (%[[T:.*]]: memref<16xf32, #tile.scope<local>>, %[[V:.*]]: f32)
// CHECK-NOT: tile.clear
// CHECK: tile.fill %[[T]], %[[V]]
// CHECK-NOT: tile.fill
func.func @overwritten_fill(%t: memref<16xf32, #tile.scope<local>>, %v: f32) {
  tile.clear %t : memref<16xf32, #tile.scope<local>>
  tile.fill %t, %v : memref<16xf32, #tile.scope<local>>, f32
  return
}

// -----

// An integer zero fill is a clear too; -0.0 is not zero for this purpose.
// CHECK-LABEL: func.func @int_zero_and_negative_zero
// CHECK: tile.clear %{{.*}} : memref<16xi32, #tile.scope<local>>
// CHECK: tile.fill %{{.*}}, %{{.*}} : memref<16xf32, #tile.scope<local>>, f32
func.func @int_zero_and_negative_zero(%i: memref<16xi32, #tile.scope<local>>, %f: memref<16xf32, #tile.scope<local>>) {
  %zi = arith.constant 0 : i32
  %nz = arith.constant -0.0 : f32
  tile.fill %i, %zi : memref<16xi32, #tile.scope<local>>, i32
  tile.fill %f, %nz : memref<16xf32, #tile.scope<local>>, f32
  return
}

// -----

// A view of the tile may be read between the two fills: nothing is erased.
// CHECK-LABEL: func.func @aliased_tile_keeps_fills
// CHECK: tile.clear
// CHECK: tile.fill
func.func @aliased_tile_keeps_fills(%t: memref<16xf32, #tile.scope<local>>, %v: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %view = memref.subview %t[0] [8] [1] : memref<16xf32, #tile.scope<local>> to memref<8xf32, strided<[1]>, #tile.scope<local>>
  tile.clear %t : memref<16xf32, #tile.scope<local>>
  %x = memref.load %view[%c0] : memref<8xf32, strided<[1]>, #tile.scope<local>>
  tile.fill %t, %v : memref<16xf32, #tile.scope<local>>, f32
  return %x : f32
}
