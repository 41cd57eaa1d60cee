// RUN: tile-opt %s --tile-cuda-expand-fp8-conversions | filecheck %s

// Conversions from and to 8-bit floats, and their constants, are integer code on the
// byte: the f8 is bitcast to i8 and decoded to f32 (f16 from that); f32 is encoded to i8
// and bitcast to the f8; 1.5 in e5m2 is the byte 0x3E (62). Other f8 values stay.
// CHECK-LABEL: func.func @convert
// CHECK-NOT: arith.extf %{{.*}} : f8
// CHECK: %[[BYTE:.*]] = arith.bitcast %{{.*}} : f8E4M3FN to i8
// CHECK: arith.extui %[[BYTE]] : i8 to i32
// CHECK: %[[F16:.*]] = arith.truncf %{{.*}} : f32 to f16
// CHECK-NEXT: memref.store %[[F16]], %{{.*}} : memref<4xf16>
// CHECK: %[[CODE:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK: %[[F8:.*]] = arith.bitcast %[[CODE]] : i8 to f8E4M3FN
// CHECK: memref.store %[[F8]], %{{.*}} : memref<4xf8E4M3FN>
// CHECK: %[[C:.*]] = arith.constant 62 : i8
// CHECK: %[[ONE_HALF:.*]] = arith.bitcast %[[C]] : i8 to f8E5M2
// CHECK: memref.store %[[ONE_HALF]], %{{.*}} : memref<4xf8E5M2>
// CHECK-NOT: arith.truncf %{{.*}} to f8
func.func @convert(%a: memref<4xf8E4M3FN>, %h: memref<4xf16>, %e: memref<4xf8E5M2>, %x: f32) {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<4xf8E4M3FN>
  %w = arith.extf %v : f8E4M3FN to f16
  memref.store %w, %h[%c0] : memref<4xf16>
  %y = arith.truncf %x : f32 to f8E4M3FN
  memref.store %y, %a[%c0] : memref<4xf8E4M3FN>
  %k = arith.constant 1.5 : f8E5M2
  memref.store %k, %e[%c0] : memref<4xf8E5M2>
  return
}
