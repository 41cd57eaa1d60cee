// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend=target=ascend:950 --verify-diagnostics | filecheck %s
// RUN: not tile-opt %s --convert-tile-to-ascend=target=ascend:910c 2>&1 | filecheck %s --check-prefix=BAD-PROFILE

// BAD-PROFILE: error: invalid value 'ascend:910c' for option 'target' of pass 'convert-tile-to-ascend': unknown ascend variant '910c'; variants: 910b, 950

// A vector-only kernel: GM arguments in #ascend.mem<gm>, UB buffers, an aiv
// kernel; function and argument attributes are kept.

// CHECK-LABEL: func.func @vector_kernel
// CHECK-SAME: %{{.*}}: memref<?xf32, #ascend.mem<gm>> {tile.name = "X"}
// CHECK-SAME: attributes {ascend.kernel = #ascend.core<aiv>, tile.entry}
// CHECK: memref.alloc() : memref<64xf32, #ascend.mem<ub>>
// CHECK: ascend.copy
// CHECK: ascend.vunary exp
// CHECK: ascend.copy
// CHECK-NOT: tile.
func.func @vector_kernel(%x: memref<?xf32> {tile.name = "X"}, %n: index) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %t = tile.alloc : memref<64xf32, #tile.scope<ub>>
    %i = arith.muli %bx, %c64 : index
    tile.copy %x[%i], %t[%c0] : memref<?xf32>, memref<64xf32, #tile.scope<ub>>
    tile.parallel (%j) in (64) {
      %v = memref.load %t[%j] : memref<64xf32, #tile.scope<ub>>
      %e = math.exp %v : f32
      memref.store %e, %t[%j] : memref<64xf32, #tile.scope<ub>>
    }
    tile.copy %t[%c0], %x[%i] : memref<64xf32, #tile.scope<ub>>, memref<?xf32>
  }
  return
}

// -----

// A function without a kernel is converted but not marked.

// CHECK-LABEL: func.func @helper
// CHECK-NOT: ascend.kernel
// CHECK: ascend.vdup
func.func @helper(%t: memref<8xf32, #tile.scope<ub>>, %v: f32) {
  tile.fill %t, %v : memref<8xf32, #tile.scope<ub>>, f32
  return
}

// -----

// expected-error @+1 {{the kernel needs both cube and vector cores (mixed kernels are not supported yet)}}
func.func @mixed(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %a = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<32xf32, #tile.scope<ub>>
  }
  return
}

// -----

func.func @no_lowering(%t: memref<32xf32, #tile.scope<ub>>, %v: f32, %i: index) {
  // expected-error @+1 {{no ascend lowering of 'tile.atomic_add' for ascend:950}}
  tile.atomic_add %v, %t[%i] : f32, memref<32xf32, #tile.scope<ub>>
  return
}
