// RUN: tile-opt %s -split-input-file --tile-cuda-infer-layouts --convert-tile-to-cuda --canonicalize --cse | filecheck %s

// f16 x f16 -> f32 on the tensor cores: 2 warps over a 32x16 C (one m16
// tile and two n8 tiles each), K = 16 is one k-step: one ldmatrix.x4 of A,
// one ldmatrix.x4.trans for both B fragments, two mma.sync. C keeps the mma
// layout in 8 registers per thread; clear_accum starts from zeros, the
// second gemm from C's registers.
// CHECK-LABEL: func.func @mma
// CHECK: %[[ZERO:.*]] = arith.constant dense<0.000000e+00> : vector<2x2xf32>
// CHECK: %[[C:.*]] = memref.alloca() {tile.cuda_layout = "mma:2x1", tile.cuda_shape = array<i64: 32, 16>, tile.cuda_threads = 64 : i64} : memref<8xf32>
// CHECK: gpu.barrier
// CHECK: %[[A0:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<32x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[B01:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<16x16xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: %[[B0:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK: %[[B1:.*]] = vector.from_elements {{.*}} : vector<2x2xf16>
// CHECK: %[[D0:.*]] = nvgpu.mma.sync(%[[A0]], %[[B0]], %[[ZERO]]) {mmaShape = [16, 8, 16]}
// CHECK: %[[D1:.*]] = nvgpu.mma.sync(%[[A0]], %[[B1]], %[[ZERO]]) {mmaShape = [16, 8, 16]}
// CHECK: vector.extract %[[D0]][0, 0] : f32 from vector<2x2xf32>
// CHECK: memref.store %{{.*}}, %[[C]][%c0] : memref<8xf32>
// CHECK: memref.store %{{.*}}, %[[C]][%c7] : memref<8xf32>
// CHECK: gpu.barrier
// CHECK: %[[OLD:.*]] = vector.from_elements %{{.*}} : vector<2x2xf32>
// CHECK: nvgpu.mma.sync(%{{.*}}, %{{.*}}, %[[OLD]]) {mmaShape = [16, 8, 16]}
func.func @mma(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 64 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc : memref<32x16xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c clear_accum : memref<32x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<32x16xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<32x16xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<32x16xf32, #tile.scope<fragment>>
  }
  return
}

// -----

// Transposed operands: A stored K x M goes through ldmatrix.trans, B stored
// N x K through plain ldmatrix.
// CHECK-LABEL: func.func @mma_transposed
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = true} : memref<16x32xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<16x16xf16, #gpu.address_space<workgroup>>
// CHECK: nvgpu.mma.sync
func.func @mma_transposed(%C: memref<32x16xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 64 {
    %a = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<16x16xf16, #tile.scope<shared>>
    %c = tile.alloc : memref<32x16xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c transpose_a transpose_b clear_accum : memref<16x32xf16, #tile.scope<shared>>, memref<16x16xf16, #tile.scope<shared>>, memref<32x16xf32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %c[%c0, %c0], %C[%c0, %c0] : memref<32x16xf32, #tile.scope<fragment>>, memref<32x16xf32>
  }
  return
}

// -----

// f32 operands: each thread computes its C elements (cyclic, 512 / 64 = 8
// per thread) with a multiply-add loop over K.
// CHECK-LABEL: func.func @fma
// CHECK-NOT: nvgpu.mma.sync
// CHECK: %[[C:.*]] = memref.alloca() {tile.cuda_layout = "cyclic"{{.*}}} : memref<8xf32>
// CHECK: %[[OLD:.*]] = memref.load %[[C]][%c0] : memref<8xf32>
// CHECK: %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%[[ACC:.*]] = %[[OLD]]) -> (f32) {
// CHECK: %[[X:.*]] = memref.load %{{.*}} : memref<32x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[Y:.*]] = memref.load %{{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>
// CHECK: %[[NEW:.*]] = math.fma %[[X]], %[[Y]], %[[ACC]] : f32
// CHECK: scf.yield %[[NEW]] : f32
// CHECK: memref.store %[[SUM]], %[[C]][%c0] : memref<8xf32>
func.func @fma(%C: memref<32x16xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 64 {
    %a = tile.alloc : memref<32x16xf32, #tile.scope<shared>>
    %b = tile.alloc : memref<16x16xf32, #tile.scope<shared>>
    %c = tile.alloc : memref<32x16xf32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c : memref<32x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<32x16xf32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %c[%c0, %c0], %C[%c0, %c0] : memref<32x16xf32, #tile.scope<fragment>>, memref<32x16xf32>
  }
  return
}

// -----

// The mma operands are stored swizzled: A (16x32 f16, 4 chunks of 16 bytes
// a row) puts chunk c of row r at c ^ (r / 2 % 4), in the cp.async stores,
// the element fallback and the ldmatrix rows alike; B's rows are one chunk
// (16 bytes), nothing to swizzle.
// CHECK-LABEL: func.func @swizzled
// CHECK-DAG: %[[B:.*]] = memref.view {{.*}} : memref<?xi8, #gpu.address_space<workgroup>> to memref<32x8xf16, #gpu.address_space<workgroup>>
// CHECK-DAG: %[[A:.*]] = memref.view {{.*}} {tile.cuda_swizzle} : memref<?xi8, #gpu.address_space<workgroup>> to memref<16x32xf16, #gpu.address_space<workgroup>>
// CHECK: %[[HALF:.*]] = arith.divui %[[ROW:.*]], %c2 : index
// CHECK: %[[TERM:.*]] = arith.remui %[[HALF]], %c4 : index
// CHECK: %[[SHIFT:.*]] = arith.muli %[[TERM]], %c8 : index
// CHECK: %[[COL:.*]] = arith.xori %{{.*}}, %[[SHIFT]] : index
// CHECK: nvgpu.device_async_copy %arg0[%{{.*}}, %{{.*}}], %[[A]][%[[ROW]], %[[COL]]], 8, %{{.*}} {bypassL1}
// CHECK: memref.store %{{.*}}, %[[A]][%{{.*}}, %{{.*}}]
// CHECK: %[[K:.*]] = arith.xori %{{.*}}, %{{.*}} : index
// CHECK: nvgpu.ldmatrix %[[A]][%{{.*}}, %[[K]]] {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %[[B]][%{{.*}}, %c0] {numTiles = 2 : i32, transpose = true}
func.func @swizzled(%A: memref<?x?xf16>, %C: memref<16x8xf32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %c0 = arith.constant 0 : index
    %a = tile.alloc : memref<16x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x8xf16, #tile.scope<shared>>
    %c = tile.alloc : memref<16x8xf32, #tile.scope<fragment>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<?x?xf16>, memref<16x32xf16, #tile.scope<shared>>
    tile.gemm %a, %b, %c clear_accum : memref<16x32xf16, #tile.scope<shared>>, memref<32x8xf16, #tile.scope<shared>>, memref<16x8xf32, #tile.scope<fragment>>
    tile.copy %c[%c0, %c0], %C[%c0, %c0] : memref<16x8xf32, #tile.scope<fragment>>, memref<16x8xf32>
  }
  return
}

// -----

// 8-bit operands stored K-major (A as K x M, B as K x N): ldmatrix.trans
// cannot move bytes, so each 32-bit register (k 4t .. 4t + 3 at row/column
// g) is gathered with 4 byte loads; lanes t >= 2 read their rows one step
// later (conflict-free banks) and rotate the packed word back by 8 bits.
// CHECK-LABEL: func.func @int8_k_major
// CHECK-NOT: nvgpu.ldmatrix
// CHECK: %[[LANE:.*]] = arith.remui %{{.*}}, %c32 : index
// CHECK: %[[G:.*]] = arith.divui %[[LANE]], %c4 : index
// CHECK: %[[T:.*]] = arith.remui %[[LANE]], %c4 : index
// CHECK: %[[LATE:.*]] = arith.divui %[[T]], %c2 : index
// CHECK: %[[FIRST:.*]] = arith.muli %[[T]], %c4 : index
// CHECK: %[[S0:.*]] = arith.remui %[[LATE]], %c4 : index
// CHECK: %[[ROW0:.*]] = arith.addi %[[FIRST]], %[[S0]] : index
// CHECK: %[[ROTATE:.*]] = arith.cmpi ne, %[[LATE]], %c0 : index
// CHECK: %[[COL:.*]] = arith.addi %{{.*}}, %[[G]] : index
// CHECK: %[[B0:.*]] = memref.load %{{.*}}[%[[ROW0]], %[[COL]]] : memref<32x16xi8, #gpu.address_space<workgroup>>
// CHECK: arith.extui %[[B0]] : i8 to i32
// CHECK: arith.shli %{{.*}}, %c8_i32 : i32
// CHECK: arith.shli %{{.*}}, %c16_i32 : i32
// CHECK: arith.shli %{{.*}}, %c24_i32 : i32
// CHECK: %[[PACKED:.*]] = arith.ori %{{.*}}, %{{.*}} : i32
// CHECK: %[[LEFT:.*]] = arith.shli %[[PACKED]], %c8_i32 : i32
// CHECK: %[[RIGHT:.*]] = arith.shrui %[[PACKED]], %c24_i32 : i32
// CHECK: %[[ROTATED:.*]] = arith.ori %[[LEFT]], %[[RIGHT]] : i32
// CHECK: arith.select %[[ROTATE]], %[[ROTATED]], %[[PACKED]] : i32
// CHECK: vector.bitcast %{{.*}} : vector<1xi32> to vector<4xi8>
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 32]} : (vector<4x4xi8>, vector<2x4xi8>, vector<2x2xi32>) -> vector<2x2xi32>
func.func @int8_k_major(%C: memref<16x16xi32>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %a = tile.alloc : memref<32x16xi8, #tile.scope<shared>>
    %b = tile.alloc : memref<32x16xi8, #tile.scope<shared>>
    %c = tile.alloc : memref<16x16xi32, #tile.scope<fragment>>
    tile.gemm %a, %b, %c transpose_a clear_accum : memref<32x16xi8, #tile.scope<shared>>, memref<32x16xi8, #tile.scope<shared>>, memref<16x16xi32, #tile.scope<fragment>>
    %c0 = arith.constant 0 : index
    tile.copy %c[%c0, %c0], %C[%c0, %c0] : memref<16x16xi32, #tile.scope<fragment>>, memref<16x16xi32>
  }
  return
}
