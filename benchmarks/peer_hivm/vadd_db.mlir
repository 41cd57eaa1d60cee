// Double-buffered vector add z = x + y over 8 chunks of 512 f16 (AIV kernel).
// The UB tiles are marked `hivm.multi_buffer = 2`: hivm-plan-memory gives each
// of them two addresses and hivm-inject-sync alternates between them per
// iteration, which is how HIVM expresses a pipelined (double-buffered) loop.
#gm = #hivm.address_space<gm>
#ub = #hivm.address_space<ub>
module {
  func.func @vadd_db(%x: memref<4096xf16, #gm>, %y: memref<4096xf16, #gm>,
                     %z: memref<4096xf16, #gm>)
      attributes {hacc.entry, hacc.function_kind = #hacc.function_kind<DEVICE>} {
    %c0 = arith.constant 0 : index
    %c512 = arith.constant 512 : index
    %c4096 = arith.constant 4096 : index
    scf.for %i = %c0 to %c4096 step %c512 {
      %gx = memref.subview %x[%i] [512] [1]
          : memref<4096xf16, #gm> to memref<512xf16, strided<[1], offset: ?>, #gm>
      %gy = memref.subview %y[%i] [512] [1]
          : memref<4096xf16, #gm> to memref<512xf16, strided<[1], offset: ?>, #gm>
      %gz = memref.subview %z[%i] [512] [1]
          : memref<4096xf16, #gm> to memref<512xf16, strided<[1], offset: ?>, #gm>
      %ux = memref.alloc() : memref<512xf16, #ub>
      annotation.mark %ux {hivm.multi_buffer = 2 : i32} : memref<512xf16, #ub>
      %uy = memref.alloc() : memref<512xf16, #ub>
      annotation.mark %uy {hivm.multi_buffer = 2 : i32} : memref<512xf16, #ub>
      %uz = memref.alloc() : memref<512xf16, #ub>
      annotation.mark %uz {hivm.multi_buffer = 2 : i32} : memref<512xf16, #ub>
      hivm.hir.load ins(%gx : memref<512xf16, strided<[1], offset: ?>, #gm>)
                    outs(%ux : memref<512xf16, #ub>)
      hivm.hir.load ins(%gy : memref<512xf16, strided<[1], offset: ?>, #gm>)
                    outs(%uy : memref<512xf16, #ub>)
      hivm.hir.vadd ins(%ux, %uy : memref<512xf16, #ub>, memref<512xf16, #ub>)
                    outs(%uz : memref<512xf16, #ub>)
      hivm.hir.store ins(%uz : memref<512xf16, #ub>)
                     outs(%gz : memref<512xf16, strided<[1], offset: ?>, #gm>)
    }
    return
  }
}
