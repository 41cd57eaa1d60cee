// RUN: tile-opt %s -split-input-file --tile-ascend-split-scopes | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-ascend-split-scopes="auto-sync=true" \
// RUN:   | filecheck %s --check-prefix=AUTO

// An expert kernel: the cube scope stores S into a GM workspace and signals the
// vector scope, which reads its half of the rows (`vid`, grid dim 0 of 2). Each kind
// of core gets its own copy of the kernel with its own scopes, the tiles it uses, and
// `vid` as its sub-block index; the author's flags and barriers stay (auto-sync off)
// and the function says so.

// CHECK-LABEL: func.func @expert
// CHECK-SAME: ascend.author_sync
// CHECK:       scf.execute_region {
// CHECK:         tile.kernel blocks(%{{.*}}, %{{.*}}) in (%c1, %c2)
// CHECK-NOT:       ascend.sub_block_idx
// CHECK-NOT:       #tile.scope<ub>
// CHECK:           tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
// CHECK-NOT:       #tile.scope<ub>
// CHECK:           tile.gemm
// CHECK-NEXT:      ascend.pipe_barrier all
// CHECK-NEXT:      tile.copy
// CHECK-NEXT:      ascend.cross_core_set_flag mode 2, fix, 0
// CHECK-NOT:       ascend.cross_core_wait_flag
// CHECK:         scf.yield
// CHECK-NEXT:  } {ascend.core_region = #ascend.core<aic>}
// CHECK:       scf.execute_region {
// CHECK:         tile.kernel blocks(%{{.*}}, %{{.*}}) in (%c1{{.*}}, %c2)
// CHECK-NEXT:      %[[SUB:.*]] = ascend.sub_block_idx : index
// CHECK-NOT:       #tile.scope<l0c>
// CHECK:           tile.alloc : memref<16x32xf32, #tile.scope<ub>>
// CHECK:           ascend.cross_core_wait_flag 0
// CHECK-NEXT:      arith.muli %[[SUB]]
// CHECK:           tile.copy
// CHECK-NOT:       tile.gemm
// CHECK:         scf.yield
// CHECK-NEXT:  } {ascend.core_region = #ascend.core<aiv>}
// CHECK-NOT:   tile.kernel
// CHECK:       return

// AUTO-LABEL: func.func @expert
// AUTO-NOT:   ascend.author_sync
// AUTO-NOT:   ascend.pipe_barrier
// AUTO:       ascend.cross_core_set_flag mode 2, fix, 0
// AUTO:       ascend.cross_core_wait_flag 0
func.func @expert(%a: memref<64x32xf16>, %ws: memref<64x32xf32>, %out: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 128 attributes {ascend.vid_dim = 0 : i64} {
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    %ub = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
    %row = arith.muli %cid, %c32 : index
    scf.execute_region {
      tile.copy %a[%row, %c0], %l1[%c0, %c0] : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
      ascend.pipe_barrier all
      tile.gemm %l1, %l1, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      ascend.pipe_barrier all
      tile.copy %acc[%c0, %c0], %ws[%row, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<64x32xf32>
      ascend.cross_core_set_flag mode 2, fix, 0
      scf.yield
    } {ascend.core_region = #ascend.core<aic>}
    scf.execute_region {
      ascend.cross_core_wait_flag 0
      %half = arith.muli %vid, %c16 : index
      %mine = arith.addi %row, %half : index
      tile.copy %ws[%mine, %c0], %ub[%c0, %c0] : memref<64x32xf32>, memref<16x32xf32, #tile.scope<ub>>
      ascend.pipe_barrier all
      tile.copy %ub[%c0, %c0], %out[%mine, %c0] : memref<16x32xf32, #tile.scope<ub>>, memref<64x32xf32>
      scf.yield
    } {ascend.core_region = #ascend.core<aiv>}
  }
  return
}

// -----

// Cube scopes only: a cube kernel, the scope inlined where it was.

// CHECK-LABEL: func.func @cube_only
// CHECK-SAME:  ascend.author_sync
// CHECK-NOT:   scf.execute_region
// CHECK:       tile.kernel blocks(%{{.*}}) in (%{{.*}})
// CHECK-NEXT:    tile.alloc
// CHECK-NEXT:    tile.copy
// CHECK-NEXT:    ascend.pipe_barrier all
// CHECK-NEXT:  }
func.func @cube_only(%a: memref<32x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%cid) in (%c1) threads = 128 {
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    scf.execute_region {
      tile.copy %a[%c0, %c0], %l1[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<l1>>
      ascend.pipe_barrier all
      scf.yield
    } {ascend.core_region = #ascend.core<aic>}
  }
  return
}

// -----

// No scope and no sync of the author's: left to tilec (no mark).

// CHECK-LABEL: func.func @plain
// CHECK-NOT:   ascend.author_sync
func.func @plain(%a: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %t = tile.alloc : memref<32xf32, #tile.scope<ub>>
    tile.copy %a[%c0], %t[%c0] : memref<32xf32>, memref<32xf32, #tile.scope<ub>>
  }
  return
}
