module {
  func.func @gemm(%arg0: memref<256x512xf16, #ascend.mem<gm>> {tile.dims = ["256", "512"], tile.name = "A"}, %arg1: memref<512x256xf16, #ascend.mem<gm>> {tile.dims = ["512", "256"], tile.name = "B"}, %arg2: memref<256x256xf32, #ascend.mem<gm>> {tile.dims = ["256", "256"], tile.name = "C"}) attributes {ascend.grid = 2 : i64, ascend.kernel = #ascend.core<aic>, tile.entry} {
    %c2 = arith.constant 2 : index
    %c4 = arith.constant 4 : index
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c128 = arith.constant 128 : index
    %c64 = arith.constant 64 : index
    %alloc = memref.alloc() : memref<16x8x16x16xf32, #ascend.mem<l0c>>
    %alloc_0 = memref.alloc() : memref<16x16x16x16xf16, #ascend.mem<l1>>
    %alloc_1 = memref.alloc() : memref<16x8x16x16xf16, #ascend.mem<l1>>
    %alloc_2 = memref.alloc() {ascend.l0_turns = 2 : i64} : memref<4x16x16x16xf16, #ascend.mem<l0b>>
    %alloc_3 = memref.alloc() {ascend.l0_turns = 2 : i64} : memref<4x16x16x16xf16, #ascend.mem<l0b>>
    %alloc_4 = memref.alloc() {ascend.l0_turns = 2 : i64} : memref<8x4x16x16xf16, #ascend.mem<l0a>>
    %alloc_5 = memref.alloc() {ascend.l0_turns = 2 : i64} : memref<8x4x16x16xf16, #ascend.mem<l0a>>
    %block_idx = ascend.block_idx : index
    %block_num = ascend.block_num : index
    scf.for %arg3 = %block_idx to %c2 step %block_num {
      scf.for %arg4 = %c0 to %c8 step %c4 {
        %1 = arith.muli %arg3, %c128 : index
        %2 = arith.muli %arg4, %c64 : index
        ascend.copy_nd2nz %arg0[%1, %2], %alloc_1 sizes [128, 256] : memref<256x512xf16, #ascend.mem<gm>>, memref<16x8x16x16xf16, #ascend.mem<l1>>
        ascend.copy_nd2nz %arg1[%2, %c0], %alloc_0 sizes [256, 256] : memref<512x256xf16, #ascend.mem<gm>>, memref<16x16x16x16xf16, #ascend.mem<l1>>
        %subview = memref.subview %alloc_1[0, 0, 0, 0] [4, 8, 16, 16] [1, 1, 1, 1] : memref<16x8x16x16xf16, #ascend.mem<l1>> to memref<4x8x16x16xf16, #ascend.mem<l1>>
        %subview_6 = memref.subview %alloc_0[0, 0, 0, 0] [16, 4, 16, 16] [1, 1, 1, 1] : memref<16x16x16x16xf16, #ascend.mem<l1>> to memref<16x4x16x16xf16, strided<[4096, 256, 16, 1]>, #ascend.mem<l1>>
        ascend.load_l0a %subview, %alloc_5 sizes [128, 64] : memref<4x8x16x16xf16, #ascend.mem<l1>>, memref<8x4x16x16xf16, #ascend.mem<l0a>>
        ascend.load_l0b %subview_6, %alloc_3 sizes [64, 256] : memref<16x4x16x16xf16, strided<[4096, 256, 16, 1]>, #ascend.mem<l1>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>
        %3 = arith.cmpi eq, %arg4, %c0 : index
        scf.if %3 {
          ascend.mmad %alloc_5, %alloc_3, %alloc sizes [128, 256, 64] {init} : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>, memref<16x8x16x16xf32, #ascend.mem<l0c>>
        } else {
          ascend.mmad %alloc_5, %alloc_3, %alloc sizes [128, 256, 64] : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>, memref<16x8x16x16xf32, #ascend.mem<l0c>>
        }
        %subview_7 = memref.subview %alloc_1[4, 0, 0, 0] [4, 8, 16, 16] [1, 1, 1, 1] : memref<16x8x16x16xf16, #ascend.mem<l1>> to memref<4x8x16x16xf16, strided<[2048, 256, 16, 1], offset: 8192>, #ascend.mem<l1>>
        %subview_8 = memref.subview %alloc_0[0, 4, 0, 0] [16, 4, 16, 16] [1, 1, 1, 1] : memref<16x16x16x16xf16, #ascend.mem<l1>> to memref<16x4x16x16xf16, strided<[4096, 256, 16, 1], offset: 1024>, #ascend.mem<l1>>
        ascend.load_l0a %subview_7, %alloc_4 sizes [128, 64] : memref<4x8x16x16xf16, strided<[2048, 256, 16, 1], offset: 8192>, #ascend.mem<l1>>, memref<8x4x16x16xf16, #ascend.mem<l0a>>
        ascend.load_l0b %subview_8, %alloc_2 sizes [64, 256] : memref<16x4x16x16xf16, strided<[4096, 256, 16, 1], offset: 1024>, #ascend.mem<l1>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>
        ascend.mmad %alloc_4, %alloc_2, %alloc sizes [128, 256, 64] : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>, memref<16x8x16x16xf32, #ascend.mem<l0c>>
        %subview_9 = memref.subview %alloc_1[8, 0, 0, 0] [4, 8, 16, 16] [1, 1, 1, 1] : memref<16x8x16x16xf16, #ascend.mem<l1>> to memref<4x8x16x16xf16, strided<[2048, 256, 16, 1], offset: 16384>, #ascend.mem<l1>>
        %subview_10 = memref.subview %alloc_0[0, 8, 0, 0] [16, 4, 16, 16] [1, 1, 1, 1] : memref<16x16x16x16xf16, #ascend.mem<l1>> to memref<16x4x16x16xf16, strided<[4096, 256, 16, 1], offset: 2048>, #ascend.mem<l1>>
        ascend.load_l0a %subview_9, %alloc_5 sizes [128, 64] : memref<4x8x16x16xf16, strided<[2048, 256, 16, 1], offset: 16384>, #ascend.mem<l1>>, memref<8x4x16x16xf16, #ascend.mem<l0a>>
        ascend.load_l0b %subview_10, %alloc_3 sizes [64, 256] : memref<16x4x16x16xf16, strided<[4096, 256, 16, 1], offset: 2048>, #ascend.mem<l1>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>
        ascend.mmad %alloc_5, %alloc_3, %alloc sizes [128, 256, 64] : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>, memref<16x8x16x16xf32, #ascend.mem<l0c>>
        %subview_11 = memref.subview %alloc_1[12, 0, 0, 0] [4, 8, 16, 16] [1, 1, 1, 1] : memref<16x8x16x16xf16, #ascend.mem<l1>> to memref<4x8x16x16xf16, strided<[2048, 256, 16, 1], offset: 24576>, #ascend.mem<l1>>
        %subview_12 = memref.subview %alloc_0[0, 12, 0, 0] [16, 4, 16, 16] [1, 1, 1, 1] : memref<16x16x16x16xf16, #ascend.mem<l1>> to memref<16x4x16x16xf16, strided<[4096, 256, 16, 1], offset: 3072>, #ascend.mem<l1>>
        ascend.load_l0a %subview_11, %alloc_4 sizes [128, 64] : memref<4x8x16x16xf16, strided<[2048, 256, 16, 1], offset: 24576>, #ascend.mem<l1>>, memref<8x4x16x16xf16, #ascend.mem<l0a>>
        ascend.load_l0b %subview_12, %alloc_2 sizes [64, 256] : memref<16x4x16x16xf16, strided<[4096, 256, 16, 1], offset: 3072>, #ascend.mem<l1>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>
        ascend.mmad %alloc_4, %alloc_2, %alloc sizes [128, 256, 64] : memref<8x4x16x16xf16, #ascend.mem<l0a>>, memref<4x16x16x16xf16, #ascend.mem<l0b>>, memref<16x8x16x16xf32, #ascend.mem<l0c>>
      } {tile.num_stages = 2 : i64}
      %0 = arith.muli %arg3, %c128 : index
      ascend.fixpipe %alloc, %arg2[%0, %c0] sizes [128, 256] : memref<16x8x16x16xf32, #ascend.mem<l0c>>, memref<256x256xf32, #ascend.mem<gm>>
    }
    return
  }
}
