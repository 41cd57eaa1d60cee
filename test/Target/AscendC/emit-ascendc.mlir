// RUN: tile-opt %s -split-input-file --tile-to-ascend="target=ascend:910b" --emit=ascendc | filecheck %s
// RUN: tile-opt %s -split-input-file --tile-to-ascend="target=ascend:950" --emit=ascendc:950 \
// RUN:   | filecheck %s --check-prefix=A950
// RUN: not tile-opt %s -split-input-file --emit=ascendc 2>&1 | filecheck %s --check-prefix=UNLOWERED

// --emit=ascendc prints the AscendC C++ of the final ascend IR: a vector
// kernel reads its rows with DataCopyPad (only the rows inside the matrix:
// the row count is clamped at run time), scales them with Muls over the 320
// elements of the tile, and every flag of the IR is a SetFlag/WaitFlag with
// its HardEvent and id. The host launcher follows.
// CHECK: #include "kernel_operator.h"
// CHECK: extern "C" __global__ __aicore__ void scale(GM_ADDR A, int64_t A_dim0, float s)
// CHECK-NEXT: {
// CHECK-NEXT: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIV_ONLY);
// CHECK: A_gm.SetGlobalBuffer((__gm__ float*)A);
// CHECK: TPipe pipe;
// CHECK-NEXT: TBuf<TPosition::VECCALC> ub_buf;
// CHECK-NEXT: pipe.InitBuffer(ub_buf, 1280);
// CHECK: LocalTensor<float> [[TILE:t[0-9]+]] = ub[0].ReinterpretCast<float>();
// CHECK: // [0] ascend.block_idx
// CHECK-NEXT: GetBlockIdx()
// CHECK: for (int64_t [[BLOCK:i[0-9]+]] = {{v[0-9]+}}; [[BLOCK]] < {{v[0-9]+}}; [[BLOCK]] += {{v[0-9]+}}) {
// CHECK: ascend.copy gm -> ub sizes [8, 40]
// CHECK: [[ROWS:n[0-9]+]] = A_dim0 -
// CHECK: .blockLen = static_cast<uint32_t>([[ROWS]] * 40 * 4);
// CHECK: DataCopyPad([[TILE]], A_gm[
// CHECK: SetFlag<HardEvent::MTE2_V>(0);
// CHECK: WaitFlag<HardEvent::MTE2_V>(0);
// CHECK: Muls([[TILE]], [[TILE]], static_cast<float>(s), 320);
// CHECK: SetFlag<HardEvent::V_MTE3>(0);
// CHECK: DataCopyPad(A_gm[{{.*}}], [[TILE]], p{{[0-9]+}});
// CHECK: void launch_scale(uint32_t blockDim, aclrtStream stream, uint8_t* A, int64_t A_dim0, float s)
// CHECK: scale<<<blockDim, nullptr, stream>>>(A, A_dim0, s);

// A950: (profile 950,
// A950: __NPU_ARCH__ 3510)
// A950: constexpr uint32_t scale_default_block_dim = 64;

// UNLOWERED: error: no function with `ascend.kernel` to emit as AscendC (run tile-to-ascend first)
func.func @scale(%A: memref<?x40xf32> {tile.name = "A"}, %s: f32 {tile.name = "s"})
    attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %A, %c0 : memref<?x40xf32>
  %g = arith.ceildivsi %m, %c8 : index
  tile.kernel blocks(%bx) in (%g) threads = 128 {
    %row = arith.muli %bx, %c8 : index
    %t = tile.alloc : memref<8x40xf32, #tile.scope<fragment>>
    tile.copy %A[%row, %c0], %t[%c0, %c0] : memref<?x40xf32>, memref<8x40xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (8, 40) {
      %x = memref.load %t[%i, %j] : memref<8x40xf32, #tile.scope<fragment>>
      %y = arith.mulf %x, %s : f32
      memref.store %y, %t[%i, %j] : memref<8x40xf32, #tile.scope<fragment>>
    }
    tile.copy %t[%c0, %c0], %A[%row, %c0] : memref<8x40xf32, #tile.scope<fragment>>, memref<?x40xf32>
  }
  return
}

// -----

// A cube kernel: GM to L1 through Nd2NzParams, L1 to L0A/L0B with LoadData
// (on the 910b four rows of fractals into the Zz layout of L0A, on the 950
// one contiguous Nz load), Mmad with cmatrixInitVal on the first K step,
// and the fixpipe to GM.
// CHECK-LABEL: void gemm(GM_ADDR A, GM_ADDR B, GM_ADDR C)
// CHECK: KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY);
// CHECK-DAG: TBuf<TPosition::A1> l1_buf;
// CHECK-DAG: TBuf<TPosition::A2> l0a_buf;
// CHECK-DAG: TBuf<TPosition::B2> l0b_buf;
// CHECK-DAG: TBuf<TPosition::CO1> l0c_buf;
// CHECK: ascend.copy_nd2nz sizes [64, 32]
// CHECK: Nd2NzParams [[ND:p[0-9]+]];
// CHECK: [[ND]].dstNzC0Stride = 64;
// CHECK: DataCopy({{t[0-9]+}}, A_gm, [[ND]]);
// CHECK: ascend.load_l0a
// CHECK-COUNT-4: LoadData(
// CHECK: ascend.mmad sizes [64, 64, 32] init
// CHECK: .cmatrixInitVal = true;
// CHECK: Mmad(
// CHECK: ascend.fixpipe sizes [64, 64]
// CHECK: .quantPre = QuantMode_t::NoQuant;
// CHECK: Fixpipe<float, float, CFG_ROW_MAJOR>(C_gm, {{t[0-9]+}}, p{{[0-9]+}});

// A950-LABEL: void gemm(GM_ADDR A, GM_ADDR B, GM_ADDR C)
// A950: ascend.load_l0a
// A950-NEXT: LoadData2DParams [[LD:p[0-9]+]];
// A950: [[LD]].repeatTimes = 8;
// A950-NEXT: [[LD]].sid = 0;
// A950-NEXT: [[LD]].addrMode = 0;
// A950-NEXT: LoadData({{t[0-9]+}}, {{t[0-9]+}}, [[LD]]);
// A950-NEXT: // [{{[0-9]+}}] ascend.
func.func @gemm(%arg0: memref<64x32xf16> {tile.name = "A"}, %arg1: memref<32x64xf16> {tile.name = "B"},
                %arg2: memref<64x64xf32> {tile.name = "C"}) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x64xf16, #tile.scope<shared>>
    %c = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
    tile.clear %c : memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %arg0[%c0, %c0], %a[%c0, %c0] : memref<64x32xf16>, memref<64x32xf16, #tile.scope<shared>>
    tile.copy %arg1[%c0, %c0], %b[%c0, %c0] : memref<32x64xf16>, memref<32x64xf16, #tile.scope<shared>>
    tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
    tile.copy %c[%c0, %c0], %arg2[%c0, %c0] : memref<64x64xf32, #tile.scope<fragment>>, memref<64x64xf32>
  }
  return
}
