// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend="profile=910b" | filecheck %s --check-prefix=B910
// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend="profile=950" | filecheck %s --check-prefix=A950

// f32 operands that reach L0 transposed: A stored K x M (transpose_a) and B
// stored K x N. No load transposes 16 x 8 fractals out of Nz, so L1 holds them
// in a layout a load serves. The 910b: Zz (row blocks outer), loaded with {zz}
// (LoadDataWithTranspose of 16 x 16 squares). The 950: the Nz of the
// transpose (a Dn2Nz copy), which the plain load takes as it takes A (M x K)
// or Bᵀ (N x K). Both tiles are allocated in their Nz bytes; the copies and
// loads see them through views of the layout.
// B910-LABEL: func.func @f32_transposes
// B910-DAG: memref.alloc() : memref<8x2x16x8xf32, #ascend.mem<l1>>
// B910-DAG: memref.alloc() : memref<6x2x16x8xf32, #ascend.mem<l1>>
// B910: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [32, 64] {zz} : memref<100x70xf32, #ascend.mem<gm>>, memref<2x8x16x8xf32, #ascend.mem<l1>>
// B910: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [32, 48] {zz} : memref<100x90xf32, #ascend.mem<gm>>, memref<2x6x16x8xf32, #ascend.mem<l1>>
// B910: ascend.load_l0a %{{.*}}, %{{.*}} {transpose, zz} sizes [64, 32] : memref<2x8x16x8xf32, #ascend.mem<l1>>, memref<4x4x16x8xf32, #ascend.mem<l0a>>
// B910: ascend.load_l0b %{{.*}}, %{{.*}} {zz} sizes [32, 48] : memref<2x6x16x8xf32, #ascend.mem<l1>>, memref<4x3x16x8xf32, #ascend.mem<l0b>>
// B910: ascend.mmad %{{.*}}, %{{.*}}, %{{.*}} sizes [64, 48, 32] {init}
// A950-LABEL: func.func @f32_transposes
// A950-DAG: memref.alloc() : memref<8x2x16x8xf32, #ascend.mem<l1>>
// A950-DAG: memref.alloc() : memref<6x2x16x8xf32, #ascend.mem<l1>>
// A950: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [32, 64] {transpose} : memref<100x70xf32, #ascend.mem<gm>>, memref<4x4x16x8xf32, #ascend.mem<l1>>
// A950: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [32, 48] {transpose} : memref<100x90xf32, #ascend.mem<gm>>, memref<4x3x16x8xf32, #ascend.mem<l1>>
// A950: ascend.load_l0a %{{.*}}, %{{.*}} sizes [64, 32] : memref<4x4x16x8xf32, #ascend.mem<l1>>, memref<4x4x16x8xf32, #ascend.mem<l0a>>
// A950: ascend.load_l0b %{{.*}}, %{{.*}} {transpose} sizes [32, 48] : memref<4x3x16x8xf32, #ascend.mem<l1>>, memref<4x3x16x8xf32, #ascend.mem<l0b>>
// A950: ascend.mmad %{{.*}}, %{{.*}}, %{{.*}} sizes [64, 48, 32] {init}
func.func @f32_transposes(%A: memref<100x70xf32>, %B: memref<100x90xf32>, %C: memref<70x90xf32>,
                          %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %at = tile.alloc : memref<32x64xf32, #tile.scope<l1>>
    %b = tile.alloc : memref<32x48xf32, #tile.scope<l1>>
    %acc = tile.alloc : memref<64x48xf32, #tile.scope<l0c>>
    tile.copy %A[%i, %j], %at[%c0, %c0] : memref<100x70xf32>, memref<32x64xf32, #tile.scope<l1>>
    tile.copy %B[%i, %j], %b[%c0, %c0] : memref<100x90xf32>, memref<32x48xf32, #tile.scope<l1>>
    tile.gemm %at, %b, %acc transpose_a clear_accum : memref<32x64xf32, #tile.scope<l1>>, memref<32x48xf32, #tile.scope<l1>>, memref<64x48xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %C[%j, %j] : memref<64x48xf32, #tile.scope<l0c>>, memref<70x90xf32>
  }
  return
}

// -----

// Operands the cube takes as they are (A M x K, Bᵀ with transpose_b) and f16
// operands (whose fractals LoadData2D transposes) stay Nz.
// B910-LABEL: func.func @no_new_layout
// B910-NOT: {zz}
// B910: ascend.load_l0a %{{.*}}, %{{.*}} sizes [32, 32] : memref<4x2x16x8xf32
// B910: ascend.load_l0b %{{.*}}, %{{.*}} {transpose} sizes [32, 32] : memref<4x2x16x8xf32
// B910: ascend.load_l0b %{{.*}}, %{{.*}} sizes [32, 32] : memref<2x2x16x16xf16
// B910-NOT: {zz}
// A950-LABEL: func.func @no_new_layout
// A950-NOT: ascend.copy_nd2nz {{.*}} {transpose}
// A950: return
func.func @no_new_layout(%A: memref<64x64xf32>, %H: memref<64x64xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x32xf32, #tile.scope<l1>>
    %bt = tile.alloc : memref<32x32xf32, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x64xf32>, memref<32x32xf32, #tile.scope<l1>>
    tile.copy %A[%c0, %c0], %bt[%c0, %c0] : memref<64x64xf32>, memref<32x32xf32, #tile.scope<l1>>
    tile.gemm %a, %bt, %acc transpose_b clear_accum : memref<32x32xf32, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    %ha = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %hb = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    tile.copy %H[%c0, %c0], %ha[%c0, %c0] : memref<64x64xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.copy %H[%c0, %c0], %hb[%c0, %c0] : memref<64x64xf16>, memref<32x32xf16, #tile.scope<l1>>
    tile.gemm %ha, %hb, %acc : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %A[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<64x64xf32>
  }
  return
}

// -----

// A tile that is not whole 16 x 16 squares (24 x 24) stays Nz and is
// transposed by the load as before: the simulator runs it, the AscendC
// emitter reports that no load transposes it. So does one that the gemm also
// reads otherwise (here the same 32 x 32 tile as A, which stays as it is, and B).
// B910-LABEL: func.func @stays_nz
// B910-NOT: {zz}
// B910: ascend.load_l0b %{{.*}}, %{{.*}} sizes [24, 24] : memref<3x2x16x8xf32
// B910: ascend.load_l0b %{{.*}}, %{{.*}} sizes [32, 32] : memref<4x2x16x8xf32
// B910-NOT: {zz}
// A950-LABEL: func.func @stays_nz
// A950-NOT: {transpose}
// A950: ascend.load_l0b %{{.*}}, %{{.*}} sizes [24, 24] : memref<3x2x16x8xf32
// A950: ascend.load_l0b %{{.*}}, %{{.*}} sizes [32, 32] : memref<4x2x16x8xf32
// A950-NOT: {transpose}
func.func @stays_nz(%A: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<24x24xf32, #tile.scope<l1>>
    %acc = tile.alloc : memref<24x24xf32, #tile.scope<l0c>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<64x64xf32>, memref<24x24xf32, #tile.scope<l1>>
    tile.gemm %a, %a, %acc clear_accum : memref<24x24xf32, #tile.scope<l1>>, memref<24x24xf32, #tile.scope<l1>>, memref<24x24xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %A[%c0, %c0] : memref<24x24xf32, #tile.scope<l0c>>, memref<64x64xf32>
    %s = tile.alloc : memref<32x32xf32, #tile.scope<l1>>
    %acc2 = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %A[%c0, %c0], %s[%c0, %c0] : memref<64x64xf32>, memref<32x32xf32, #tile.scope<l1>>
    tile.gemm %s, %s, %acc2 clear_accum : memref<32x32xf32, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    tile.copy %acc2[%c0, %c0], %A[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<64x64xf32>
  }
  return
}
