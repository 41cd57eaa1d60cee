// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// A bitcast in element-wise code reads the same UB bytes as another type
// (byte_views.py): the tile computed into is a view of an i8 buffer and the
// bitcast another view of it, so no instruction moves the bits; a loaded user
// tile is first copied into such a buffer (one UB copy). This is e5m2 -> f16 as
// the 910b decodes it (tile-ascend-widen-fp8): the byte as an integer, times 256.

// CHECK-LABEL: func.func @e5m2_to_f16
// CHECK-SAME: %[[Q:.*]]: memref<16x64xf8E5M2, #ascend.mem<ub>>, %[[H:.*]]: memref<16x64xf16, #ascend.mem<ub>>
// CHECK-DAG: %[[RAW:.*]] = memref.alloc() : memref<2048xi8, #ascend.mem<ub>>
// CHECK-DAG: %[[BYTES:.*]] = memref.alloc() : memref<1024xi8, #ascend.mem<ub>>
// CHECK-DAG: %[[BITS:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<2048xi8, #ascend.mem<ub>> to memref<16x64xi16, #ascend.mem<ub>>
// CHECK-DAG: %[[HALF:.*]] = memref.view %[[RAW]][%{{.*}}][] : memref<2048xi8, #ascend.mem<ub>> to memref<16x64xf16, #ascend.mem<ub>>
// CHECK-DAG: %[[COPY:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<1024xi8, #ascend.mem<ub>> to memref<16x64xf8E5M2, #ascend.mem<ub>>
// CHECK-DAG: %[[SIGNED:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<1024xi8, #ascend.mem<ub>> to memref<16x64xi8, #ascend.mem<ub>>
// CHECK: ascend.copy %[[Q]][%{{.*}}, %{{.*}}], %[[COPY]][%{{.*}}, %{{.*}}] sizes [16, 64]
// CHECK: ascend.vcast %[[F:.*]], %[[SIGNED]] : memref<16x64xf16, #ascend.mem<ub>>, memref<16x64xi8, #ascend.mem<ub>>
// CHECK: ascend.vcast %[[I:.*]], %[[F]] round trunc
// CHECK: ascend.vbins muls %[[BITS]], %[[I]], %{{.*}} : memref<16x64xi16, #ascend.mem<ub>>, i16
// CHECK: ascend.copy %[[HALF]][%{{.*}}, %{{.*}}], %[[H]][%{{.*}}, %{{.*}}] sizes [16, 64]
// CHECK-NOT: scf.for
// CHECK-NOT: tilec.byte_scratch
func.func @e5m2_to_f16(%q: memref<16x64xf8E5M2, #tile.scope<ub>>, %h: memref<16x64xf16, #tile.scope<ub>>) {
  %c256 = arith.constant 256 : i16
  tile.parallel (%i, %j) in (16, 64) {
    %v = memref.load %q[%i, %j] : memref<16x64xf8E5M2, #tile.scope<ub>>
    %b = arith.bitcast %v : f8E5M2 to i8
    %s = arith.sitofp %b : i8 to f16
    %n = arith.fptosi %s : f16 to i16
    %t = arith.muli %n, %c256 : i16
    %f = arith.bitcast %t : i16 to f16
    memref.store %f, %h[%i, %j] : memref<16x64xf16, #tile.scope<ub>>
  }
  return
}

// -----

// A second region takes the byte buffers of the first again (they are scratch,
// free once the region that took them is lowered).

// CHECK-LABEL: func.func @reused
// CHECK-COUNT-1: memref.alloc() : memref<512xi8, #ascend.mem<ub>>
// CHECK-NOT: memref.alloc() : memref<512xi8
func.func @reused(%x: memref<256xi16, #tile.scope<ub>>, %y: memref<256xf16, #tile.scope<ub>>, %z: memref<256xf16, #tile.scope<ub>>) {
  %c2 = arith.constant 2 : i16
  tile.parallel (%i) in (256) {
    %v = memref.load %x[%i] : memref<256xi16, #tile.scope<ub>>
    %t = arith.muli %v, %c2 : i16
    %f = arith.bitcast %t : i16 to f16
    memref.store %f, %y[%i] : memref<256xf16, #tile.scope<ub>>
  }
  tile.parallel (%i) in (256) {
    %v = memref.load %x[%i] : memref<256xi16, #tile.scope<ub>>
    %t = arith.addi %v, %c2 : i16
    %f = arith.bitcast %t : i16 to f16
    memref.store %f, %z[%i] : memref<256xf16, #tile.scope<ub>>
  }
  return
}
