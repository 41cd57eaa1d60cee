// RUN: tile-opt %s --tile-cuda-fast-math | filecheck %s
// RUN: tile-opt %s --tile-cuda-fast-math=everywhere=true | filecheck %s --check-prefix=ALL

// Only the math ops marked afn become approximate instructions: exp as
// exp2 of x * log2(e), log as lg2.approx * ln(2), tanh as llvm.tanh {afn}
// (tanh.approx), f16 through f32; ops outside a launch stay.
// CHECK-LABEL: func.func @kernel
// CHECK: math.exp %{{.*}} : f32
// CHECK: %[[S:.*]] = arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: math.exp2 %[[S]] : f32
// CHECK: %[[L:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"(%{{.*}}) {{.*}} : (f32) -> f32
// CHECK: arith.mulf %[[L]], %{{.*}} : f32
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK: %[[T:.*]] = llvm.call_intrinsic "llvm.tanh"(%[[W]]) {fastmathFlags = #llvm.fastmath<afn>} : (f32) -> f32
// CHECK: arith.truncf %[[T]] : f32 to f16
// CHECK: math.exp %{{.*}} fastmath<afn> : f32
// ALL-LABEL: func.func @kernel
// ALL-NOT: math.exp %{{.*}} : f32
// ALL: math.exp2
// ALL: math.exp2
// ALL: math.exp %{{.*}} fastmath<afn> : f32
func.func @kernel(%x: f32, %h: f16, %n: index) -> f32 {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %n, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %a = math.exp %x : f32
    %b = math.exp %a fastmath<afn> : f32
    %c = math.log %b fastmath<fast> : f32
    %d = math.tanh %h fastmath<afn> : f16
    gpu.terminator
  }
  %outside = math.exp %x fastmath<afn> : f32
  return %outside : f32
}
