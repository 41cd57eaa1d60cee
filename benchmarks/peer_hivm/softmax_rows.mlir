// Row softmax of a 32x256 f32 matrix, one 8-row block per loop iteration
// (AIV kernel, single-buffered): load the block GM->UB, row max, broadcast,
// subtract, exp, row sum, broadcast, divide, store UB->GM.
#gm = #hivm.address_space<gm>
#ub = #hivm.address_space<ub>
!blk_gm = memref<8x256xf32, strided<[256, 1], offset: ?>, #gm>
module {
  func.func @softmax_rows(%x: memref<32x256xf32, #gm>, %y: memref<32x256xf32, #gm>)
      attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    scf.for %r = %c0 to %c32 step %c8 {
      %gx = memref.subview %x[%r, 0] [8, 256] [1, 1] : memref<32x256xf32, #gm> to !blk_gm
      %gy = memref.subview %y[%r, 0] [8, 256] [1, 1] : memref<32x256xf32, #gm> to !blk_gm
      %t = memref.alloc() : memref<8x256xf32, #ub>
      %mx = memref.alloc() : memref<8x1xf32, #ub>
      %bmx = memref.alloc() : memref<8x256xf32, #ub>
      %d = memref.alloc() : memref<8x256xf32, #ub>
      %e = memref.alloc() : memref<8x256xf32, #ub>
      %sm = memref.alloc() : memref<8x1xf32, #ub>
      %bsm = memref.alloc() : memref<8x256xf32, #ub>
      %o = memref.alloc() : memref<8x256xf32, #ub>
      hivm.hir.load ins(%gx : !blk_gm) outs(%t : memref<8x256xf32, #ub>)
      hivm.hir.vreduce <max> ins(%t : memref<8x256xf32, #ub>)
                             outs(%mx : memref<8x1xf32, #ub>) reduce_dims = [1]
      hivm.hir.vbrc ins(%mx : memref<8x1xf32, #ub>) outs(%bmx : memref<8x256xf32, #ub>)
                    broadcast_dims = [1]
      hivm.hir.vsub ins(%t, %bmx : memref<8x256xf32, #ub>, memref<8x256xf32, #ub>)
                    outs(%d : memref<8x256xf32, #ub>)
      hivm.hir.vexp ins(%d : memref<8x256xf32, #ub>) outs(%e : memref<8x256xf32, #ub>)
      hivm.hir.vreduce <sum> ins(%e : memref<8x256xf32, #ub>)
                             outs(%sm : memref<8x1xf32, #ub>) reduce_dims = [1]
      hivm.hir.vbrc ins(%sm : memref<8x1xf32, #ub>) outs(%bsm : memref<8x256xf32, #ub>)
                    broadcast_dims = [1]
      hivm.hir.vdiv ins(%e, %bsm : memref<8x256xf32, #ub>, memref<8x256xf32, #ub>)
                    outs(%o : memref<8x256xf32, #ub>)
      hivm.hir.store ins(%o : memref<8x256xf32, #ub>) outs(%gy : !blk_gm)
    }
    return
  }
}
