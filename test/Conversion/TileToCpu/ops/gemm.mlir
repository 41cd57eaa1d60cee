// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu=ops=tile.gemm | filecheck %s

// A 6x16 f32 gemm is one micro-tile: B is packed into one 16-wide panel,
// then 6x2 accumulators of vector<8xf32> are loaded from C, updated by
// broadcast-A x panel-row fmas, and stored back.
// CHECK-LABEL: func.func @micro_tile
// CHECK-SAME: (%[[A:.*]]: memref<6x4xf32, {{.*}}>, %[[B:.*]]: memref<4x16xf32, {{.*}}>, %[[C:.*]]: memref<6x16xf32, {{.*}}>)
// CHECK: %[[P:.*]] = tile.alloc : memref<1x4x16xf32, #tile.scope<local>>
// CHECK: %[[ROW:.*]] = vector.load %[[B]][%[[KP:.*]], %{{.*}}] : memref<4x16xf32, {{.*}}>, vector<16xf32>
// CHECK: vector.store %[[ROW]], %[[P]][%{{.*}}, %[[KP]], %{{.*}}]
// CHECK: %[[C00:.*]] = vector.load %[[C]]
// CHECK: %[[ACC:.*]]:12 = scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[X:.*]] = %[[C00]], {{.*}}) -> (vector<8xf32>,
// CHECK: %[[B0:.*]] = vector.load %[[P]][%{{.*}}, %[[K]], %{{.*}}] : memref<1x4x16xf32, {{.*}}>, vector<8xf32>
// CHECK: %[[A0:.*]] = memref.load %[[A]][%{{.*}}, %[[K]]]
// CHECK: %[[S:.*]] = vector.broadcast %[[A0]] : f32 to vector<8xf32>
// CHECK: vector.fma %[[S]], %[[B0]], %[[X]] : vector<8xf32>
// CHECK: vector.store %[[ACC]]#0, %[[C]]
// CHECK-NOT: tile.gemm
func.func @micro_tile(%a: memref<6x4xf32, #tile.scope<shared>>, %b: memref<4x16xf32, #tile.scope<shared>>, %c: memref<6x16xf32, #tile.scope<fragment>>) {
  tile.gemm %a, %b, %c : memref<6x4xf32, #tile.scope<shared>>, memref<4x16xf32, #tile.scope<shared>>, memref<6x16xf32, #tile.scope<fragment>>
  return
}

// -----

// Edges: 7 rows are one 6-row micro-tile plus a 1-row one; 19 columns are
// a 16-wide panel plus a 3-wide vector. clear_accum starts from zero.
// CHECK-LABEL: func.func @edges
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>) {
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<3xf32>, vector<3xf32>, vector<3xf32>, vector<3xf32>, vector<3xf32>, vector<3xf32>) {
// CHECK: scf.for %{{.*}} iter_args({{.*}}) -> (vector<3xf32>) {
// CHECK-NOT: vector.load %{{.*}} : memref<7x19xf32
func.func @edges(%a: memref<7x5xf32, #tile.scope<shared>>, %b: memref<5x19xf32, #tile.scope<shared>>, %c: memref<7x19xf32, #tile.scope<fragment>>) {
  tile.gemm %a, %b, %c clear_accum : memref<7x5xf32, #tile.scope<shared>>, memref<5x19xf32, #tile.scope<shared>>, memref<7x19xf32, #tile.scope<fragment>>
  return
}

// -----

// f16 operands are converted to f32 scratch tiles allocated at the start of
// the kernel; a transposed B is packed into panels on the way (8x8 blocks:
// eight rows of B loaded as vectors, converted and transposed with shuffles),
// a transposed A is read in place.
// CHECK-LABEL: func.func @f16_transposed
// CHECK: tile.kernel
// CHECK-NEXT: %[[PB:.*]] = tile.alloc : memref<1x8x16xf32, #tile.scope<local>>
// CHECK-NEXT: %[[PA:.*]] = tile.alloc : memref<8x6xf32, #tile.scope<local>>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: memref.store %{{.*}}, %[[PA]]
// CHECK: vector.load %{{.*}}[%{{.*}}, %[[K:.*]]] : memref<16x8xf16, {{.*}}>, vector<8xf16>
// CHECK: arith.extf %{{.*}} : vector<8xf16> to vector<8xf32>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 8, 9, 10, 11] : vector<8xf32>, vector<8xf32>
// CHECK: vector.store %{{.*}}, %[[PB]][%{{.*}}, %{{.*}}, %{{.*}}] : memref<1x8x16xf32, {{.*}}>, vector<8xf32>
// CHECK-NOT: memref.load %{{.*}} : memref<16x8xf16
// CHECK: vector.load %[[PB]]
// CHECK: memref.load %[[PA]][%{{.*}}, %{{.*}}] : memref<8x6xf32
func.func @f16_transposed(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 1 {
    %a = tile.alloc : memref<8x6xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<16x8xf16, #tile.scope<shared>>
    %c = tile.alloc : memref<6x16xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c transpose_a transpose_b : memref<8x6xf16, #tile.scope<shared>>, memref<16x8xf16, #tile.scope<shared>>, memref<6x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// A transposed B whose K (10) and panel width (12) are not multiples of the
// 8 lanes: one 8x8 block is transposed in registers, the lanes past it and
// the K rows past it are moved element by element.
// CHECK-LABEL: func.func @transposed_edges
// CHECK: vector.load %{{.*}} : memref<12x10xf32, {{.*}}>, vector<8xf32>
// CHECK-COUNT-24: vector.shuffle
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK: scf.for %[[L:.*]] = %{{.*}} to %{{.*}} step
// CHECK: memref.load %{{.*}} : memref<12x10xf32
func.func @transposed_edges(%a: memref<4x10xf32, #tile.scope<shared>>, %b: memref<12x10xf32, #tile.scope<shared>>, %c: memref<4x12xf32, #tile.scope<fragment>>) {
  tile.gemm %a, %b, %c transpose_b : memref<4x10xf32, #tile.scope<shared>>, memref<12x10xf32, #tile.scope<shared>>, memref<4x12xf32, #tile.scope<fragment>>
  return
}

// -----

// i8 x i8 -> i32 multiplies and adds in i32 vectors.
// CHECK-LABEL: func.func @int8
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[P:.*]] = arith.muli %{{.*}}, %{{.*}} : vector<8xi32>
// CHECK: arith.addi %{{.*}}, %[[P]] : vector<8xi32>
func.func @int8(%a: memref<6x4xi8, #tile.scope<shared>>, %b: memref<4x8xi8, #tile.scope<shared>>, %c: memref<6x8xi32, #tile.scope<fragment>>) {
  tile.gemm %a, %b, %c : memref<6x4xi8, #tile.scope<shared>>, memref<4x8xi8, #tile.scope<shared>>, memref<6x8xi32, #tile.scope<fragment>>
  return
}

// -----

// 8-bit float operands are converted to f32 like f16 ones: A into a scratch
// tile, B while it is packed (tile-cpu-emulate-fp8 lowers the extf later).
// CHECK-LABEL: func.func @fp8
// CHECK: %[[PB:.*]] = tile.alloc : memref<1x4x16xf32, #tile.scope<local>>
// CHECK: %[[PA:.*]] = tile.alloc : memref<6x4xf32, #tile.scope<local>>
// CHECK: %[[A:.*]] = arith.extf %{{.*}} : f8E4M3FN to f32
// CHECK: memref.store %[[A]], %[[PA]]
// CHECK: %[[ROW:.*]] = vector.load %{{.*}} : memref<4x8xf8E4M3FN, #tile.scope<shared>>, vector<8xf8E4M3FN>
// CHECK: %[[WIDE:.*]] = arith.extf %[[ROW]] : vector<8xf8E4M3FN> to vector<8xf32>
// CHECK: vector.store %[[WIDE]], %[[PB]]
// CHECK: vector.fma %{{.*}} : vector<8xf32>
// CHECK-NOT: vector<8xf8E4M3FN>
func.func @fp8(%a: memref<6x4xf8E4M3FN, #tile.scope<shared>>, %b: memref<4x8xf8E4M3FN, #tile.scope<shared>>, %c: memref<6x8xf32, #tile.scope<fragment>>) {
  tile.gemm %a, %b, %c : memref<6x4xf8E4M3FN, #tile.scope<shared>>, memref<4x8xf8E4M3FN, #tile.scope<shared>>, memref<6x8xf32, #tile.scope<fragment>>
  return
}
