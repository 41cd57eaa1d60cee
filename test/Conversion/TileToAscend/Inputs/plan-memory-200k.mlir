// Three UB tiles live at once: 200 KiB.
func.func @ub_overflow(%x: memref<?x?xf32, #ascend.mem<gm>>) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<128x128xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<128x128xf32, #ascend.mem<ub>>
  %c = memref.alloc() : memref<128x144xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0, %c0], %a[%c0, %c0] sizes [128, 128] : memref<?x?xf32, #ascend.mem<gm>>, memref<128x128xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0, %c0], %b[%c0, %c0] sizes [128, 128] : memref<?x?xf32, #ascend.mem<gm>>, memref<128x128xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0, %c0], %c[%c0, %c0] sizes [128, 144] : memref<?x?xf32, #ascend.mem<gm>>, memref<128x144xf32, #ascend.mem<ub>>
  ascend.vbin add %a, %a, %b : memref<128x128xf32, #ascend.mem<ub>>
  ascend.copy %c[%c0, %c0], %x[%c0, %c0] sizes [128, 144] : memref<128x144xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
  ascend.copy %a[%c0, %c0], %x[%c0, %c0] sizes [128, 128] : memref<128x128xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}
