// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles --verify-diagnostics

// An element-wise epilogue on the accumulator (other than a ReLU, which the
// fixpipe does) runs on a vector core.
func.func @scale_epilogue(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %two = arith.constant 2.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      // expected-error @+1 {{'memref.load' works on a tile.gemm accumulator on the vector cores: the kernel needs both cube and vector cores (mixed kernels are not supported yet)}}
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.mulf %v, %two : f32
      memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

// A UB tile next to a gemm: the kernel would need both kinds of core.
func.func @vector_tile_beside_a_gemm(%a: memref<32x32xf16>, %c: memref<32x32xf32>, %x: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %t = tile.alloc : memref<64xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
    // expected-error @+1 {{'tile.copy' needs a vector core (its tile lives in ub) but the kernel also runs tile.gemm on the cube: it needs both cube and vector cores (mixed kernels are not supported yet)}}
    tile.copy %x[%c0], %t[%c0] : memref<64xf32>, memref<64xf32, #tile.scope<fragment>>
    tile.copy %t[%c0], %x[%c0] : memref<64xf32, #tile.scope<fragment>>, memref<64xf32>
  }
  return
}

// -----

// An epilogue tile that rounds through a third type is not folded (that
// would round once instead of twice): it stays in UB, next to the cube.
func.func @double_rounding_epilogue(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    %s = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    // expected-error @+1 {{'tile.copy' needs a vector core (its tile lives in ub) but the kernel also runs tile.gemm on the cube: it needs both cube and vector cores (mixed kernels are not supported yet)}}
    tile.copy %acc[%c0, %c0], %s[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf16, #tile.scope<shared>>
    tile.copy %s[%c0, %c0], %c[%c0, %c0] : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32>
  }
  return
}

// -----

func.func @relu_before_another_gemm(%a: memref<32x32xf16>, %c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %l = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %a[%c0, %c0], %l[%c0, %c0] : memref<32x32xf16>, memref<32x32xf16, #tile.scope<shared>>
    tile.gemm %l, %l, %acc clear_accum : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (32, 32) {
      // expected-error @+1 {{'memref.load' works on a tile.gemm accumulator on the vector cores (a ReLU is done by the fixpipe only right before the copies out): the kernel needs both cube and vector cores (mixed kernels are not supported yet)}}
      %v = memref.load %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
      %r = arith.maximumf %v, %zero : f32
      memref.store %r, %acc[%i, %j] : memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.gemm %l, %l, %acc : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    tile.copy %acc[%c0, %c0], %c[%c0, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32>
  }
  return
}

// -----

func.func @operand_and_accumulator(%c: memref<32x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %t = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    // expected-error @+1 {{a tile used as both an operand and the accumulator of tile.gemm has no place on the cube}}
    tile.gemm %t, %t, %t : memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<fragment>>, memref<32x32xf32, #tile.scope<fragment>>
  }
  return
}
