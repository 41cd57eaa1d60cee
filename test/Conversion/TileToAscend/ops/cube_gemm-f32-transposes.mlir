// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend="target=ascend:910b" | filecheck %s --check-prefix=B910
// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend="target=ascend:950" | filecheck %s --check-prefix=A950

// f32 operands that reach L0 transposed: A stored K x M (transpose_a) and B
// stored K x N. No load transposes 16 x 8 fractals out of Nz, so L1 holds them
// in a layout a load serves. The 910b: Zz (row blocks outer), loaded with {zz}
// (LoadDataWithTranspose of 16 x 16 squares). The 950: the Nz of the
// transpose (a Dn2Nz copy), which the plain load takes as it takes A (M x K)
// or Bᵀ (N x K). Both tiles are allocated in the fractals of their layout.
// B910-LABEL: func.func @f32_transposes
// B910-DAG: memref.alloc() : memref<2x8x16x8xf32, #ascend.mem<l1>>
// B910-DAG: memref.alloc() : memref<2x6x16x8xf32, #ascend.mem<l1>>
// B910: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [32, 64] {zz} : memref<100x70xf32, #ascend.mem<gm>>, memref<2x8x16x8xf32, #ascend.mem<l1>>
// B910: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [32, 48] {zz} : memref<100x90xf32, #ascend.mem<gm>>, memref<2x6x16x8xf32, #ascend.mem<l1>>
// B910: ascend.load_l0a %{{.*}}, %{{.*}} {transpose, zz} sizes [64, 32] : memref<2x8x16x8xf32, #ascend.mem<l1>>, memref<4x4x16x8xf32, #ascend.mem<l0a>>
// B910: ascend.load_l0b %{{.*}}, %{{.*}} {zz} sizes [32, 48] : memref<2x6x16x8xf32, #ascend.mem<l1>>, memref<4x3x16x8xf32, #ascend.mem<l0b>>
// B910: ascend.mmad %{{.*}}, %{{.*}}, %{{.*}} sizes [64, 48, 32] {init}
// A950-LABEL: func.func @f32_transposes
// A950-DAG: memref.alloc() : memref<4x4x16x8xf32, #ascend.mem<l1>>
// A950-DAG: memref.alloc() : memref<4x3x16x8xf32, #ascend.mem<l1>>
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

// A tile that the gemm also reads otherwise (here the same tile as A, which
// Nz serves, and as B, which it does not) gets a second L1 tile for the read
// that needs transposing, written by a second copy of the same GM region right
// after the first: the A side keeps the Nz tile, the B side loads the other.
// B910-LABEL: func.func @own_copy
// B910:      ascend.copy_nd2nz %arg0[%c0, %c0], %{{.*}} sizes [24, 24] : {{.*}}memref<3x2x16x8xf32
// B910-NEXT: memref.reinterpret_cast
// B910-NEXT: ascend.copy_nd2nz %arg0[%c0, %c0], %{{.*}} sizes [24, 24] {zz} : {{.*}}memref<2x4x16x8xf32
// B910:      ascend.load_l0a %{{.*}}, %{{.*}} sizes [24, 24] : memref<3x2x16x8xf32
// B910-NEXT: ascend.load_l0b %{{.*}}, %{{.*}} {zz} sizes [32, 32] : memref<2x4x16x8xf32
// B910:      ascend.copy_nd2nz %arg0[%c0, %c0], %{{.*}} sizes [32, 32] : {{.*}}memref<4x2x16x8xf32
// B910-NEXT: memref.reinterpret_cast
// B910-NEXT: ascend.copy_nd2nz %arg0[%c0, %c0], %{{.*}} sizes [32, 32] {zz}
// B910:      ascend.load_l0b %{{.*}}, %{{.*}} {zz} sizes [32, 32]
// A950-LABEL: func.func @own_copy
// A950:      ascend.copy_nd2nz %arg0[%c0, %c0], %{{.*}} sizes [24, 24] : {{.*}}memref<3x2x16x8xf32
// A950-NEXT: memref.reinterpret_cast
// A950-NEXT: ascend.copy_nd2nz %arg0[%c0, %c0], %{{.*}} sizes [24, 24] {transpose}
// A950:      ascend.load_l0b %{{.*}}, %{{.*}} {transpose} sizes [24, 24]
// A950:      ascend.copy_nd2nz %arg0[%c0, %c0], %{{.*}} sizes [32, 32] {transpose}
// A950:      ascend.load_l0b %{{.*}}, %{{.*}} {transpose} sizes [32, 32]
func.func @own_copy(%A: memref<64x64xf32>) {
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

// -----

// Tiles that are not whole 16 x 16 squares (24 x 40: 24 of K, 40 of M or N).
// The 910b's Zz pads the columns to whole squares (40 to 48: 6 column blocks
// of 8), which the loads move (sizes up to squares); L0B holds K to 32, and
// as A's K sets L0A's row pitch, the mmad runs K to 32 over the zeros both
// Zz tiles hold there. The 950's Nz of the transpose pads as any Nz does (the
// tiles hold A and Bᵀ, 40 x 24: 3 by 3 fractals), in a buffer of its own
// shape, smaller than the Nz (5 by 2).
// B910-LABEL: func.func @part_squares
// B910-COUNT-2: memref.alloc() : memref<2x6x16x8xf32, #ascend.mem<l1>>
// B910: memref.alloc() : memref<4x3x16x8xf32, #ascend.mem<l0b>>
// B910: memref.alloc() : memref<3x4x16x8xf32, #ascend.mem<l0a>>
// B910: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [24, 40] {zz} : memref<100x70xf32, #ascend.mem<gm>>, memref<2x6x16x8xf32, #ascend.mem<l1>>
// B910: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [24, 40] {zz} : memref<100x90xf32, #ascend.mem<gm>>, memref<2x6x16x8xf32, #ascend.mem<l1>>
// B910: ascend.load_l0a %{{.*}}, %{{.*}} {transpose, zz} sizes [48, 32] : memref<2x6x16x8xf32, #ascend.mem<l1>>, memref<3x4x16x8xf32, #ascend.mem<l0a>>
// B910: ascend.load_l0b %{{.*}}, %{{.*}} {zz} sizes [32, 48] : memref<2x6x16x8xf32, #ascend.mem<l1>>, memref<4x3x16x8xf32, #ascend.mem<l0b>>
// B910: ascend.mmad %{{.*}}, %{{.*}}, %{{.*}} sizes [40, 40, 32] {init} : memref<3x4x16x8xf32, #ascend.mem<l0a>>, memref<4x3x16x8xf32, #ascend.mem<l0b>>
// A950-LABEL: func.func @part_squares
// A950-COUNT-2: memref.alloc() : memref<3x3x16x8xf32, #ascend.mem<l1>>
// A950: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [24, 40] {transpose} : memref<100x70xf32, #ascend.mem<gm>>, memref<3x3x16x8xf32, #ascend.mem<l1>>
// A950: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [24, 40] {transpose} : memref<100x90xf32, #ascend.mem<gm>>, memref<3x3x16x8xf32, #ascend.mem<l1>>
// A950: ascend.load_l0a %{{.*}}, %{{.*}} sizes [40, 24] : memref<3x3x16x8xf32, #ascend.mem<l1>>, memref<3x3x16x8xf32, #ascend.mem<l0a>>
// A950: ascend.load_l0b %{{.*}}, %{{.*}} {transpose} sizes [24, 40] : memref<3x3x16x8xf32, #ascend.mem<l1>>, memref<3x3x16x8xf32, #ascend.mem<l0b>>
// A950: ascend.mmad %{{.*}}, %{{.*}}, %{{.*}} sizes [40, 40, 24] {init}
func.func @part_squares(%A: memref<100x70xf32>, %B: memref<100x90xf32>, %C: memref<70x90xf32>,
                        %i: index, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %at = tile.alloc : memref<24x40xf32, #tile.scope<l1>>
    %b = tile.alloc : memref<24x40xf32, #tile.scope<l1>>
    %acc = tile.alloc : memref<40x40xf32, #tile.scope<l0c>>
    tile.copy %A[%i, %j], %at[%c0, %c0] : memref<100x70xf32>, memref<24x40xf32, #tile.scope<l1>>
    tile.copy %B[%i, %j], %b[%c0, %c0] : memref<100x90xf32>, memref<24x40xf32, #tile.scope<l1>>
    tile.gemm %at, %b, %acc transpose_a clear_accum : memref<24x40xf32, #tile.scope<l1>>, memref<24x40xf32, #tile.scope<l1>>, memref<40x40xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %C[%j, %j] : memref<40x40xf32, #tile.scope<l0c>>, memref<70x90xf32>
  }
  return
}

// -----

// A Zz B of 24 of K next to an A that needs no transposing: L0B holds K to
// 32 (Zn keeps K outermost), the mmad reads the first 24 through a view. An
// A (transpose_a) of 24 of K goes into Zz next to a Bᵀ too: the mmad then runs
// K to 32, so Bᵀ's L1 tile holds K to 32 (4 column blocks of 8, the copy's
// zeros past 24), and so does its L0B tile.
// B910-LABEL: func.func @part_k
// B910: memref.alloc() : memref<2x4x16x8xf32, #ascend.mem<l1>>
// B910: %[[K24:[a-z0-9_]+]] = memref.subview %[[L0B:[a-z0-9_]+]][0, 0, 0, 0] [3, 2, 16, 8] [1, 1, 1, 1] : memref<4x2x16x8xf32, #ascend.mem<l0b>>
// B910: ascend.load_l0b %{{.*}}, %[[L0B]] {zz} sizes [32, 32] : memref<2x4x16x8xf32, #ascend.mem<l1>>, memref<4x2x16x8xf32, #ascend.mem<l0b>>
// B910: ascend.mmad %{{.*}}, %[[K24]], %{{.*}} sizes [24, 24, 24] {init}
// B910: ascend.copy_nd2nz %{{.*}} sizes [24, 24] {zz} : memref<100x100xf32, #ascend.mem<gm>>, memref<2x4x16x8xf32, #ascend.mem<l1>>
// B910: ascend.copy_nd2nz %{{.*}} sizes [24, 24] : memref<100x100xf32, #ascend.mem<gm>>, memref<4x2x16x8xf32, #ascend.mem<l1>>
// B910: ascend.load_l0a %{{.*}}, %{{.*}} {transpose, zz} sizes [32, 32] : memref<2x4x16x8xf32
// B910: ascend.load_l0b %{{.*}}, %{{.*}} {transpose} sizes [32, 24] : memref<4x2x16x8xf32, #ascend.mem<l1>>, memref<4x2x16x8xf32, #ascend.mem<l0b>>
// B910: ascend.mmad %{{.*}}, %{{.*}}, %{{.*}} sizes [24, 24, 32] {init}
// A950-LABEL: func.func @part_k
// A950-COUNT-2: {transpose} : memref<100x100xf32, #ascend.mem<gm>>, memref<3x2x16x8xf32, #ascend.mem<l1>>
func.func @part_k(%A: memref<100x100xf32>, %C: memref<100x100xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<24x24xf32, #tile.scope<l1>>
    %b = tile.alloc : memref<24x24xf32, #tile.scope<l1>>
    %acc = tile.alloc : memref<24x24xf32, #tile.scope<l0c>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] : memref<100x100xf32>, memref<24x24xf32, #tile.scope<l1>>
    tile.copy %A[%c0, %c0], %b[%c0, %c0] : memref<100x100xf32>, memref<24x24xf32, #tile.scope<l1>>
    tile.gemm %a, %b, %acc clear_accum : memref<24x24xf32, #tile.scope<l1>>, memref<24x24xf32, #tile.scope<l1>>, memref<24x24xf32, #tile.scope<l0c>>
    tile.copy %acc[%c0, %c0], %C[%c0, %c0] : memref<24x24xf32, #tile.scope<l0c>>, memref<100x100xf32>
    %at = tile.alloc : memref<24x24xf32, #tile.scope<l1>>
    %bt = tile.alloc : memref<24x24xf32, #tile.scope<l1>>
    %acc2 = tile.alloc : memref<24x24xf32, #tile.scope<l0c>>
    tile.copy %A[%c0, %c0], %at[%c0, %c0] : memref<100x100xf32>, memref<24x24xf32, #tile.scope<l1>>
    tile.copy %A[%c0, %c0], %bt[%c0, %c0] : memref<100x100xf32>, memref<24x24xf32, #tile.scope<l1>>
    tile.gemm %at, %bt, %acc2 transpose_a transpose_b clear_accum : memref<24x24xf32, #tile.scope<l1>>, memref<24x24xf32, #tile.scope<l1>>, memref<24x24xf32, #tile.scope<l0c>>
    tile.copy %acc2[%c0, %c0], %C[%c0, %c0] : memref<24x24xf32, #tile.scope<l0c>>, memref<100x100xf32>
  }
  return
}
