// RUN: tile-opt %s --convert-tile-to-ascend | filecheck %s

// A column of a wider UB tile broadcast along rows (`o[i, j] = t[i, 1] * 2`): the
// column is a strided view (stride 4), and Brcb reads its 8 source elements as one
// run (kernel_operator_vec_brcb_intf.h), so the scalar unit first copies the column
// into a scratch tile of its own; Brcb broadcasts that.

// CHECK-LABEL: func.func @column_broadcast
// CHECK:      %[[COL:.*]] = memref.subview %{{.*}}[0, 1] [8, 1] [1, 1] : memref<8x4xf32, #ascend.mem<ub>> to memref<8xf32, strided<[4], offset: 1>, #ascend.mem<ub>>
// CHECK:      scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT:   %[[V:.*]] = memref.load %[[COL]][%[[I]]]
// CHECK-NEXT:   memref.store %[[V]], %[[DST:.*]][%[[I]]] : memref<8xf32, #ascend.mem<ub>>
// CHECK:      ascend.vbrcb %{{.*}}, %[[DST]] : memref<8x16xf32, #ascend.mem<ub>>, memref<8xf32, #ascend.mem<ub>>
// CHECK:      ascend.vbins muls
func.func @column_broadcast(%t: memref<8x4xf32, #tile.scope<ub>>, %o: memref<8x16xf32, #tile.scope<ub>>) {
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.parallel (%i, %j) in (8, 16) {
    %v = memref.load %t[%i, %c1] : memref<8x4xf32, #tile.scope<ub>>
    %d = arith.mulf %v, %two : f32
    memref.store %d, %o[%i, %j] : memref<8x16xf32, #tile.scope<ub>>
  }
  return
}
