// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu=ops=tile.gemm | filecheck %s
// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu="ops=tile.gemm target=cpu:avx512" | filecheck %s --check-prefix=AVX512

// The whole-tile copy that fills B for the gemm alone writes B's panels
// instead (16 columns each with 8-lane AVX2 vectors): one copy per panel of
// its columns, the last panel the 8 columns left of 40. B's tile is gone and
// nothing packs the panels. The copies keep the pad.
// CHECK-LABEL: func.func @fused
// CHECK-SAME: (%[[G:.*]]: memref<?x?xf32>, %[[K:.*]]: index, %[[J:.*]]: index,
// CHECK: %[[P:.*]] = tile.alloc : memref<3x8x16xf32, #tile.scope<local>>
// CHECK-NOT: memref<8x40xf32
// CHECK: tile.copy %[[G]][%[[K]], %[[J]]], %[[P]][%{{.*}}, %{{.*}}, %{{.*}}] sizes [1, 8, 16] pad(%[[PAD:.*]] : f32)
// CHECK: %[[J1:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: tile.copy %[[G]][%[[K]], %[[J1]]], %[[P]][%{{.*}}, %{{.*}}, %{{.*}}] sizes [1, 8, 16] pad(%[[PAD]] : f32)
// CHECK: %[[J2:.*]] = arith.addi %[[J]], %{{.*}} : index
// CHECK: tile.copy %[[G]][%[[K]], %[[J2]]], %[[P]][%{{.*}}, %{{.*}}, %{{.*}}] sizes [1, 8, 8] pad(%[[PAD]] : f32)
// CHECK-NOT: vector.store %{{.*}}, %[[P]]
// CHECK: scf.for {{.*}} iter_args
// CHECK: vector.load %[[P]]
// CHECK-NOT: tile.gemm
// AVX512-LABEL: func.func @fused
// AVX512: tile.alloc : memref<2x8x32xf32, #tile.scope<local>>
// AVX512-COUNT-2: tile.copy {{.*}} sizes [1, 8, {{(32|8)}}]
func.func @fused(%B: memref<?x?xf32>, %k: index, %j: index, %a: memref<4x8xf32, #tile.scope<shared>>, %c: memref<4x40xf32, #tile.scope<fragment>>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 1.0 : f32
  %b = tile.alloc : memref<8x40xf32, #tile.scope<shared>>
  tile.copy %B[%k, %j], %b[%c0, %c0] pad(%pad : f32) : memref<?x?xf32>, memref<8x40xf32, #tile.scope<shared>>
  tile.gemm %a, %b, %c : memref<4x8xf32, #tile.scope<shared>>, memref<8x40xf32, #tile.scope<shared>>, memref<4x40xf32, #tile.scope<fragment>>
  return
}

// -----

// A B tile that something else reads too (here a copy out), is filled only
// in part, or whose copy converts elements stays a tile that the gemm
// packs; the copies are left alone.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: tile.alloc : memref<1x8x16xf32, #tile.scope<local>>
// CHECK-COUNT-3: tile.alloc : memref<8x16xf32, #tile.scope<shared>>
// CHECK: tile.copy %{{.*}} : memref<?x?xf32>, memref<8x16xf32, #tile.scope<shared>>
// CHECK: tile.copy %{{.*}} : memref<8x16xf32, #tile.scope<shared>>, memref<?x?xf32>
// CHECK: tile.copy %{{.*}} sizes [4, 16] : memref<?x?xf32>, memref<8x16xf32, #tile.scope<shared>>
// CHECK: tile.copy %{{.*}} : memref<?x?xf16>, memref<8x16xf32, #tile.scope<shared>>
func.func @kept(%B: memref<?x?xf32>, %H: memref<?x?xf16>, %k: index, %a: memref<4x8xf32, #tile.scope<shared>>, %c: memref<4x16xf32, #tile.scope<fragment>>) {
  %c0 = arith.constant 0 : index
  %read = tile.alloc : memref<8x16xf32, #tile.scope<shared>>
  %part = tile.alloc : memref<8x16xf32, #tile.scope<shared>>
  %conv = tile.alloc : memref<8x16xf32, #tile.scope<shared>>
  tile.copy %B[%k, %c0], %read[%c0, %c0] : memref<?x?xf32>, memref<8x16xf32, #tile.scope<shared>>
  tile.gemm %a, %read, %c : memref<4x8xf32, #tile.scope<shared>>, memref<8x16xf32, #tile.scope<shared>>, memref<4x16xf32, #tile.scope<fragment>>
  tile.copy %read[%c0, %c0], %B[%k, %c0] : memref<8x16xf32, #tile.scope<shared>>, memref<?x?xf32>
  tile.copy %B[%k, %c0], %part[%c0, %c0] sizes [4, 16] : memref<?x?xf32>, memref<8x16xf32, #tile.scope<shared>>
  tile.gemm %a, %part, %c : memref<4x8xf32, #tile.scope<shared>>, memref<8x16xf32, #tile.scope<shared>>, memref<4x16xf32, #tile.scope<fragment>>
  tile.copy %H[%k, %c0], %conv[%c0, %c0] : memref<?x?xf16>, memref<8x16xf32, #tile.scope<shared>>
  tile.gemm %a, %conv, %c : memref<4x8xf32, #tile.scope<shared>>, memref<8x16xf32, #tile.scope<shared>>, memref<4x16xf32, #tile.scope<fragment>>
  return
}

// -----

// With AVX-512's 32 registers a micro-tile is 8 rows of 2 vectors of 16
// lanes (16 accumulators); AVX2 keeps 6 rows of 2 vectors of 8 (12).
// CHECK-LABEL: func.func @micro_rows
// CHECK: scf.for {{.*}} -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>) {
// AVX512-LABEL: func.func @micro_rows
// AVX512: scf.for {{.*}} -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
// AVX512-NOT: scf.for {{.*}} iter_args
func.func @micro_rows(%a: memref<8x4xf32, #tile.scope<shared>>, %b: memref<4x32xf32, #tile.scope<shared>>, %c: memref<8x32xf32, #tile.scope<fragment>>) {
  tile.gemm %a, %b, %c : memref<8x4xf32, #tile.scope<shared>>, memref<4x32xf32, #tile.scope<shared>>, memref<8x32xf32, #tile.scope<fragment>>
  return
}
