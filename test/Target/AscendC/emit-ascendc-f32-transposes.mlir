// RUN: tile-opt %s --tile-to-ascend="target=ascend:910b" --emit=ascendc | filecheck %s
// RUN: tile-opt %s --tile-to-ascend="target=ascend:950" --emit=ascendc:950 | filecheck %s --check-prefix=A950

// An f32 gemm whose A is stored K x M (transpose_a) and B K x N: both reach L0
// transposed. On the 910b L1 holds them in Zz, one Nd2Nz per 16 rows (the C0
// blocks of a row block 16 rows, one fractal, apart; the second block 16 x 64
// (A) or 16 x 48 (B) elements on), and LoadDataWithTranspose turns each row
// of 16 x 16 squares into fractals of L0A (Zz: the two halves of a square
// adjacent, M blocks a row of 4 K fractals apart) or L0B (Zn: the halves a
// row of 3 N fractals apart).
// CHECK-LABEL: void gemm_f32(GM_ADDR A, GM_ADDR B, GM_ADDR C)
// CHECK: ascend.copy_nd2nz sizes [32, 64] zz
// CHECK: [[P:p[0-9]+]].nValue = static_cast<uint16_t>(16);
// CHECK: [[P]].dValue = 64;
// CHECK: [[P]].srcDValue = 64;
// CHECK: [[P]].dstNzC0Stride = 16;
// CHECK: DataCopy([[AT:t[0-9]+]], A_gm, [[P]]);
// CHECK: DataCopy([[AT]][1024], A_gm[(16) * (64)], p{{[0-9]+}});
// CHECK: ascend.copy_nd2nz sizes [32, 48] zz
// CHECK: DataCopy([[B:t[0-9]+]], B_gm, p{{[0-9]+}});
// CHECK: DataCopy([[B]][768], B_gm[(16) * (48)], p{{[0-9]+}});
// CHECK: ascend.load_l0a transpose zz
// CHECK: LoadData2dTransposeParams [[LA:p[0-9]+]];
// CHECK-NEXT: [[LA]].startIndex = 0;
// CHECK-NEXT: [[LA]].repeatTimes = 4;
// CHECK-NEXT: [[LA]].srcStride = 1;
// CHECK-NEXT: [[LA]].dstGap = 3;
// CHECK-NEXT: [[LA]].dstFracGap = 0;
// CHECK-NEXT: LoadDataWithTranspose([[L0A:t[0-9]+]], [[AT]], [[LA]]);
// CHECK: [[LA2:p[0-9]+]].startIndex = 4;
// CHECK: LoadDataWithTranspose([[L0A]][256], [[AT]], [[LA2]]);
// CHECK: ascend.load_l0b zz
// CHECK: [[LB:p[0-9]+]].repeatTimes = 3;
// CHECK-NEXT: [[LB]].srcStride = 1;
// CHECK-NEXT: [[LB]].dstGap = 0;
// CHECK-NEXT: [[LB]].dstFracGap = 2;
// CHECK-NEXT: LoadDataWithTranspose([[L0B:t[0-9]+]], [[B]], [[LB]]);
// CHECK: [[LB2:p[0-9]+]].startIndex = 3;
// CHECK: LoadDataWithTranspose([[L0B]][768], [[B]], [[LB2]]);
// CHECK: Mmad(

// On the 950 the Dn2Nz copy reads the GM matrix column-major: its n are the
// region's columns, its d (the C0 direction) its rows, and the Nz it writes is
// of the transpose, 16-row blocks of M (N) apart; the loads are the plain ones.
// A950-LABEL: void gemm_f32(GM_ADDR A, GM_ADDR B, GM_ADDR C)
// A950: ascend.copy_nd2nz sizes [32, 64] transpose
// A950-NEXT: Dn2NzParams [[D:p[0-9]+]];
// A950-NEXT: [[D]].dnNum = 1;
// A950-NEXT: [[D]].nValue = static_cast<uint16_t>(64);
// A950-NEXT: [[D]].dValue = static_cast<uint32_t>(32);
// A950-NEXT: [[D]].srcDnMatrixStride = 0;
// A950-NEXT: [[D]].srcDValue = 64;
// A950-NEXT: [[D]].dstNzC0Stride = 64;
// A950-NEXT: [[D]].dstNzNStride = 1;
// A950-NEXT: [[D]].dstNzMatrixStride = 0;
// A950-NEXT: DataCopy({{t[0-9]+}}, A_gm, [[D]]);
// A950: ascend.copy_nd2nz sizes [32, 48] transpose
// A950: .nValue = static_cast<uint16_t>(48);
// A950: .dstNzC0Stride = 48;
// A950: ascend.load_l0a
// A950-NOT: LoadDataWithTranspose
// A950: .ifTranspose = false;
// A950: ascend.load_l0b transpose
// A950: .ifTranspose = false;
// A950-NOT: LoadDataWithTranspose
// A950: Mmad(
func.func @gemm_f32(%arg0: memref<32x64xf32> {tile.name = "A"}, %arg1: memref<32x48xf32> {tile.name = "B"},
                    %arg2: memref<64x48xf32> {tile.name = "C"}) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx, %by) in (%c1, %c1) threads = 128 {
    %a = tile.alloc : memref<32x64xf32, #tile.scope<shared>>
    %b = tile.alloc : memref<32x48xf32, #tile.scope<shared>>
    %c = tile.alloc : memref<64x48xf32, #tile.scope<fragment>>
    tile.clear %c : memref<64x48xf32, #tile.scope<fragment>>
    tile.copy %arg0[%c0, %c0], %a[%c0, %c0] : memref<32x64xf32>, memref<32x64xf32, #tile.scope<shared>>
    tile.copy %arg1[%c0, %c0], %b[%c0, %c0] : memref<32x48xf32>, memref<32x48xf32, #tile.scope<shared>>
    tile.gemm %a, %b, %c transpose_a : memref<32x64xf32, #tile.scope<shared>>, memref<32x48xf32, #tile.scope<shared>>, memref<64x48xf32, #tile.scope<fragment>>
    tile.copy %c[%c0, %c0], %arg2[%c0, %c0] : memref<64x48xf32, #tile.scope<fragment>>, memref<64x48xf32>
  }
  return
}
