// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// Global memory to L1 is an nd2nz copy into the Nz layout of the tile; the
// accumulator leaves through the fixpipe, which casts f32 to f16 and drops
// the writes past C's edge. The clear of the accumulator is no instruction.
// Cube tiles are allocated in their fractal shape; the views the cube
// lowerings take of them are identities that canonicalize removes.
// CHECK-LABEL: func.func @load_and_store
// CHECK-SAME: (%[[A:.*]]: memref<100x70xf16, #ascend.mem<gm>>, %[[C:.*]]: memref<100x130xf16, #ascend.mem<gm>>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK: %[[L1:.*]] = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
// CHECK: %[[NZ:.*]] = memref.reinterpret_cast %[[L1]] to offset: [0], sizes: [2, 4, 16, 16], strides: [1024, 256, 16, 1]
// CHECK: ascend.copy_nd2nz %[[A]][%[[I]], %[[J]]], %[[NZ]] sizes [64, 32] : memref<100x70xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
// CHECK: ascend.mmad {{.*}} {init}
// CHECK: ascend.fixpipe %{{.*}}, %[[C]][%[[I]], %[[J]]] sizes [64, 64] : memref<4x4x16x16xf32, #ascend.mem<l0c>>, memref<100x130xf16, #ascend.mem<gm>>
// CHECK-NOT: tile.clear
func.func @load_and_store(%A: memref<100x70xf16>, %C: memref<100x130xf16>, %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<32x64xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<64x64xf32, #tile.scope<l0c>>
    tile.copy %A[%i, %j], %a[%c0, %c0] : memref<100x70xf16>, memref<64x32xf16, #tile.scope<l1>>
    tile.gemm %a, %b, %acc : memref<64x32xf16, #tile.scope<l1>>, memref<32x64xf16, #tile.scope<l1>>, memref<64x64xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %C[%i, %j] : memref<64x64xf32, #tile.scope<l0c>>, memref<100x130xf16>
  }
  return
}

// -----

// A batch of matrices: the copies run over the matrix of batch %b, a
// rank-reducing view whole along the two dims the tile sees (dynamic here).
// CHECK-LABEL: func.func @batched
// CHECK-SAME: (%[[A:.*]]: memref<?x?x?xi8, #ascend.mem<gm>>, %[[C:.*]]: memref<?x?x?xi32, #ascend.mem<gm>>, %[[B:.*]]: index, %[[I:.*]]: index)
// CHECK: %[[M:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?x?xi8, #ascend.mem<gm>>
// CHECK: %[[K:.*]] = memref.dim %[[A]], %{{.*}} : memref<?x?x?xi8, #ascend.mem<gm>>
// CHECK: %[[AB:.*]] = memref.subview %[[A]][%[[B]], 0, 0] [1, %[[M]], %[[K]]] [1, 1, 1] : memref<?x?x?xi8, #ascend.mem<gm>> to memref<?x?xi8, strided<[?, 1], offset: ?>, #ascend.mem<gm>>
// CHECK: ascend.copy_nd2nz %[[AB]][%[[I]], %{{.*}}], %{{.*}} sizes [32, 64] : memref<?x?xi8, strided<[?, 1], offset: ?>, #ascend.mem<gm>>, memref<2x2x16x32xi8, #ascend.mem<l1>>
// CHECK: %[[CB:.*]] = memref.subview %[[C]][%[[B]], 0, 0]
// CHECK: ascend.fixpipe %{{.*}}, %[[CB]][%[[I]], %{{.*}}] sizes [32, 32] : memref<2x2x16x16xi32, #ascend.mem<l0c>>, memref<?x?xi32, strided<[?, 1], offset: ?>, #ascend.mem<gm>>
func.func @batched(%A: memref<?x?x?xi8>, %C: memref<?x?x?xi32>, %b: index, %i: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x64xi8, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xi32, #tile.scope<l0c>>
    tile.copy %A[%b, %i, %c0], %a[%c0, %c0] sizes [1, 32, 64] : memref<?x?x?xi8>, memref<32x64xi8, #tile.scope<l1>>
    tile.gemm %a, %a, %acc transpose_b clear_accum : memref<32x64xi8, #tile.scope<l1>>, memref<32x64xi8, #tile.scope<l1>>, memref<32x32xi32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %C[%b, %i, %c0] sizes [1, 32, 32] : memref<32x32xi32, #tile.scope<l0c>>, memref<?x?x?xi32>
  }
  return
}

// -----

// Tiles placed by hand in L0A and L0B: the copies from L1 are the loads,
// and the gemm multiplies them as they are.
// CHECK-LABEL: func.func @expert_l0_tiles
// CHECK: ascend.load_l0a %{{.*}}, %{{.*}} sizes [32, 16] : memref<1x2x16x16xf16, #ascend.mem<l1>>, memref<2x1x16x16xf16, #ascend.mem<l0a>>
// CHECK: ascend.load_l0b %{{.*}}, %{{.*}} sizes [16, 48] : memref<3x1x16x16xf16, #ascend.mem<l1>>, memref<1x3x16x16xf16, #ascend.mem<l0b>>
// CHECK: ascend.mmad %{{.*}}, %{{.*}}, %{{.*}} sizes [32, 48, 16] {init} : memref<2x1x16x16xf16, #ascend.mem<l0a>>, memref<1x3x16x16xf16, #ascend.mem<l0b>>
func.func @expert_l0_tiles(%C: memref<32x48xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a1 = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b1 = tile.alloc : memref<16x48xf16, #tile.scope<l1>>
    %a0 = tile.alloc : memref<32x16xf16, #tile.scope<l0a>>
    %b0 = tile.alloc : memref<16x48xf16, #tile.scope<l0b>>
    %acc = tile.alloc : memref<32x48xf32, #tile.scope<l0c>>
    tile.copy %a1[%c0, %c0], %a0[%c0, %c0] : memref<32x16xf16, #tile.scope<l1>>, memref<32x16xf16, #tile.scope<l0a>>
    tile.copy %b1[%c0, %c0], %b0[%c0, %c0] : memref<16x48xf16, #tile.scope<l1>>, memref<16x48xf16, #tile.scope<l0b>>
    tile.gemm %a0, %b0, %acc clear_accum : memref<32x16xf16, #tile.scope<l0a>>, memref<16x48xf16, #tile.scope<l0b>>, memref<32x48xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<32x48xf32, #tile.scope<l0c>>, memref<32x48xf32>
  }
  return
}

// -----

// A copy out that tile-ascend-place-tiles marked with the ReLU of its
// epilogue: the fixpipe applies it.
// CHECK-LABEL: func.func @relu
// CHECK: ascend.fixpipe %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] sizes [32, 32] {relu} : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<32x32xf16, #ascend.mem<gm>>
func.func @relu(%C: memref<32x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.gemm %a, %a, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] {ascend.relu} : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf16>
  }
  return
}

// -----

// 25 keys into a 64-row tile: the nd2nz moves the region into the leading
// corner of the whole tile, and zeros the rest (no other copy writes it).
// CHECK-LABEL: func.func @fewer_rows_than_the_tile
// CHECK: %[[L1:.*]] = memref.alloc() : memref<4x4x16x16xf16, #ascend.mem<l1>>
// CHECK: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [25, 64] : memref<?x?xf16, strided<[?, 1], offset: ?>, #ascend.mem<gm>>, memref<4x4x16x16xf16, #ascend.mem<l1>>
func.func @fewer_rows_than_the_tile(%K: memref<?x?x?xf16>, %C: memref<32x64xf32>, %q: index, %s: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x64xf16, #tile.scope<l1>>
    %k = tile.alloc : memref<64x64xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x64xf32, #tile.scope<l0c>>
    tile.copy %K[%q, %c0, %c0], %a[%c0, %c0] sizes [1, 32, 64] : memref<?x?x?xf16>, memref<32x64xf16, #tile.scope<l1>>
    tile.copy %K[%q, %s, %c0], %k[%c0, %c0] sizes [1, 25, 64] : memref<?x?x?xf16>, memref<64x64xf16, #tile.scope<l1>>
    tile.gemm %a, %k, %acc transpose_b clear_accum : memref<32x64xf16, #tile.scope<l1>>, memref<64x64xf16, #tile.scope<l1>>, memref<32x64xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<32x64xf32, #tile.scope<l0c>>, memref<32x64xf32>
  }
  return
}

// -----

// A copy into a row of an L1 tile (a key gathered from a flat paged cache): the
// flat tensor is the 1 x N matrix, and the nd2nz writes that row of the Nz tile.
// CHECK-LABEL: func.func @row_of_a_tile
// CHECK: scf.for %[[J:.*]] = %c0 to %c32 step
// CHECK: %[[M:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, %{{.*}}] : memref<?xf16, #ascend.mem<gm>> into memref<1x?xf16, #ascend.mem<gm>>
// CHECK: ascend.copy_nd2nz %[[M]][%{{.*}}, %{{.*}}], %{{.*}}[%[[J]]] sizes [1, 64] : memref<1x?xf16, #ascend.mem<gm>>, memref<4x2x16x16xf16, #ascend.mem<l1>>
func.func @row_of_a_tile(%K: memref<?xf16>, %Idx: memref<32xindex>, %C: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %k = tile.alloc : memref<32x64xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %j = %c0 to %c32 step %c1 {
      %t = memref.load %Idx[%j] : memref<32xindex>
      %base = arith.muli %t, %c64 : index
      tile.copy %K[%base], %k[%j, %c0] sizes [1, 64] : memref<?xf16>, memref<32x64xf16, #tile.scope<l1>>
    }
    tile.gemm %k, %k, %acc transpose_b clear_accum : memref<32x64xf16, #tile.scope<l1>>, memref<32x64xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<32x32xf32>
  }
  return
}
