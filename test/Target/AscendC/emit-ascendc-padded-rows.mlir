// RUN: tile-opt %s --tile-to-ascend="target=ascend:910b" --emit=ascendc | filecheck %s
// RUN: tile-opt %s --tile-to-ascend="target=ascend:950" --emit=ascendc:950 | filecheck %s

// Rows padded to whole 32-byte blocks (passes/conversion/tile_to_ascend/ops/padded_rows.py)
// as AscendC: every row's call starts on a block. DataCopyPad's UB-side gap is
// the pad's one block, each row's Mul and ReduceSum take its 100 real elements,
// and the tile that keeps its layout is one Duplicate of 400.

// CHECK-LABEL: void rms_rows
// CHECK: [[P:p[0-9]+]].blockLen = static_cast<uint32_t>(100 * 4);
// CHECK: [[P]].dstStride = (416 - ((100 * 4 + 31) / 32) * 32) / 32;
// CHECK: for (int32_t [[R:row[0-9]+]] = 0; [[R]] < 4; ++[[R]]) {
// CHECK-NEXT: Mul([[SQ:t[0-9]+]][[[R]] * 104], [[X:t[0-9]+]][[[R]] * 104], [[X]][[[R]] * 104], 100);
// CHECK: for (int32_t [[S:row[0-9]+]] = 0; [[S]] < 4; ++[[S]]) {
// CHECK-NEXT: ReduceSum(t{{[0-9]+}}[[[S]]], [[SQ]][[[S]] * 104], work{{[0-9]+}}, 100);
// CHECK: Duplicate(t{{[0-9]+}}, static_cast<float>(arg2), 400);
func.func @rms_rows(%a: memref<8x100xf32>, %out: memref<8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c2) threads = 1 {
    %x = tile.alloc : memref<4x100xf32, #tile.scope<ub>>
    %sq = tile.alloc : memref<4x100xf32, #tile.scope<ub>>
    %other = tile.alloc : memref<4x100xf32, #tile.scope<ub>>
    %sum = tile.alloc : memref<4xf32, #tile.scope<ub>>
    %row = arith.muli %bx, %c4 : index
    tile.copy %a[%row, %c0], %x[%c0, %c0] : memref<8x100xf32>, memref<4x100xf32, #tile.scope<ub>>
    tile.parallel (%i, %j) in (4, 100) {
      %e = memref.load %x[%i, %j] : memref<4x100xf32, #tile.scope<ub>>
      %p = arith.mulf %e, %e : f32
      memref.store %p, %sq[%i, %j] : memref<4x100xf32, #tile.scope<ub>>
    }
    tile.reduce sum %sq, %sum dim = 1 : memref<4x100xf32, #tile.scope<ub>>, memref<4xf32, #tile.scope<ub>>
    tile.fill %other, %v : memref<4x100xf32, #tile.scope<ub>>, f32
    tile.copy %sum[%c0], %out[%row] : memref<4xf32, #tile.scope<ub>>, memref<8xf32>
    tile.copy %other[%c0, %c0], %a[%row, %c0] : memref<4x100xf32, #tile.scope<ub>>, memref<8x100xf32>
  }
  return
}
