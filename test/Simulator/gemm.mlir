// One GEMM tile on the cube: race-free, and its cycles are the sum of the
// steps (each waits for the previous one), from the 910b profile:
//   MTE2  2 x 64 + 4096/32 + 3072/32   = 352   (A, B from GM, first touch)
//   MTE1  2 x 16 + 4096/256 + 3072/128 =  72   (L1 -> L0A, L1 -> L0B)
//   M     8 + 64*48*32/4096            =  32
//   FIX   32 + ceil(12288/86)          = 175   (L0C -> GM, f32)
//
// RUN: tile-sim %S/Inputs/gemm-tile.mlir | filecheck %s
// RUN: tile-sim %S/Inputs/gemm-tile.mlir --profile 950 | filecheck %s --check-prefix=P950

// CHECK: kernel @gemm_tile (aic) on 910b (dav-c220), block_dim 1: 1 cores
// CHECK-NEXT: cycles: 631 (0.351 us at 1.8 GHz)
// CHECK: M {{ +}}32
// CHECK-NEXT: MTE1 {{ +}}72
// CHECK-NEXT: MTE2 {{ +}}352
// CHECK-NEXT: MTE3 {{ +}}0
// CHECK-NEXT: FIX {{ +}}175
// CHECK: cube MACs: 98304
// CHECK: on-chip memory (peak per core): l0a 4.00 KiB of 64.00 KiB, l0b 3.00 KiB of 64.00 KiB, l0c 12.00 KiB of 128.00 KiB, l1 7.00 KiB of 511.75 KiB
// CHECK-NEXT: races: 0
// CHECK-NEXT: deadlocks: 0

// 950: HBM share 72 B/cycle (MTE2 128 + 57 + 43 = 228), L1 -> L0A/L0B at
// 512/256 B/cycle (MTE1 32 + 8 + 12 = 52); M and FIX as on 910b.
// P950: kernel @gemm_tile (aic) on 950 (dav-c310)
// P950-NEXT: cycles: 487 (0.295 us at 1.65 GHz)
// P950: races: 0
