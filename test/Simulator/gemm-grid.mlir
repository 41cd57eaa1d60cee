// The double-buffered GEMM over a grid: 256^3 on four cube cores (one
// 128x128 tile each), and a ragged 200x300x256 on three (six tiles, so one
// core runs two), race-free on both profiles.
//
// RUN: tile-sim %S/Inputs/gemm-double-buffer.mlir --arg a=random:256x256xf16 \
// RUN:     --arg b=random:256x256xf16 --arg c=zeros:256x256xf32 --arg m=256 --arg n=256 \
// RUN:     --arg k=256 --block-dim 4 | filecheck %s
// RUN: tile-sim %S/Inputs/gemm-double-buffer.mlir --arg a=random:200x256xf16 \
// RUN:     --arg b=random:256x300xf16 --arg c=zeros:200x300xf32 --arg m=200 --arg n=300 \
// RUN:     --arg k=256 --block-dim 3 --profile 950 | filecheck %s --check-prefix=RAGGED

// CHECK: kernel @gemm (aic) on 910b (dav-c220), block_dim 4: 4 cores
// CHECK: cube MACs: 16777216
// CHECK: races: 0
// CHECK-NEXT: deadlocks: 0

// RAGGED: kernel @gemm (aic) on 950 (dav-c310), block_dim 3: 3 cores
// RAGGED: cube MACs: 25165824
// RAGGED: races: 0
// RAGGED-NEXT: deadlocks: 0
