// RUN: tile-opt %s -split-input-file --tile-ascend-k-slabs="target=ascend:950" | filecheck %s

// TileLang's usual tiles: a K loop of 32 iterations of block_K = 64 that only
// copies A (128 x 64) and B (64 x 256) from GM and multiplies them. The loop
// walks K in slabs of 4 iterations (256 f16 of K: a 512 B DMA burst per row
// of A): one copy per operand per slab, into tiles 4 times as deep, and one
// gemm over the slab. Two slots of the slabs (192 KiB each) fit L1.
// CHECK-LABEL: func.func @slabs
// CHECK: %[[A:.*]] = tile.alloc : memref<128x256xf16, #tile.scope<l1>>
// CHECK: %[[B:.*]] = tile.alloc : memref<256x256xf16, #tile.scope<l1>>
// CHECK: %[[FOUR:.*]] = arith.constant 4 : index
// CHECK: tile.pipelined %[[K:.*]] = %{{.*}} to %{{.*}} step %[[FOUR]] num_stages = 2
// CHECK: %[[KO:.*]] = arith.muli %[[K]], %{{.*}} : index
// CHECK: tile.copy %{{.*}}[%{{.*}}, %[[KO]]], %[[A]][%{{.*}}] : memref<2048x2048xf16>, memref<128x256xf16, #tile.scope<l1>>
// CHECK: tile.copy %{{.*}}, %[[B]][%{{.*}}] : memref<2048x2048xf16>, memref<256x256xf16, #tile.scope<l1>>
// CHECK: tile.gemm %[[A]], %[[B]], %{{.*}} : memref<128x256xf16, #tile.scope<l1>>, memref<256x256xf16, #tile.scope<l1>>
func.func @slabs(%A: memref<2048x2048xf16>, %B: memref<2048x2048xf16>, %C: memref<2048x2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %c256 = arith.constant 256 : index
  tile.kernel blocks(%bx, %by) in (%c32, %c32) threads = 128 {
    %a = tile.alloc : memref<128x64xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<64x256xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<128x256xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<128x256xf32, #tile.scope<l0c>>
    tile.pipelined %k = %c0 to %c32 step %c1 num_stages = 2 {
      %m = arith.muli %by, %c128 : index
      %ko = arith.muli %k, %c64 : index
      tile.copy %A[%m, %ko], %a[%c0, %c0] : memref<2048x2048xf16>, memref<128x64xf16, #tile.scope<l1>>
      %kb = arith.muli %k, %c64 : index
      %n = arith.muli %bx, %c256 : index
      tile.copy %B[%kb, %n], %b[%c0, %c0] : memref<2048x2048xf16>, memref<64x256xf16, #tile.scope<l1>>
      tile.gemm %a, %b, %acc : memref<128x64xf16, #tile.scope<l1>>, memref<64x256xf16, #tile.scope<l1>>, memref<128x256xf32, #tile.scope<l0c>>
    }
    %m = arith.muli %by, %c128 : index
    %n = arith.muli %bx, %c256 : index
    tile.copy %acc[%c0, %c0], %C[%m, %n] : memref<128x256xf32, #tile.scope<l0c>>, memref<2048x2048xf32>
  }
  return
}

// -----

// Six iterations: a slab of 4 would read past the K the loop walks, so the
// slab is the largest divisor of the trip count up to 4 (3 iterations).
// CHECK-LABEL: func.func @divisor
// CHECK: tile.alloc : memref<128x192xf16, #tile.scope<l1>>
// CHECK: tile.alloc : memref<192x256xf16, #tile.scope<l1>>
// CHECK: %[[THREE:.*]] = arith.constant 3 : index
// CHECK: tile.pipelined %{{.*}} step %[[THREE]] num_stages = 2
func.func @divisor(%A: memref<128x384xf16>, %B: memref<384x256xf16>, %C: memref<128x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<128x64xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<64x256xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<128x256xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<128x256xf32, #tile.scope<l0c>>
    tile.pipelined %k = %c0 to %c6 step %c1 num_stages = 2 {
      %ko = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %ko], %a[%c0, %c0] : memref<128x384xf16>, memref<128x64xf16, #tile.scope<l1>>
      tile.copy %B[%ko, %c0], %b[%c0, %c0] : memref<384x256xf16>, memref<64x256xf16, #tile.scope<l1>>
      tile.gemm %a, %b, %acc : memref<128x64xf16, #tile.scope<l1>>, memref<64x256xf16, #tile.scope<l1>>, memref<128x256xf32, #tile.scope<l0c>>
    }
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<128x256xf32, #tile.scope<l0c>>, memref<128x256xf32>
  }
  return
}

// -----

// Loops left as they are: a dynamic trip count (a slab could read past the
// K the loop walks), and a loop whose copies walk another dim than the gemm's
// K (attention's keys: Bᵀ is N x K and the loop walks N).
// CHECK-LABEL: func.func @unchanged
// CHECK: tile.alloc : memref<128x64xf16, #tile.scope<l1>>
// CHECK: tile.alloc : memref<64x128xf16, #tile.scope<l1>>
// CHECK: tile.pipelined %{{.*}} step %[[ONE:[^ ]*]] num_stages = 2
// CHECK: tile.alloc : memref<128x64xf16, #tile.scope<l1>>
// CHECK: tile.alloc : memref<128x64xf16, #tile.scope<l1>>
// CHECK: tile.pipelined %{{.*}} step %[[ONE]] num_stages = 2
func.func @unchanged(%A: memref<128x?xf16>, %B: memref<?x128xf16>, %C: memref<128x128xf32>,
                     %K: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<128x64xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<64x128xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<128x128xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<128x128xf32, #tile.scope<l0c>>
    tile.pipelined %k = %c0 to %K step %c1 num_stages = 2 {
      %ko = arith.muli %k, %c64 : index
      tile.copy %A[%c0, %ko], %a[%c0, %c0] : memref<128x?xf16>, memref<128x64xf16, #tile.scope<l1>>
      tile.copy %B[%ko, %c0], %b[%c0, %c0] : memref<?x128xf16>, memref<64x128xf16, #tile.scope<l1>>
      tile.gemm %a, %b, %acc : memref<128x64xf16, #tile.scope<l1>>, memref<64x128xf16, #tile.scope<l1>>, memref<128x128xf32, #tile.scope<l0c>>
    }
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<128x128xf32, #tile.scope<l0c>>, memref<128x128xf32>
    %q = tile.alloc : memref<128x64xf16, #tile.scope<l1>>
    %keys = tile.alloc : memref<128x64xf16, #tile.scope<l1>>
    %s = tile.alloc : memref<128x128xf32, #tile.scope<l0c>>
    tile.clear %s : memref<128x128xf32, #tile.scope<l0c>>
    tile.pipelined %t = %c0 to %c8 step %c1 num_stages = 2 {
      %kn = arith.muli %t, %c128 : index
      tile.copy %B[%kn, %c0], %keys[%c0, %c0] : memref<?x128xf16>, memref<128x64xf16, #tile.scope<l1>>
      tile.copy %A[%c0, %c0], %q[%c0, %c0] : memref<128x?xf16>, memref<128x64xf16, #tile.scope<l1>>
      tile.gemm %q, %keys, %s transpose_b : memref<128x64xf16, #tile.scope<l1>>, memref<128x64xf16, #tile.scope<l1>>, memref<128x128xf32, #tile.scope<l0c>>
    }
    tile.copy %s[%c0, %c0], %C[%c0, %c0] : memref<128x128xf32, #tile.scope<l0c>>, memref<128x128xf32>
  }
  return
}
