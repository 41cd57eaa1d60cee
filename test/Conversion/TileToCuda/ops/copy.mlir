// RUN: tile-opt %s -split-input-file --convert-tile-to-cuda --canonicalize --cse | filecheck %s

// global -> shared f16: 64x32 in 16-byte chunks of 8 elements is 256
// chunks, 2 per thread, each a cp.async whose source count is clamped at
// the tensor's edge (zero fill) and whose address stays inside when the
// count is 0; one group, waited for at once. The chunks run only when the
// rows are 16-byte aligned (base pointer, column offset, row length), else
// the element copy with the pad does.
// CHECK-LABEL: func.func @to_shared
// CHECK-SAME: (%[[A:arg[0-9]+]]: memref<?x?xf16>, %[[I:arg[0-9]+]]: index, %[[K:arg[0-9]+]]: index
// CHECK: %[[SH:.*]] = memref.view
// CHECK: gpu.barrier
// CHECK: %[[PTR:.*]] = memref.extract_aligned_pointer_as_index %[[A]]
// CHECK: arith.remui %[[PTR]], %c16 : index
// CHECK: arith.remsi %[[K]], %c8 : index
// CHECK: arith.cmpi sge, %[[K]], %c0 : index
// CHECK: %[[COLS:.*]] = memref.dim %[[A]], %c1
// CHECK: arith.remui %[[COLS]], %c8 : index
// CHECK: scf.if %{{.*}} {
// CHECK: %[[ROWS:.*]] = memref.dim %[[A]], %c0
// CHECK: %[[ROW_OK:.*]] = arith.cmpi ult, %[[ROW:.*]], %[[ROWS]] : index
// CHECK: %[[LEFT:.*]] = arith.subi %[[COLS]], %[[COL:.*]] : index
// CHECK: %[[POS:.*]] = arith.maxsi %[[LEFT]], %c0 : index
// CHECK: %[[CLAMPED:.*]] = arith.minsi %[[POS]], %c8 : index
// CHECK: %[[COUNT:.*]] = arith.select %[[ROW_OK]], %[[CLAMPED]], %c0 : index
// CHECK: %[[SOME:.*]] = arith.cmpi sgt, %[[COUNT]], %c0 : index
// CHECK: %[[SROW:.*]] = arith.select %[[SOME]], %[[ROW]], %c0 : index
// CHECK: %[[SCOL:.*]] = arith.select %[[SOME]], %[[COL]], %c0 : index
// CHECK: %[[T0:.*]] = nvgpu.device_async_copy %[[A]][%[[SROW]], %[[SCOL]]], %[[SH]][%{{.*}}, %{{.*}}], 8, %[[COUNT]] {bypassL1}
// CHECK: %[[T1:.*]] = nvgpu.device_async_copy
// CHECK: %[[G:.*]] = nvgpu.device_async_create_group %[[T0]], %[[T1]]
// CHECK: nvgpu.device_async_wait %[[G]] {numGroups = 0 : i32}
// CHECK: } else {
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2048 step %c128 {
// CHECK: scf.if %{{.*}} -> (f16) {
// CHECK: memref.load %[[A]]
// CHECK: } else {
// CHECK: scf.yield %cst : f16
// CHECK: memref.store %{{.*}}, %[[SH]]
// CHECK: gpu.barrier
func.func @to_shared(%A: memref<?x?xf16>, %i: index, %k: index, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %c0 = arith.constant 0 : index
    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    tile.copy %A[%i, %k], %a[%c0, %c0] : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
  }
  return
}

// -----

// A pad other than zero is not what cp.async fills with, and a conversion
// is not a byte copy: element copies; a copy of part of a tile first pads
// the whole tile.
// CHECK-LABEL: func.func @padded
// CHECK-NOT: nvgpu.device_async_copy
// CHECK: %[[PAD:.*]] = arith.constant 0xFC00 : f16
// CHECK: memref.store %[[PAD]], %{{.*}} : memref<64x32xf16, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: scf.yield %[[PAD]] : f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK-NOT: nvgpu.device_async_copy
func.func @padded(%A: memref<?x?xf16>, %B: memref<?x?xf16>, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %c0 = arith.constant 0 : index
    %pad = arith.constant 0xFC00 : f16
    %a = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
    %f = tile.alloc : memref<64x32xf32, #tile.scope<shared>>
    tile.copy %A[%c0, %c0], %a[%c0, %c0] sizes [32, 32] pad(%pad : f16) : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %f[%c0, %c0] : memref<64x32xf16, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<shared>>
  }
  return
}
