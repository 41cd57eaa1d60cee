// The cube -> vector hand-off through a GM workspace on a mix kernel: three
// blocks of one AIC and two AIVs each, the last block ragged (rows 128..149).
//
// RUN: tile-sim %S/Inputs/cube-vector-handoff.mlir --arg a=random:150x32xf16 --arg b=random \
// RUN:     --arg bias=random --arg ws=zeros:150x64xf32 --arg out=zeros:150x64xf32 \
// RUN:     --block-dim 3 | filecheck %s

// CHECK: kernel @matmul_bias_relu (mix) on 910b (dav-c220), block_dim 3: 9 cores
// CHECK: V {{ +[0-9]+ +[0-9.]+%}}
// CHECK: M {{ +[0-9]+ +[0-9.]+%}}
// CHECK: FIX {{ +[0-9]+ +[0-9.]+%}}
// CHECK: gm->l1
// CHECK: l0c->gm {{ +}}37.50 KiB
// CHECK: ub->gm {{ +}}37.50 KiB
// CHECK: races: 0
// CHECK-NEXT: deadlocks: 0
