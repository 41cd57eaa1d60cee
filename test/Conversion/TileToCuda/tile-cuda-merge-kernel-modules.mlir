// RUN: tile-opt %s --tile-cuda-merge-kernel-modules | filecheck %s

// The kernels of both outlined modules end up in the first one, under
// unique names (the second module's name for a kernel whose name is taken),
// and each launch points at its kernel there.
// CHECK-LABEL: func.func @two
// CHECK: gpu.launch_func @two_kernel::@two_kernel blocks
// CHECK: gpu.launch_func @two_kernel::@two_kernel_0 blocks
// CHECK: gpu.module @two_kernel {
// CHECK: gpu.func @two_kernel(%{{.*}}: memref<64xf32>) kernel
// CHECK: gpu.func @two_kernel_0(%{{.*}}: memref<64xf32>) kernel
// CHECK-NOT: gpu.module
module attributes {gpu.container_module} {
  func.func @two(%X: memref<64xf32>, %n: index) {
    %c1 = arith.constant 1 : index
    %c32 = arith.constant 32 : index
    gpu.launch_func @two_kernel::@two_kernel blocks in (%n, %c1, %c1) threads in (%c32, %c1, %c1) args(%X : memref<64xf32>)
    gpu.launch_func @two_kernel_0::@two_kernel blocks in (%n, %c1, %c1) threads in (%c32, %c1, %c1) args(%X : memref<64xf32>)
    return
  }
  gpu.module @two_kernel {
    gpu.func @two_kernel(%X: memref<64xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @two_kernel_0 {
    gpu.func @two_kernel(%X: memref<64xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %X[%c0] : memref<64xf32>
      memref.store %v, %X[%c0] : memref<64xf32>
      gpu.return
    }
  }
}
