// RUN: tile-opt %s --emit=ascendc | filecheck %s
// RUN: tile-opt %s --emit=ascendc:950 | filecheck %s --check-prefix=A950

// AscendC of hand-written final ascend IR (planned, synchronized): a mix
// kernel's core regions and cross-core flags, the sub-block index, a row
// reduction (one ReduceSum per row into a scratch after the planned tiles,
// a V barrier between rows on the 910b only), a broadcast (Brcb, then a
// block-stride Copy per row), a cast with its rounding, a scalar read of UB
// and write of GM, the grid barrier of a mix kernel, and an on-chip copy of
// rows shorter than a 32-byte block (a masked Copy, one repeat per row).
// CHECK: void mix(GM_ADDR X, GM_ADDR Y, int64_t M)
// CHECK: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2);
// CHECK: GlobalTensor<half> Y_gm;
// CHECK: pipe.InitBuffer(ub_buf, 2656);
// CHECK: // [0] ascend.core aic
// CHECK-NEXT: if ASCEND_IS_AIC {
// CHECK-NEXT: // [1] ascend.cross_core_set_flag
// CHECK-NEXT: CrossCoreSetFlag<2, PIPE_FIX>(3);
// CHECK: if ASCEND_IS_AIV {
// CHECK-NEXT: // [3] ascend.sub_block_idx
// CHECK-NEXT: int64_t [[SUB:v[0-9]+]] = static_cast<int64_t>(GetSubBlockIdx());
// CHECK: CrossCoreWaitFlag(3);
// CHECK: LocalTensor<float> [[A:t[0-9]+]] = ub[0].ReinterpretCast<float>();
// CHECK: LocalTensor<float> [[R:t[0-9]+]] = ub[2048].ReinterpretCast<float>();
// CHECK: LocalTensor<half> [[H:t[0-9]+]] = ub[2080].ReinterpretCast<half>();
// CHECK: // [8] ascend.vreduce sum
// CHECK-NEXT: LocalTensor<float> [[WORK:work[0-9]+]] = ub[2368].ReinterpretCast<float>();
// CHECK-NEXT: for (int32_t [[ROW:row[0-9]+]] = 0; [[ROW]] < 8; ++[[ROW]]) {
// CHECK-NEXT: ReduceSum([[R]][[[ROW]]], [[A]][[[ROW]] * 64], [[WORK]], 64);
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: }
// CHECK-NEXT: // [9] ascend.pipe_barrier
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK-NEXT: // [10] ascend.vbrcb
// CHECK: Brcb([[BLOCKS:blocks[0-9]+]], [[R]], 1, p{{[0-9]+}});
// CHECK-NEXT: PipeBarrier<PIPE_V>();
// CHECK: .srcStride = 0;
// CHECK: Copy([[A]][{{row[0-9]+}} * 64], [[BLOCKS]][{{row[0-9]+}} * 8], 64, 1, p{{[0-9]+}});
// CHECK: Cast([[H]], [[R]], RoundMode::CAST_RINT, 8);
// CHECK: SetFlag<HardEvent::V_S>(0);
// CHECK: WaitFlag<HardEvent::V_S>(0);
// CHECK-NEXT: half [[FIRST:v[0-9]+]] = [[H]].GetValue(0);
// The scalar store into GM goes through one UB element after the buffers (2624)
// and the DMA, in S's order, on an event no MTE3 <-> S flag uses.
// CHECK-NEXT: // [15] memref.store gm
// CHECK-NEXT: LocalTensor<half> [[ONE:one[0-9]+]] = ub[2624].ReinterpretCast<half>();
// CHECK-NEXT: SetFlag<HardEvent::MTE3_S>(7);
// CHECK-NEXT: WaitFlag<HardEvent::MTE3_S>(7);
// CHECK-NEXT: [[ONE]].SetValue(0, [[FIRST]]);
// CHECK-NEXT: SetFlag<HardEvent::S_MTE3>(7);
// CHECK-NEXT: WaitFlag<HardEvent::S_MTE3>(7);
// CHECK: .blockLen = 2;
// CHECK: DataCopyPad(Y_gm[{{v[0-9]+}}], [[ONE]], p{{[0-9]+}});
// CHECK-NEXT: SetFlag<HardEvent::MTE3_S>(7);
// CHECK-NEXT: WaitFlag<HardEvent::MTE3_S>(7);
// CHECK-NEXT: // [16] ascend.sync_all
// CHECK-NEXT: SyncAll<false>();
// CHECK: // [17] ascend.copy ub -> ub sizes [8, 4]
// CHECK: .dstRepeatSize = 1;
// CHECK-NEXT: .srcRepeatSize = 8;
// CHECK: Copy({{t[0-9]+}}, [[A]], 4, 8, p{{[0-9]+}});
// CHECK: void launch_mix(uint32_t blockDim, aclrtStream stream, uint8_t* X, uint8_t* Y, int64_t M)

// A950: __NPU_ARCH__ 3510
// A950: ReduceSum(
// A950-NEXT: }
// A950-NOT: PipeBarrier<PIPE_V>();
// A950: // [9] ascend.pipe_barrier
func.func @mix(%x: memref<?x64xf32, #ascend.mem<gm>> {tile.name = "X", tile.dims = ["M", "64"]},
               %y: memref<?xf16, #ascend.mem<gm>> {tile.name = "Y", tile.dims = ["M"]})
    attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  ascend.core aic {
    ascend.cross_core_set_flag mode 2, fix, 3
  }
  ascend.core aiv {
    %sub = ascend.sub_block_idx : index
    %row = arith.muli %sub, %c0 : index
    ascend.cross_core_wait_flag 3
    %a = memref.alloc() {ascend.offset = 0 : i64} : memref<8x64xf32, #ascend.mem<ub>>
    %r = memref.alloc() {ascend.offset = 2048 : i64} : memref<8xf32, #ascend.mem<ub>>
    %h = memref.alloc() {ascend.offset = 2080 : i64} : memref<8xf16, #ascend.mem<ub>>
    ascend.copy %x[%row, %c0], %a[%c0, %c0] sizes [8, 64] : memref<?x64xf32, #ascend.mem<gm>>, memref<8x64xf32, #ascend.mem<ub>>
    ascend.set_flag mte2 -> v, 0
    ascend.wait_flag mte2 -> v, 0
    ascend.vreduce sum %r, %a : memref<8xf32, #ascend.mem<ub>>, memref<8x64xf32, #ascend.mem<ub>>
    ascend.pipe_barrier v
    ascend.vbrcb %a, %r : memref<8x64xf32, #ascend.mem<ub>>, memref<8xf32, #ascend.mem<ub>>
    ascend.pipe_barrier v
    ascend.vcast %h, %r round rint : memref<8xf16, #ascend.mem<ub>>, memref<8xf32, #ascend.mem<ub>>
    ascend.set_flag v -> s, 0
    ascend.wait_flag v -> s, 0
    %first = memref.load %h[%c0] : memref<8xf16, #ascend.mem<ub>>
    memref.store %first, %y[%row] : memref<?xf16, #ascend.mem<gm>>
    ascend.sync_all
    %wide = memref.alloc() {ascend.offset = 2112 : i64} : memref<8x8xf32, #ascend.mem<ub>>
    ascend.copy %a[%c0, %c0], %wide[%c0, %c0] sizes [8, 4] : memref<8x64xf32, #ascend.mem<ub>>, memref<8x8xf32, #ascend.mem<ub>>
  }
  return
}
