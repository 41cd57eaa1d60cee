// RUN: tile-opt %s -split-input-file --tile-ascend-combine-cores | filecheck %s

// tilelang-ascend's AUTO_CV_COMBINE: in each trip the cube copies a workspace into L1
// that both AIVs write their halves of later in the same trip (rows from vid), and the
// vector cores read back what the cube's gemm wrote. The cube program waits for flag 0
// before its read and sets flag 1 after its fixpipe; the vector program sets flag 0
// after its write and waits for flag 1 before its read. Per direction a "free" flag
// goes back from the reader's last read (on MTE2) to the writer's first write, which
// waits for it from the second trip on and once after the loop. Allocations and the
// shared index code stay outside both programs; vid stays marked for
// tile-ascend-split-scopes.

// CHECK-LABEL: func.func @combine
// CHECK:       tile.kernel blocks(%[[VID:.*]], %[[CID:.*]]) in
// CHECK-SAME:    ascend.vid_dim = 0
// CHECK:         tile.alloc : memref<32x32xf16, #tile.scope<l1>>
// CHECK:         tile.alloc : memref<16x32xf16, #tile.scope<ub>>
// CHECK:         %[[ROW:.*]] = arith.muli %[[CID]]
// CHECK:         scf.execute_region {
// CHECK-NEXT:      scf.for %[[I:.*]] = %[[LO:.*]] to %[[HI:.*]] step
// CHECK-NEXT:        ascend.cross_core_wait_flag 0, mte2
// CHECK-NEXT:        tile.copy %{{.*}}[%[[ROW]], %{{.*}}], %{{.*}} : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
// CHECK-NEXT:        ascend.cross_core_set_flag mode 2, mte2, 2
// CHECK-NEXT:        tile.gemm
// CHECK-NEXT:        %[[AGAIN:.*]] = arith.cmpi ne, %[[I]], %[[LO]]
// CHECK-NEXT:        scf.if %[[AGAIN]] {
// CHECK-NEXT:          ascend.cross_core_wait_flag 3, fix
// CHECK-NEXT:        }
// CHECK-NEXT:        tile.copy {{.*}} : memref<32x32xf32, #tile.scope<l0c>>, memref<64x32xf32>
// CHECK-NEXT:        ascend.cross_core_set_flag mode 2, fix, 1
// CHECK-NEXT:      }
// CHECK-NEXT:      %[[RAN:.*]] = arith.cmpi slt, %[[LO]], %[[HI]]
// CHECK-NEXT:      scf.if %[[RAN]] {
// CHECK-NEXT:        ascend.cross_core_wait_flag 3, fix
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } {ascend.core_region = #ascend.core<aic>}
// CHECK:         scf.execute_region {
// CHECK-NEXT:      scf.for
// CHECK-NOT:         tile.gemm
// CHECK:             scf.if
// CHECK-NEXT:          ascend.cross_core_wait_flag 2, mte3
// CHECK-NEXT:        }
// CHECK-NEXT:        tile.copy {{.*}} : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
// CHECK-NEXT:        ascend.cross_core_set_flag mode 2, mte3, 0
// CHECK-NEXT:        ascend.cross_core_wait_flag 1, mte2
// CHECK-NEXT:        tile.copy {{.*}} : memref<64x32xf32>, memref<16x32xf32, #tile.scope<ub>>
// CHECK-NEXT:        ascend.cross_core_set_flag mode 2, mte2, 3
// CHECK-NEXT:      }
// CHECK-NEXT:      arith.cmpi slt
// CHECK-NEXT:      scf.if
// CHECK-NEXT:        ascend.cross_core_wait_flag 2, mte3
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    } {ascend.core_region = #ascend.core<aiv>}
func.func @combine(%a: memref<64x32xf16>, %ws: memref<64x32xf16>, %ws2: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 128 attributes {ascend.combine_cores, ascend.vid_dim = 0 : i64} {
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    %ub = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
    %s = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
    %row = arith.muli %cid, %c32 : index
    scf.for %i = %c0 to %c2 step %c1 {
      tile.copy %ws[%row, %c0], %l1[%c0, %c0] : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
      tile.gemm %l1, %l1, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      tile.copy %acc[%c0, %c0], %ws2[%row, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<64x32xf32>
      %half = arith.muli %vid, %c16 : index
      %mine = arith.addi %row, %half : index
      tile.copy %a[%mine, %c0], %ub[%c0, %c0] : memref<64x32xf16>, memref<16x32xf16, #tile.scope<ub>>
      tile.copy %ub[%c0, %c0], %ws[%mine, %c0] : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
      tile.copy %ws2[%mine, %c0], %s[%c0, %c0] : memref<64x32xf32>, memref<16x32xf32, #tile.scope<ub>>
    }
  }
  return
}

// -----

// The vector cores' writes before the loop and the cube's reads in it: the set after
// the write runs once, the wait before the loop once (the innermost block holding both
// is the kernel body, and no trip writes again: no "free" flag).

// CHECK-LABEL: func.func @outside_the_loop
// CHECK:       scf.execute_region {
// CHECK-NEXT:    ascend.cross_core_wait_flag 0, mte2
// CHECK-NEXT:    scf.for
// CHECK-NOT:     ascend.cross_core
// CHECK:       } {ascend.core_region = #ascend.core<aic>}
// CHECK:       scf.execute_region {
// CHECK:         tile.copy {{.*}} : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
// CHECK-NEXT:    ascend.cross_core_set_flag mode 2, mte3, 0
// CHECK-NEXT:    scf.yield
// CHECK:       } {ascend.core_region = #ascend.core<aiv>}
// CHECK-NOT:   ascend.cross_core
func.func @outside_the_loop(%a: memref<64x32xf16>, %ws: memref<64x32xf16>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 128 attributes {ascend.combine_cores, ascend.vid_dim = 0 : i64} {
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    %ub = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
    %mine = arith.muli %vid, %c16 : index
    scf.for %i = %c0 to %c2 step %c1 {
      tile.copy %ws[%c0, %c0], %l1[%c0, %c0] : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
      tile.gemm %l1, %l1, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
    }
    tile.copy %a[%mine, %c0], %ub[%c0, %c0] : memref<64x32xf16>, memref<16x32xf16, #tile.scope<ub>>
    tile.copy %ub[%c0, %c0], %ws[%mine, %c0] : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
  }
  return
}

// -----

// A kernel without the mark is left alone.

// CHECK-LABEL: func.func @unmarked
// CHECK-NOT:   scf.execute_region
// CHECK-NOT:   ascend.cross_core
func.func @unmarked(%a: memref<32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %t = tile.alloc : memref<32xf32, #tile.scope<ub>>
    tile.copy %a[%c0], %t[%c0] : memref<32xf32>, memref<32xf32, #tile.scope<ub>>
  }
  return
}

// -----

// The cube's work in a loop of its own and the vector cores' after it, unrolled (as
// tilec traces `range`; sparse_flash_attention/example_sparse_flash_attn.py): the cube's
// trip k reads what the AIVs' step k wrote to %ws and writes %ws2, which step k reads
// before step k + 1 writes %ws again. Counted per trip, the cube's one read and one
// write pair with the AIVs' two steps: the cube waits and sets in each trip, the AIVs
// set and wait once per step. A flag around the whole loop would deadlock.

// CHECK-LABEL: func.func @trip_by_trip
// CHECK:       scf.execute_region {
// CHECK-NEXT:    scf.for
// CHECK-NEXT:      ascend.cross_core_wait_flag 0, mte2
// CHECK-NEXT:      tile.copy {{.*}} : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
// CHECK-NEXT:      tile.gemm
// CHECK-NEXT:      tile.copy {{.*}} : memref<32x32xf32, #tile.scope<l0c>>, memref<64x32xf32>
// CHECK-NEXT:      ascend.cross_core_set_flag mode 2, fix, 1
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  } {ascend.core_region = #ascend.core<aic>}
// CHECK:       scf.execute_region {
// CHECK-NEXT:    tile.copy {{.*}} : memref<64x32xf16>, memref<16x32xf16, #tile.scope<ub>>
// CHECK-NEXT:    tile.copy {{.*}} : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
// CHECK-NEXT:    ascend.cross_core_set_flag mode 2, mte3, 0
// CHECK-NEXT:    ascend.cross_core_wait_flag 1, mte2
// CHECK-NEXT:    tile.copy {{.*}} : memref<64x32xf32>, memref<16x32xf32, #tile.scope<ub>>
// CHECK-NEXT:    tile.copy {{.*}} : memref<64x32xf16>, memref<16x32xf16, #tile.scope<ub>>
// CHECK-NEXT:    tile.copy {{.*}} : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
// CHECK-NEXT:    ascend.cross_core_set_flag mode 2, mte3, 0
// CHECK-NEXT:    ascend.cross_core_wait_flag 1, mte2
// CHECK-NEXT:    tile.copy {{.*}} : memref<64x32xf32>, memref<16x32xf32, #tile.scope<ub>>
// CHECK-NEXT:    scf.yield
// CHECK-NEXT:  } {ascend.core_region = #ascend.core<aiv>}
func.func @trip_by_trip(%a: memref<64x32xf16>, %ws: memref<64x32xf16>, %ws2: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  tile.kernel blocks(%vid, %cid) in (%c2, %c2) threads = 128 attributes {ascend.combine_cores, ascend.vid_dim = 0 : i64} {
    %l1 = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    %ub = tile.alloc : memref<16x32xf16, #tile.scope<ub>>
    %s = tile.alloc : memref<16x32xf32, #tile.scope<ub>>
    %mine = arith.muli %vid, %c16 : index
    scf.for %i = %c0 to %c2 step %c1 {
      tile.copy %ws[%c0, %c0], %l1[%c0, %c0] : memref<64x32xf16>, memref<32x32xf16, #tile.scope<l1>>
      tile.gemm %l1, %l1, %acc clear_accum : memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      tile.copy %acc[%c0, %c0], %ws2[%c0, %c0] : memref<32x32xf32, #tile.scope<l0c>>, memref<64x32xf32>
    }
    tile.copy %a[%mine, %c0], %ub[%c0, %c0] : memref<64x32xf16>, memref<16x32xf16, #tile.scope<ub>>
    tile.copy %ub[%c0, %c0], %ws[%mine, %c0] : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
    tile.copy %ws2[%mine, %c0], %s[%c0, %c0] : memref<64x32xf32>, memref<16x32xf32, #tile.scope<ub>>
    tile.copy %a[%mine, %c0], %ub[%c0, %c0] : memref<64x32xf16>, memref<16x32xf16, #tile.scope<ub>>
    tile.copy %ub[%c0, %c0], %ws[%mine, %c0] : memref<16x32xf16, #tile.scope<ub>>, memref<64x32xf16>
    tile.copy %ws2[%mine, %c0], %s[%c0, %c0] : memref<64x32xf32>, memref<16x32xf32, #tile.scope<ub>>
  }
  return
}
