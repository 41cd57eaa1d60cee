// The double-buffered vector add on two vector cores: exact numbers, no race,
// the hand-computed cycle count of one 512-element pair per core, and a trace.
//
// RUN: tile-sim %S/Inputs/vadd-double-buffer.mlir --arg x=arange:1024xf32 \
// RUN:     --arg y=ones:1024xf32 --arg z=zeros:1024xf32 --arg n=1024 --block-dim 2 \
// RUN:     --print-outputs --trace %t.json | filecheck %s
// RUN: %python -c "import json, sys; d = json.load(open(sys.argv[1])); print(sorted({e['name'] for e in d['traceEvents'] if e.get('ph') == 'X'}))" %t.json \
// RUN:     | filecheck %s --check-prefix=TRACE

// CHECK: kernel @vadd (aiv) on 910b (dav-c220), block_dim 2: 2 cores
// 4 loads of 1 KiB (64 + 1024/32), one add (8 + 4 repeats), one store (64 + ceil(1024/86)).
// CHECK-NEXT: cycles: 472 (0.262 us at 1.8 GHz)
// CHECK: V {{ +}}48
// CHECK-NEXT: MTE2 {{ +}}768
// CHECK-NEXT: MTE3 {{ +}}304
// CHECK: gm->ub {{ +}}8.00 KiB
// CHECK-NEXT: ub->gm {{ +}}4.00 KiB
// CHECK-NEXT: on-chip memory (peak per core): ub 6.00 KiB of 184.00 KiB
// CHECK-NEXT: races: 0
// CHECK-NEXT: deadlocks: 0
// CHECK: %z = [   1.    2.    3. ... 1022. 1023. 1024.]

// TRACE: ['ascend.copy gm -> ub', 'ascend.copy ub -> gm', 'ascend.vbin add', 'ascend.wait_flag mte2 -> v, 0', 'ascend.wait_flag mte2 -> v, 1'
