// RUN: tile-opt %s -split-input-file -verify-diagnostics --tile-ascend-combine-cores

func.func @unplaced_tile(%ws: memref<64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 128 attributes {ascend.combine_cores, ascend.vid_dim = 0 : i64} {
    // expected-error @+1 {{places its tiles itself: allocate this one with T.alloc_L1/L0A/L0B/L0C (the cube's) or T.alloc_ub}}
    %t = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    tile.copy %ws[%c0, %c0], %l1[%c0, %c0] : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
  }
  return
}

// -----

func.func @unpaired_runs(%ws: memref<64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 128 attributes {ascend.combine_cores, ascend.vid_dim = 0 : i64} {
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %ub = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
    %mine = arith.muli %vid, %c16 : index
    tile.copy %ub[%c0, %c0], %ws[%mine, %c0] : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
    tile.copy %ws[%c0, %c0], %l1[%c0, %c0] : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
    // expected-error @+1 {{the vector cores access this global tensor in 3 runs of reads or writes but the other kind of core in 1}}
    tile.copy %ws[%mine, %c0], %ub[%c0, %c0] : memref<64x32xf16>, memref<16x32xf16, #tile.scope<ub>>
    tile.copy %ub[%c0, %c0], %ws[%mine, %c0] : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
  }
  return
}

// -----

func.func @both_write(%ws: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 128 attributes {ascend.combine_cores, ascend.vid_dim = 0 : i64} {
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    %ub = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
    %mine = arith.muli %vid, %c16 : index
    tile.copy %acc[%c0, %c0], %ws[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<64x32xf32>
    // expected-error @+1 {{run 1 of the accesses of this global tensor by each kind of core writes it on both}}
    tile.copy %ub[%c0, %c0], %ws[%mine, %c0] : memref<16x32xf32, #tile.scope<ub>>, memref<64x32xf32>
  }
  return
}

// -----

func.func @cube_uses_vid(%ws: memref<64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 128 attributes {ascend.combine_cores, ascend.vid_dim = 0 : i64} {
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %ub = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
    %mine = arith.muli %vid, %c16 : index
    tile.copy %ub[%c0, %c0], %ws[%mine, %c0] : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
    // expected-error @+1 {{the cube's work depends on vid, which only the vector cores have}}
    tile.copy %ws[%mine, %c0], %l1[%c0, %c0] : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
  }
  return
}
