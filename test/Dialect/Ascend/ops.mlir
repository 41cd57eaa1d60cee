// RUN: tile-opt %s | tile-opt | filecheck %s
// RUN: tile-opt %s -mlir-print-op-generic | tile-opt | filecheck %s

// CHECK-LABEL: func.func @grid
// CHECK: %[[B:.*]] = ascend.block_idx : index
// CHECK: %[[N:.*]] = ascend.block_num : index
// CHECK: %[[S:.*]] = ascend.sub_block_idx : index
// CHECK: arith.addi %[[B]], %[[N]]
// CHECK: arith.addi %{{.*}}, %[[S]]
func.func @grid() -> index {
  %b = ascend.block_idx : index
  %n = ascend.block_num : index
  %s = ascend.sub_block_idx : index
  %0 = arith.addi %b, %n : index
  %1 = arith.addi %0, %s : index
  return %1 : index
}

// CHECK-LABEL: func.func @core_regions
// CHECK-SAME: attributes {ascend.kernel = #ascend.core<mix>}
// CHECK: ascend.core aic {
// CHECK-NEXT: ascend.cross_core_set_flag mode 2, fix, 0
// CHECK-NEXT: }
// CHECK: ascend.core aiv attributes {stage = 1 : i64} {
// CHECK-NEXT: ascend.cross_core_wait_flag 0{{$}}
// CHECK-NEXT: }
func.func @core_regions() attributes {ascend.kernel = #ascend.core<mix>} {
  ascend.core aic {
    ascend.cross_core_set_flag mode 2, fix, 0
  }
  ascend.core aiv attributes {stage = 1} {
    ascend.cross_core_wait_flag 0
  }
  return
}

// CHECK-LABEL: func.func @copy_paths
// CHECK-SAME: (%[[X:.*]]: memref<?x?xf32, #ascend.mem<gm>>, %[[I:.*]]: index, %[[J:.*]]: index)
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[UB:.*]] = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: %[[UB2:.*]] = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.copy %[[X]][%[[I]], %[[J]]], %[[UB]][%[[C0]], %[[C0]]] sizes [64, 128] : memref<?x?xf32, #ascend.mem<gm>>, memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.copy %[[UB]][%[[C0]], %[[C0]]], %[[UB2]][%[[C0]], %[[C0]]] sizes [32, 128] : memref<64x128xf32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.copy %[[UB2]][%[[C0]], %[[C0]]], %[[X]][%[[I]], %[[J]]] sizes [64, 128] : memref<64x128xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
func.func @copy_paths(%x: memref<?x?xf32, #ascend.mem<gm>>, %i: index, %j: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
  %ub2 = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
  ascend.copy %x[%i, %j], %ub[%c0, %c0] sizes [64, 128]
      : memref<?x?xf32, #ascend.mem<gm>>, memref<64x128xf32, #ascend.mem<ub>>
  ascend.copy %ub[%c0, %c0], %ub2[%c0, %c0] sizes [32, 128]
      : memref<64x128xf32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
  ascend.copy %ub2[%c0, %c0], %x[%i, %j] sizes [64, 128]
      : memref<64x128xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// CHECK-LABEL: func.func @copy_gm_to_l1
// CHECK: ascend.copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] sizes [64] : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<l1>>
func.func @copy_gm_to_l1(%bias: memref<?xf32, #ascend.mem<gm>>, %i: index)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<64xf32, #ascend.mem<l1>>
  ascend.copy %bias[%i], %l1[%c0] sizes [64]
      : memref<?xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<l1>>
  return
}

// The 950 paths between L1 and UB are not tied to one core.
// CHECK-LABEL: func.func @copy_l1_ub
// CHECK: ascend.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] sizes [16, 16] : memref<16x16xf16, #ascend.mem<l1>>, memref<16x16xf16, #ascend.mem<ub>>
// CHECK: ascend.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] sizes [16, 16] : memref<16x16xf16, #ascend.mem<ub>>, memref<16x16xf16, #ascend.mem<l1>>
func.func @copy_l1_ub() {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<16x16xf16, #ascend.mem<l1>>
  %ub = memref.alloc() : memref<16x16xf16, #ascend.mem<ub>>
  ascend.copy %l1[%c0, %c0], %ub[%c0, %c0] sizes [16, 16]
      : memref<16x16xf16, #ascend.mem<l1>>, memref<16x16xf16, #ascend.mem<ub>>
  ascend.copy %ub[%c0, %c0], %l1[%c0, %c0] sizes [16, 16]
      : memref<16x16xf16, #ascend.mem<ub>>, memref<16x16xf16, #ascend.mem<l1>>
  return
}

// CHECK-LABEL: func.func @cube_f16
// CHECK-SAME: (%[[A:.*]]: memref<?x?xf16, #ascend.mem<gm>>, %[[B:.*]]: memref<?x?xf16, #ascend.mem<gm>>, %[[C:.*]]: memref<?x?xf32, #ascend.mem<gm>>, %[[I:.*]]: index)
// CHECK: %[[L1A:.*]] = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
// CHECK: %[[L1B:.*]] = memref.alloc() : memref<3x2x16x16xf16, #ascend.mem<l1>>
// CHECK: %[[L0A:.*]] = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
// CHECK: %[[L0B:.*]] = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l0b>>
// CHECK: %[[L0C:.*]] = memref.alloc() : memref<3x4x16x16xf32, #ascend.mem<l0c>>
// CHECK: ascend.copy_nd2nz %[[A]][%[[I]], %[[I]]], %[[L1A]] sizes [64, 32] : memref<?x?xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
// CHECK: ascend.copy_nd2nz %[[B]][%[[I]], %[[I]]], %[[L1B]] sizes [32, 48]
// CHECK: ascend.set_flag mte2 -> mte1, 0
// CHECK: ascend.wait_flag mte2 -> mte1, 0
// CHECK: ascend.load_l0a %[[L1A]], %[[L0A]] sizes [64, 32] : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
// CHECK: ascend.load_l0b %[[L1B]], %[[L0B]] sizes [32, 48] : memref<3x2x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>
// CHECK: ascend.set_flag mte1 -> m, 1
// CHECK: ascend.wait_flag mte1 -> m, 1
// CHECK: ascend.mmad %[[L0A]], %[[L0B]], %[[L0C]] sizes [64, 48, 32] {init} : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>, memref<3x4x16x16xf32, #ascend.mem<l0c>>
// CHECK: ascend.mmad %[[L0A]], %[[L0B]], %[[L0C]] sizes [64, 48, 32] : memref
// CHECK: ascend.set_flag m -> fix, 2
// CHECK: ascend.wait_flag m -> fix, 2
// CHECK: ascend.fixpipe %[[L0C]], %[[C]][%[[I]], %[[I]]] sizes [64, 48] : memref<3x4x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
// CHECK: ascend.fixpipe %[[L0C]], %[[C]][%[[I]], %[[I]]] sizes [64, 48] {relu} : memref<3x4x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
func.func @cube_f16(%a: memref<?x?xf16, #ascend.mem<gm>>, %b: memref<?x?xf16, #ascend.mem<gm>>,
                    %c: memref<?x?xf32, #ascend.mem<gm>>, %i: index)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %l1a = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  %l1b = memref.alloc() : memref<3x2x16x16xf16, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  %l0b = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l0b>>
  %l0c = memref.alloc() : memref<3x4x16x16xf32, #ascend.mem<l0c>>
  ascend.copy_nd2nz %a[%i, %i], %l1a sizes [64, 32]
      : memref<?x?xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
  ascend.copy_nd2nz %b[%i, %i], %l1b sizes [32, 48]
      : memref<?x?xf16, #ascend.mem<gm>>, memref<3x2x16x16xf16, #ascend.mem<l1>>
  ascend.set_flag mte2 -> mte1, 0
  ascend.wait_flag mte2 -> mte1, 0
  ascend.load_l0a %l1a, %l0a sizes [64, 32]
      : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
  ascend.load_l0b %l1b, %l0b sizes [32, 48]
      : memref<3x2x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>
  ascend.set_flag mte1 -> m, 1
  ascend.wait_flag mte1 -> m, 1
  ascend.mmad %l0a, %l0b, %l0c sizes [64, 48, 32] {init}
      : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>,
        memref<3x4x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %l0a, %l0b, %l0c sizes [64, 48, 32]
      : memref<4x2x16x16xf16, #ascend.mem<l0a>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>,
        memref<3x4x16x16xf32, #ascend.mem<l0c>>
  ascend.set_flag m -> fix, 2
  ascend.wait_flag m -> fix, 2
  ascend.fixpipe %l0c, %c[%i, %i] sizes [64, 48]
      : memref<3x4x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
  ascend.fixpipe %l0c, %c[%i, %i] sizes [64, 48] {relu}
      : memref<3x4x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// Transposed loads: L1 holds Aᵀ (K x M) and Bᵀ (N x K) in Nz.
// CHECK-LABEL: func.func @load_transposed
// CHECK: ascend.load_l0a %{{.*}}, %{{.*}} {transpose} sizes [64, 32] : memref<4x2x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
// CHECK: ascend.load_l0b %{{.*}}, %{{.*}} {transpose} sizes [32, 48] : memref<2x3x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>
func.func @load_transposed() attributes {ascend.kernel = #ascend.core<aic>} {
  %at = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l1>>
  %bt = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  %l0b = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l0b>>
  ascend.load_l0a %at, %l0a {transpose} sizes [64, 32]
      : memref<4x2x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
  ascend.load_l0b %bt, %l0b {transpose} sizes [32, 48]
      : memref<2x3x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>
  return
}

// A row gathered into an Nz tile at a row (a paged KV cache's key).
// CHECK-LABEL: func.func @nd2nz_at_a_row
// CHECK: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%[[R:.*]]] sizes [1, 64] : memref<?x?xf16, #ascend.mem<gm>>, memref<4x2x16x16xf16, #ascend.mem<l1>>
func.func @nd2nz_at_a_row(%k: memref<?x?xf16, #ascend.mem<gm>>, %token: index, %row: index)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l1>>
  ascend.copy_nd2nz %k[%token, %c0], %l1[%row] sizes [1, 64]
      : memref<?x?xf16, #ascend.mem<gm>>, memref<4x2x16x16xf16, #ascend.mem<l1>>
  return
}

// Fractal shapes follow C0 = 32 bytes / element size; sizes need not be
// multiples of the fractal (the padding is zero).
// CHECK-LABEL: func.func @cube_dtypes
// CHECK: ascend.copy_nd2nz {{.*}} sizes [20, 40] : memref<?x?xf32, #ascend.mem<gm>>, memref<5x2x16x8xf32, #ascend.mem<l1>>
// CHECK: ascend.copy_nd2nz {{.*}} sizes [16, 64] : memref<?x?xi8, #ascend.mem<gm>>, memref<2x1x16x32xi8, #ascend.mem<l1>>
// CHECK: ascend.mmad {{.*}} sizes [16, 16, 64] {init} : memref<1x2x16x32xi8, #ascend.mem<l0a>>, memref<2x1x16x32xi8, #ascend.mem<l0b>>, memref<1x1x16x16xi32, #ascend.mem<l0c>>
// CHECK: ascend.mmad {{.*}} sizes [16, 16, 8] : memref<1x1x16x8xf32, #ascend.mem<l0a>>, memref<1x1x16x8xf32, #ascend.mem<l0b>>, memref<1x1x16x16xf32, #ascend.mem<l0c>>
// CHECK: ascend.mmad {{.*}} sizes [16, 16, 16] : memref<1x1x16x16xbf16, #ascend.mem<l0a>>, memref<1x1x16x16xbf16, #ascend.mem<l0b>>, memref<1x1x16x16xf32, #ascend.mem<l0c>>
// CHECK: ascend.mmad {{.*}} sizes [16, 16, 32] : memref<1x1x16x32xf8E4M3FN, #ascend.mem<l0a>>, memref<1x1x16x32xf8E4M3FN, #ascend.mem<l0b>>, memref<1x1x16x16xf32, #ascend.mem<l0c>>
// CHECK: ascend.mmad {{.*}} sizes [16, 16, 32] : memref<1x1x16x32xf8E5M2, #ascend.mem<l0a>>, memref<1x1x16x32xf8E5M2, #ascend.mem<l0b>>, memref<1x1x16x16xf32, #ascend.mem<l0c>>
// CHECK: ascend.fixpipe {{.*}} sizes [16, 16] : memref<1x1x16x16xi32, #ascend.mem<l0c>>, memref<?x?xf16, #ascend.mem<gm>>
func.func @cube_dtypes(%x: memref<?x?xf32, #ascend.mem<gm>>, %q: memref<?x?xi8, #ascend.mem<gm>>,
                       %out: memref<?x?xf16, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %l1x = memref.alloc() : memref<5x2x16x8xf32, #ascend.mem<l1>>
  ascend.copy_nd2nz %x[%c0, %c0], %l1x sizes [20, 40]
      : memref<?x?xf32, #ascend.mem<gm>>, memref<5x2x16x8xf32, #ascend.mem<l1>>
  %l1q = memref.alloc() : memref<2x1x16x32xi8, #ascend.mem<l1>>
  ascend.copy_nd2nz %q[%c0, %c0], %l1q sizes [16, 64]
      : memref<?x?xi8, #ascend.mem<gm>>, memref<2x1x16x32xi8, #ascend.mem<l1>>
  %ai8 = memref.alloc() : memref<1x2x16x32xi8, #ascend.mem<l0a>>
  %bi8 = memref.alloc() : memref<2x1x16x32xi8, #ascend.mem<l0b>>
  %ci32 = memref.alloc() : memref<1x1x16x16xi32, #ascend.mem<l0c>>
  ascend.mmad %ai8, %bi8, %ci32 sizes [16, 16, 64] {init}
      : memref<1x2x16x32xi8, #ascend.mem<l0a>>, memref<2x1x16x32xi8, #ascend.mem<l0b>>,
        memref<1x1x16x16xi32, #ascend.mem<l0c>>
  %af32 = memref.alloc() : memref<1x1x16x8xf32, #ascend.mem<l0a>>
  %bf32 = memref.alloc() : memref<1x1x16x8xf32, #ascend.mem<l0b>>
  %cf32 = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  ascend.mmad %af32, %bf32, %cf32 sizes [16, 16, 8]
      : memref<1x1x16x8xf32, #ascend.mem<l0a>>, memref<1x1x16x8xf32, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %abf = memref.alloc() : memref<1x1x16x16xbf16, #ascend.mem<l0a>>
  %bbf = memref.alloc() : memref<1x1x16x16xbf16, #ascend.mem<l0b>>
  ascend.mmad %abf, %bbf, %cf32 sizes [16, 16, 16]
      : memref<1x1x16x16xbf16, #ascend.mem<l0a>>, memref<1x1x16x16xbf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %a8 = memref.alloc() : memref<1x1x16x32xf8E4M3FN, #ascend.mem<l0a>>
  %b8 = memref.alloc() : memref<1x1x16x32xf8E4M3FN, #ascend.mem<l0b>>
  ascend.mmad %a8, %b8, %cf32 sizes [16, 16, 32]
      : memref<1x1x16x32xf8E4M3FN, #ascend.mem<l0a>>, memref<1x1x16x32xf8E4M3FN, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %a5 = memref.alloc() : memref<1x1x16x32xf8E5M2, #ascend.mem<l0a>>
  %b5 = memref.alloc() : memref<1x1x16x32xf8E5M2, #ascend.mem<l0b>>
  ascend.mmad %a5, %b5, %cf32 sizes [16, 16, 32]
      : memref<1x1x16x32xf8E5M2, #ascend.mem<l0a>>, memref<1x1x16x32xf8E5M2, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  ascend.fixpipe %ci32, %out[%c0, %c0] sizes [16, 16]
      : memref<1x1x16x16xi32, #ascend.mem<l0c>>, memref<?x?xf16, #ascend.mem<gm>>
  return
}

// Fixpipe into L1 (Nz, for the next matmul) and into UB (ND): 950 paths.
// CHECK-LABEL: func.func @fixpipe_on_chip
// CHECK: ascend.fixpipe %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] sizes [32, 32] : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<4x2x16x16xf16, #ascend.mem<l1>>
// CHECK: ascend.fixpipe %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] sizes [32, 32] {relu} : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<32x32xbf16, #ascend.mem<ub>>
func.func @fixpipe_on_chip() {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
  %l1 = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l1>>
  ascend.fixpipe %acc, %l1[%c0, %c0] sizes [32, 32]
      : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<4x2x16x16xf16, #ascend.mem<l1>>
  %ub = memref.alloc() : memref<32x32xbf16, #ascend.mem<ub>>
  ascend.fixpipe %acc, %ub[%c0, %c0] sizes [32, 32] {relu}
      : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<32x32xbf16, #ascend.mem<ub>>
  return
}

// CHECK-LABEL: func.func @vector
// CHECK-SAME: (%[[S:.*]]: f32)
// CHECK: %[[X:.*]] = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: %[[Y:.*]] = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbin add %[[X]], %[[X]], %[[Y]] : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbin sub %[[X]], %[[X]], %[[Y]] : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbin mul %[[X]], %[[X]], %[[Y]] : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbin div %[[X]], %[[X]], %[[Y]] : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbin max %[[X]], %[[X]], %[[Y]] : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbin min %[[X]], %[[X]], %[[Y]] : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbins adds %[[X]], %[[Y]], %[[S]] : memref<64x128xf32, #ascend.mem<ub>>, f32
// CHECK: ascend.vbins muls %[[X]], %[[Y]], %[[S]] : memref<64x128xf32, #ascend.mem<ub>>, f32
// CHECK: ascend.vbins maxs %[[X]], %[[Y]], %[[S]] : memref<64x128xf32, #ascend.mem<ub>>, f32
// CHECK: ascend.vbins mins %[[X]], %[[Y]], %[[S]] : memref<64x128xf32, #ascend.mem<ub>>, f32
// CHECK: ascend.vunary exp %[[X]], %[[Y]] : memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vunary ln %[[X]], %[[Y]]
// CHECK: ascend.vunary abs %[[X]], %[[Y]]
// CHECK: ascend.vunary sqrt %[[X]], %[[Y]]
// CHECK: ascend.vunary rsqrt %[[X]], %[[Y]]
// CHECK: ascend.vunary relu %[[X]], %[[Y]]
// CHECK: ascend.vunary rec %[[X]], %[[Y]]
// CHECK: ascend.vunary neg %[[X]], %[[Y]]
// CHECK: ascend.vdup %[[X]], %[[S]] : memref<64x128xf32, #ascend.mem<ub>>, f32
func.func @vector(%s: f32) attributes {ascend.kernel = #ascend.core<aiv>} {
  %x = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
  %y = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vbin add %x, %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vbin sub %x, %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vbin mul %x, %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vbin div %x, %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vbin max %x, %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vbin min %x, %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vbins adds %x, %y, %s : memref<64x128xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %x, %y, %s : memref<64x128xf32, #ascend.mem<ub>>, f32
  ascend.vbins maxs %x, %y, %s : memref<64x128xf32, #ascend.mem<ub>>, f32
  ascend.vbins mins %x, %y, %s : memref<64x128xf32, #ascend.mem<ub>>, f32
  ascend.vunary exp %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vunary ln %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vunary abs %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vunary sqrt %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vunary rsqrt %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vunary relu %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vunary rec %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vunary neg %x, %y : memref<64x128xf32, #ascend.mem<ub>>
  ascend.vdup %x, %s : memref<64x128xf32, #ascend.mem<ub>>, f32
  return
}

// Operands of different types (subviews) list one type per operand; equal
// types print once.
// CHECK-LABEL: func.func @vector_listed_types
// CHECK: %[[ROW:.*]] = memref.subview
// CHECK: ascend.vbin add %[[ROW]], %[[ROW]], %{{.*}} : memref<128xf32, strided<[1], offset: ?>, #ascend.mem<ub>>, memref<128xf32, strided<[1], offset: ?>, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbin mul %{{.*}}, %{{.*}}, %{{.*}} : memref<128xf32, #ascend.mem<ub>>{{$}}
// CHECK: ascend.vbins muls %{{.*}}, %[[ROW]], %{{.*}} : memref<128xf32, #ascend.mem<ub>>, memref<128xf32, strided<[1], offset: ?>, #ascend.mem<ub>>, f32
// CHECK: ascend.vunary exp %[[ROW]], %{{.*}} : memref<128xf32, strided<[1], offset: ?>, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
func.func @vector_listed_types(%r: index, %s: f32) attributes {ascend.kernel = #ascend.core<aiv>} {
  %tile = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
  %bias = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  %row = memref.subview %tile[%r, 0] [1, 128] [1, 1]
      : memref<64x128xf32, #ascend.mem<ub>> to memref<128xf32, strided<[1], offset: ?>, #ascend.mem<ub>>
  ascend.vbin add %row, %row, %bias
      : memref<128xf32, strided<[1], offset: ?>, #ascend.mem<ub>>,
        memref<128xf32, strided<[1], offset: ?>, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
  ascend.vbin mul %bias, %bias, %bias
      : memref<128xf32, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
  ascend.vbins muls %bias, %row, %s
      : memref<128xf32, #ascend.mem<ub>>, memref<128xf32, strided<[1], offset: ?>, #ascend.mem<ub>>, f32
  ascend.vunary exp %row, %bias
      : memref<128xf32, strided<[1], offset: ?>, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
  return
}

// CHECK-LABEL: func.func @vector_shapes
// CHECK: ascend.vcast %{{.*}}, %{{.*}} round rint : memref<64x128xf16, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vcast %{{.*}}, %{{.*}} : memref<64x128xf32, #ascend.mem<ub>>, memref<64x128xf16, #ascend.mem<ub>>
// CHECK: ascend.vcast %{{.*}}, %{{.*}} round floor : memref<64x128xi32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vcast %{{.*}}, %{{.*}} round ceil
// CHECK: ascend.vcast %{{.*}}, %{{.*}} round round
// CHECK: ascend.vcast %{{.*}}, %{{.*}} round trunc
// CHECK: ascend.vreduce sum %{{.*}}, %{{.*}} : memref<64xf32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vreduce max %{{.*}}, %{{.*}} : memref<64x1xf32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vreduce min %{{.*}}, %{{.*}} : memref<1xf32, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbrcb %{{.*}}, %{{.*}} : memref<64x128xf32, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<ub>>
// CHECK: ascend.vbrcb %{{.*}}, %{{.*}} : memref<64x128xf32, #ascend.mem<ub>>, memref<64x1xf32, #ascend.mem<ub>>
func.func @vector_shapes() attributes {ascend.kernel = #ascend.core<aiv>} {
  %x = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
  %h = memref.alloc() : memref<64x128xf16, #ascend.mem<ub>>
  %n = memref.alloc() : memref<64x128xi32, #ascend.mem<ub>>
  ascend.vcast %h, %x round rint : memref<64x128xf16, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
  ascend.vcast %x, %h round none : memref<64x128xf32, #ascend.mem<ub>>, memref<64x128xf16, #ascend.mem<ub>>
  ascend.vcast %n, %x round floor : memref<64x128xi32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
  ascend.vcast %n, %x round ceil : memref<64x128xi32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
  ascend.vcast %n, %x round round : memref<64x128xi32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
  ascend.vcast %n, %x round trunc : memref<64x128xi32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
  %rows = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %rows1 = memref.alloc() : memref<64x1xf32, #ascend.mem<ub>>
  %v = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  %one = memref.alloc() : memref<1xf32, #ascend.mem<ub>>
  ascend.vreduce sum %rows, %x : memref<64xf32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
  ascend.vreduce max %rows1, %x : memref<64x1xf32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
  ascend.vreduce min %one, %v : memref<1xf32, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
  ascend.vbrcb %x, %rows : memref<64x128xf32, #ascend.mem<ub>>, memref<64xf32, #ascend.mem<ub>>
  ascend.vbrcb %x, %rows1 : memref<64x128xf32, #ascend.mem<ub>>, memref<64x1xf32, #ascend.mem<ub>>
  return
}

// CHECK-LABEL: func.func @compare_select
// CHECK: ascend.vcmp eq %{{.*}}, %{{.*}}, %{{.*}} : memref<128xi1, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
// CHECK: ascend.vcmp ne
// CHECK: ascend.vcmp lt
// CHECK: ascend.vcmp le
// CHECK: ascend.vcmp gt
// CHECK: ascend.vcmp ge %{{.*}}, %{{.*}}, %{{.*}} : memref<128xi8, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
// CHECK: ascend.vsel %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<128xf16, #ascend.mem<ub>>, memref<128xi1, #ascend.mem<ub>>{{$}}
// CHECK: ascend.vsel %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : memref<128xf16, #ascend.mem<ub>>, memref<128xi8, #ascend.mem<ub>>, memref<128xf16, strided<[1], offset: 128>, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
func.func @compare_select() attributes {ascend.kernel = #ascend.core<aiv>} {
  %a = memref.alloc() : memref<128xf16, #ascend.mem<ub>>
  %b = memref.alloc() : memref<128xf16, #ascend.mem<ub>>
  %m = memref.alloc() : memref<128xi1, #ascend.mem<ub>>
  %m8 = memref.alloc() : memref<128xi8, #ascend.mem<ub>>
  ascend.vcmp eq %m, %a, %b : memref<128xi1, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
  ascend.vcmp ne %m, %a, %b : memref<128xi1, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
  ascend.vcmp lt %m, %a, %b : memref<128xi1, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
  ascend.vcmp le %m, %a, %b : memref<128xi1, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
  ascend.vcmp gt %m, %a, %b : memref<128xi1, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
  ascend.vcmp ge %m8, %a, %b
      : memref<128xi8, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
  ascend.vsel %a, %m, %a, %b : memref<128xf16, #ascend.mem<ub>>, memref<128xi1, #ascend.mem<ub>>
  %pair = memref.alloc() : memref<2x128xf16, #ascend.mem<ub>>
  %second = memref.subview %pair[1, 0] [1, 128] [1, 1]
      : memref<2x128xf16, #ascend.mem<ub>> to memref<128xf16, strided<[1], offset: 128>, #ascend.mem<ub>>
  ascend.vsel %a, %m8, %second, %b
      : memref<128xf16, #ascend.mem<ub>>, memref<128xi8, #ascend.mem<ub>>,
        memref<128xf16, strided<[1], offset: 128>, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
  return
}

// CHECK-LABEL: func.func @sync_vector
// CHECK: ascend.set_flag mte2 -> v, 0
// CHECK: ascend.wait_flag mte2 -> v, 0
// CHECK: ascend.set_flag v -> mte3, 7
// CHECK: ascend.wait_flag v -> mte3, 7
// CHECK: ascend.set_flag mte3 -> mte2, 1
// CHECK: ascend.wait_flag mte3 -> mte2, 1
// CHECK: ascend.set_flag s -> v, 2
// CHECK: ascend.wait_flag v -> s, 3
// CHECK: ascend.pipe_barrier v
// CHECK: ascend.pipe_barrier mte2
// CHECK: ascend.pipe_barrier mte3
// CHECK: ascend.pipe_barrier s
// CHECK: ascend.pipe_barrier all
// CHECK: ascend.sync_all
func.func @sync_vector() attributes {ascend.kernel = #ascend.core<aiv>} {
  ascend.set_flag mte2 -> v, 0
  ascend.wait_flag mte2 -> v, 0
  ascend.set_flag v -> mte3, 7
  ascend.wait_flag v -> mte3, 7
  ascend.set_flag mte3 -> mte2, 1
  ascend.wait_flag mte3 -> mte2, 1
  ascend.set_flag s -> v, 2
  ascend.wait_flag v -> s, 3
  ascend.pipe_barrier v
  ascend.pipe_barrier mte2
  ascend.pipe_barrier mte3
  ascend.pipe_barrier s
  ascend.pipe_barrier all
  ascend.sync_all
  return
}

// CHECK-LABEL: func.func @sync_cube
// CHECK: ascend.set_flag mte2 -> mte1, 0
// CHECK: ascend.set_flag mte1 -> m, 0
// CHECK: ascend.set_flag m -> fix, 0
// CHECK: ascend.set_flag fix -> m, 0
// CHECK: ascend.set_flag m -> mte1, 0
// CHECK: ascend.set_flag mte1 -> mte2, 0
// CHECK: ascend.set_flag fix -> mte2, 0
// CHECK: ascend.pipe_barrier m
// CHECK: ascend.pipe_barrier mte1
// CHECK: ascend.pipe_barrier fix
func.func @sync_cube() attributes {ascend.kernel = #ascend.core<aic>} {
  ascend.set_flag mte2 -> mte1, 0
  ascend.set_flag mte1 -> m, 0
  ascend.set_flag m -> fix, 0
  ascend.set_flag fix -> m, 0
  ascend.set_flag m -> mte1, 0
  ascend.set_flag mte1 -> mte2, 0
  ascend.set_flag fix -> mte2, 0
  ascend.pipe_barrier m
  ascend.pipe_barrier mte1
  ascend.pipe_barrier fix
  return
}

// CHECK-LABEL: func.func @cross_core
// CHECK: ascend.cross_core_set_flag mode 0, mte3, 10
// CHECK: ascend.cross_core_set_flag mode 1, v, 1
// CHECK: ascend.cross_core_set_flag mode 2, fix, 2
// CHECK: ascend.cross_core_set_flag mode 4, fix, 3
// CHECK: ascend.cross_core_wait_flag 2{{$}}
// CHECK: ascend.cross_core_wait_flag 2{{$}}
// CHECK: ascend.cross_core_wait_flag 3, mte2
// CHECK: ascend.cross_core_wait_flag 1, v
func.func @cross_core() attributes {ascend.kernel = #ascend.core<mix>} {
  ascend.cross_core_set_flag mode 0, mte3, 10
  ascend.core aiv {
    ascend.cross_core_set_flag mode 1, v, 1
  }
  ascend.core aic {
    ascend.cross_core_set_flag mode 2, fix, 2
    ascend.cross_core_set_flag mode 4, fix, 3
  }
  ascend.core aiv {
    ascend.cross_core_wait_flag 2
    ascend.cross_core_wait_flag 2, s
    ascend.cross_core_wait_flag 3, mte2
    ascend.cross_core_wait_flag 1, v
  }
  return
}

// CHECK-LABEL: func.func @copy_atomic_add
// CHECK: ascend.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] sizes [16, 64] atomic_add : memref<16x64xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
// CHECK: ascend.copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] sizes [32] atomic_add : memref<32xbf16, #ascend.mem<ub>>, memref<?xbf16, #ascend.mem<gm>>
// CHECK: ascend.copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] sizes [32] atomic_add : memref<32xi8, #ascend.mem<ub>>, memref<?xi8, #ascend.mem<gm>>
// CHECK: ascend.copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}] sizes [32] : memref<32xi8, #ascend.mem<ub>>, memref<?xi8, #ascend.mem<gm>>
func.func @copy_atomic_add(%x: memref<?x?xf32, #ascend.mem<gm>>, %h: memref<?xbf16, #ascend.mem<gm>>,
                           %b: memref<?xi8, #ascend.mem<gm>>, %i: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16x64xf32, #ascend.mem<ub>>
  %ubh = memref.alloc() : memref<32xbf16, #ascend.mem<ub>>
  %ubb = memref.alloc() : memref<32xi8, #ascend.mem<ub>>
  ascend.copy %ub[%c0, %c0], %x[%i, %c0] sizes [16, 64] atomic_add
      : memref<16x64xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
  ascend.copy %ubh[%c0], %h[%i] sizes [32] atomic_add
      : memref<32xbf16, #ascend.mem<ub>>, memref<?xbf16, #ascend.mem<gm>>
  ascend.copy %ubb[%c0], %b[%i] sizes [32] atomic_add
      : memref<32xi8, #ascend.mem<ub>>, memref<?xi8, #ascend.mem<gm>>
  ascend.copy %ubb[%c0], %b[%i] sizes [32]
      : memref<32xi8, #ascend.mem<ub>>, memref<?xi8, #ascend.mem<gm>>
  return
}

// The L1 layouts of f32 operands the cube needs transposed: the Nz of the
// region's transpose ({transpose}, Dn2Nz) and Zz ({zz}), which the loads read
// with {zz} (and {transpose} for A stored K x M).
// CHECK-LABEL: func.func @transposing_l1_layouts
// CHECK: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [32, 64] {transpose} : memref<?x?xf32, #ascend.mem<gm>>, memref<4x4x16x8xf32, #ascend.mem<l1>>
// CHECK: ascend.copy_nd2nz %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} sizes [32, 64] {zz} : memref<?x?xf32, #ascend.mem<gm>>, memref<2x8x16x8xf32, #ascend.mem<l1>>
// CHECK: ascend.load_l0a %{{.*}}, %{{.*}} {transpose, zz} sizes [64, 32] : memref<2x8x16x8xf32, #ascend.mem<l1>>, memref<4x4x16x8xf32, #ascend.mem<l0a>>
// CHECK: ascend.load_l0b %{{.*}}, %{{.*}} {zz} sizes [32, 64] : memref<2x8x16x8xf32, #ascend.mem<l1>>, memref<4x4x16x8xf32, #ascend.mem<l0b>>
func.func @transposing_l1_layouts(%a: memref<?x?xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %nz = memref.alloc() : memref<4x4x16x8xf32, #ascend.mem<l1>>
  %zz = memref.alloc() : memref<2x8x16x8xf32, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x4x16x8xf32, #ascend.mem<l0a>>
  %l0b = memref.alloc() : memref<4x4x16x8xf32, #ascend.mem<l0b>>
  ascend.copy_nd2nz %a[%c0, %c0], %nz sizes [32, 64] {transpose}
      : memref<?x?xf32, #ascend.mem<gm>>, memref<4x4x16x8xf32, #ascend.mem<l1>>
  ascend.copy_nd2nz %a[%c0, %c0], %zz sizes [32, 64] {zz}
      : memref<?x?xf32, #ascend.mem<gm>>, memref<2x8x16x8xf32, #ascend.mem<l1>>
  ascend.load_l0a %zz, %l0a {transpose, zz} sizes [64, 32]
      : memref<2x8x16x8xf32, #ascend.mem<l1>>, memref<4x4x16x8xf32, #ascend.mem<l0a>>
  ascend.load_l0b %zz, %l0b {zz} sizes [32, 64]
      : memref<2x8x16x8xf32, #ascend.mem<l1>>, memref<4x4x16x8xf32, #ascend.mem<l0b>>
  return
}
