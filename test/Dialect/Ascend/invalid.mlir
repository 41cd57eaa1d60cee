// RUN: tile-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{expected 'ascend.kernel' to be a #ascend.core attribute but got 1 : i32}}
func.func @kernel_attr_not_core() attributes {ascend.kernel = 1 : i32} {
  return
}

// -----

func.func @kernel_attr_not_on_function() {
  // expected-error @+1 {{expected 'ascend.kernel' on a function but got it on 'arith.constant'}}
  %c0 = arith.constant {ascend.kernel = #ascend.core<aiv>} 0 : index
  return
}

// -----

// expected-error @+1 {{expected kernel argument #1 in gm but got ub}}
func.func @kernel_argument_in_ub(%x: memref<?xf32, #ascend.mem<gm>>, %y: memref<16xf32, #ascend.mem<ub>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  return
}

// -----

// expected-error @+1 {{expected kernel argument #0 in gm but got the default memory space}}
func.func @kernel_argument_without_space(%x: memref<?xf32>) attributes {ascend.kernel = #ascend.core<aiv>} {
  return
}

// -----

// expected-error @+1 {{expected a kernel to return nothing but got 1 results}}
func.func @kernel_with_result() -> index attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  return %c0 : index
}

// -----

func.func @unknown_pipe_keyword() {
  // expected-error @+1 {{expected one of s, v, m, mte1, mte2, mte3, fix, all but got 'mte4'}}
  ascend.set_flag mte4 -> v, 0
  return
}

// -----

func.func @wrong_type_count(%a: memref<16xf32, #ascend.mem<ub>>) {
  // expected-error @+1 {{expected 1 or 3 types but got 2}}
  ascend.vbin add %a, %a, %a : memref<16xf32, #ascend.mem<ub>>, memref<16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @core_mix() attributes {ascend.kernel = #ascend.core<mix>} {
  // expected-error @+1 {{expected aic or aiv but got mix}}
  ascend.core mix {
  }
  return
}

// -----

func.func @core_nested() attributes {ascend.kernel = #ascend.core<mix>} {
  ascend.core aic {
    // expected-error @+1 {{expected no enclosing 'ascend.core' region but got 'ascend.core aic'}}
    ascend.core aiv {
    }
  }
  return
}

// -----

func.func @core_in_aiv_kernel() attributes {ascend.kernel = #ascend.core<aiv>} {
  // expected-error @+1 {{expected an enclosing mix kernel but got an aiv kernel}}
  ascend.core aiv {
  }
  return
}

// -----

func.func @core_outside_kernel() {
  // expected-error @+1 {{expected an enclosing mix kernel but got a function that is not a kernel}}
  ascend.core aic {
  }
  return
}

// -----

func.func @cube_op_in_aiv_kernel() attributes {ascend.kernel = #ascend.core<aiv>} {
  // expected-error @+1 {{expected aic code (pipe m is on the aic) but got an aiv kernel}}
  ascend.set_flag mte2 -> m, 0
  return
}

// -----

func.func @vector_op_in_aic_region() attributes {ascend.kernel = #ascend.core<mix>} {
  %x = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  ascend.core aic {
    // expected-error @+1 {{expected aiv code (pipe v is on the aiv) but got an 'ascend.core aic' region}}
    ascend.vunary abs %x, %x : memref<16xf32, #ascend.mem<ub>>
  }
  return
}

// -----

func.func @cube_op_outside_core_region() attributes {ascend.kernel = #ascend.core<mix>} {
  %acc = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %out = memref.alloc() : memref<16x16xf32, #ascend.mem<ub>>
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected aic code (pipe fix is on the aic) but got mix kernel code outside an 'ascend.core' region}}
  ascend.fixpipe %acc, %out[%c0, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<16x16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @ub_copy_in_aic_region(%x: memref<?xf32, #ascend.mem<gm>>) attributes {ascend.kernel = #ascend.core<mix>} {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  ascend.core aic {
    // expected-error @+1 {{expected aiv code (ub is on the aiv) but got an 'ascend.core aic' region}}
    ascend.copy %x[%c0], %ub[%c0] sizes [16] : memref<?xf32, #ascend.mem<gm>>, memref<16xf32, #ascend.mem<ub>>
  }
  return
}

// -----

func.func @ub_buffer_in_aic_kernel() attributes {ascend.kernel = #ascend.core<aic>} {
  // expected-error @+1 {{'memref.alloc' op expected aiv code (ub is on the aiv) but got an aic kernel}}
  %ub = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @l1_buffer_in_aiv_region() attributes {ascend.kernel = #ascend.core<mix>} {
  ascend.core aiv {
    // expected-error @+1 {{'memref.alloc' op expected aic code (l1 is on the aic) but got an 'ascend.core aiv' region}}
    %l1 = memref.alloc() : memref<16xf32, #ascend.mem<l1>>
  }
  return
}

// -----

func.func @copy_src_without_space(%x: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected src in an #ascend.mem memory space but got the default memory space}}
  ascend.copy %x[%c0], %ub[%c0] sizes [16] : memref<?xf32>, memref<16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_dst_in_other_space(%x: memref<?xf32, #ascend.mem<gm>>, %y: memref<16xf32, 3>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected dst in an #ascend.mem memory space but got 3 : i64}}
  ascend.copy %x[%c0], %y[%c0] sizes [16] : memref<?xf32, #ascend.mem<gm>>, memref<16xf32, 3>
  return
}

// -----

func.func @copy_gm_to_l0c(%x: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %l0c = memref.alloc() : memref<16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected a copy path gm -> ub, ub -> gm, gm -> l1, ub -> ub, l1 -> ub or ub -> l1 but got gm -> l0c}}
  ascend.copy %x[%c0, %c0], %l0c[%c0, %c0] sizes [16, 16]
      : memref<?x?xf32, #ascend.mem<gm>>, memref<16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

func.func @copy_element_types(%x: memref<?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16xf16, #ascend.mem<ub>>
  // expected-error @+1 {{expected dst of element type f32 (the element type of src) but got f16}}
  ascend.copy %x[%c0], %ub[%c0] sizes [16] : memref<?xf32, #ascend.mem<gm>>, memref<16xf16, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_sizes_rank(%x: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16x16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected sizes with one entry per dimension of src (2) but got [16]}}
  ascend.copy %x[%c0, %c0], %ub[%c0, %c0] sizes [16]
      : memref<?x?xf32, #ascend.mem<gm>>, memref<16x16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_sizes_positive(%x: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16x16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected positive sizes but got [0, 16]}}
  ascend.copy %x[%c0, %c0], %ub[%c0, %c0] sizes [0, 16]
      : memref<?x?xf32, #ascend.mem<gm>>, memref<16x16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_dst_rank(%x: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected dst of rank 2 but got 1}}
  ascend.copy %x[%c0, %c0], %ub[%c0] sizes [16, 16]
      : memref<?x?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_src_offsets(%x: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16x16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected 2 src offsets (one per dimension) but got 1}}
  ascend.copy %x[%c0], %ub[%c0, %c0] sizes [16, 16]
      : memref<?x?xf32, #ascend.mem<gm>>, memref<16x16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_dst_offsets(%x: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16x16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected 2 dst offsets (one per dimension) but got 3}}
  ascend.copy %x[%c0, %c0], %ub[%c0, %c0, %c0] sizes [16, 16]
      : memref<?x?xf32, #ascend.mem<gm>>, memref<16x16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_region_too_large(%x: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16x64xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected dimension 1 of dst to hold at least 128 elements but got 64}}
  ascend.copy %x[%c0, %c0], %ub[%c0, %c0] sizes [16, 128]
      : memref<?x?xf32, #ascend.mem<gm>>, memref<16x64xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_region_past_the_end(%x: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %ub = memref.alloc() : memref<16x64xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected elements [8, 24) of dimension 0 of src to lie in [0, 16) but they do not}}
  ascend.copy %ub[%c8, %c0], %x[%c0, %c0] sizes [16, 64]
      : memref<16x64xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// -----

func.func @nd2nz_src_space() {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<64x32xf16, #ascend.mem<ub>>
  %l1 = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  // expected-error @+1 {{expected src in gm but got ub}}
  ascend.copy_nd2nz %ub[%c0, %c0], %l1 sizes [64, 32]
      : memref<64x32xf16, #ascend.mem<ub>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
  return
}

// -----

func.func @nd2nz_dst_space(%a: memref<?x?xf16, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %l0a = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l0a>>
  // expected-error @+1 {{expected dst in l1 but got l0a}}
  ascend.copy_nd2nz %a[%c0, %c0], %l0a sizes [64, 32]
      : memref<?x?xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l0a>>
  return
}

// -----

func.func @nd2nz_row_of_a_transpose(%a: memref<?x?xf32, #ascend.mem<gm>>, %r: index) {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<1x2x16x8xf32, #ascend.mem<l1>>
  // expected-error @+1 {{expected dst_row only with the Nz layout (no transpose, no zz)}}
  ascend.copy_nd2nz %a[%c0, %c0], %l1[%r] sizes [8, 32] {transpose}
      : memref<?x?xf32, #ascend.mem<gm>>, memref<1x2x16x8xf32, #ascend.mem<l1>>
  return
}

// -----

func.func @nd2nz_src_rank(%a: memref<?xf16, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  // expected-error @+1 {{expected src of rank 2 but got 1}}
  ascend.copy_nd2nz %a[%c0], %l1 sizes [64, 32]
      : memref<?xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
  return
}

// -----

func.func @nd2nz_sizes(%a: memref<?x?xf16, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  // expected-error @+1 {{expected sizes [rows, cols] but got [64]}}
  ascend.copy_nd2nz %a[%c0, %c0], %l1 sizes [64]
      : memref<?x?xf16, #ascend.mem<gm>>, memref<2x4x16x16xf16, #ascend.mem<l1>>
  return
}

// -----

func.func @nd2nz_element_width(%a: memref<?x?xf64, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<16x4x16x4xf64, #ascend.mem<l1>>
  // expected-error @+1 {{expected dst element type of 8, 16 or 32 bits (a fractal layout) but got f64}}
  ascend.copy_nd2nz %a[%c0, %c0], %l1 sizes [64, 64]
      : memref<?x?xf64, #ascend.mem<gm>>, memref<16x4x16x4xf64, #ascend.mem<l1>>
  return
}

// -----

// {transpose}: dst is the Nz of the 32 x 64 region's 64 x 32 transpose (4x4x16x8).
func.func @copy_nd2nz_transpose_shape(%a: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<8x2x16x8xf32, #ascend.mem<l1>>
  // expected-error @+1 {{expected dst shaped at least 4x4x16x8 (Nz of 64x32 f32) but got 8x2x16x8}}
  ascend.copy_nd2nz %a[%c0, %c0], %l1 sizes [32, 64] {transpose}
      : memref<?x?xf32, #ascend.mem<gm>>, memref<8x2x16x8xf32, #ascend.mem<l1>>
  return
}

// -----

func.func @copy_nd2nz_zz_shape(%a: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<8x2x16x8xf32, #ascend.mem<l1>>
  // expected-error @+1 {{expected dst shaped at least 2x8x16x8 (Zz of 32x64 f32) but got 8x2x16x8}}
  ascend.copy_nd2nz %a[%c0, %c0], %l1 sizes [32, 64] {zz}
      : memref<?x?xf32, #ascend.mem<gm>>, memref<8x2x16x8xf32, #ascend.mem<l1>>
  return
}

// -----

func.func @copy_nd2nz_two_layouts(%a: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<2x8x16x8xf32, #ascend.mem<l1>>
  // expected-error @+1 {{expected at most one of transpose (Nz of the transpose) and zz}}
  ascend.copy_nd2nz %a[%c0, %c0], %l1 sizes [32, 64] {transpose, zz}
      : memref<?x?xf32, #ascend.mem<gm>>, memref<2x8x16x8xf32, #ascend.mem<l1>>
  return
}

// -----

// {zz}: src holds B (32 x 48) in Zz, 2x6x16x8.
func.func @load_l0b_zz_shape() {
  %l1 = memref.alloc() : memref<6x2x16x8xf32, #ascend.mem<l1>>
  %l0b = memref.alloc() : memref<4x3x16x8xf32, #ascend.mem<l0b>>
  // expected-error @+1 {{expected src shaped 2x6x16x8 (Zz of 32x48 f32) but got 6x2x16x8}}
  ascend.load_l0b %l1, %l0b {zz} sizes [32, 48]
      : memref<6x2x16x8xf32, #ascend.mem<l1>>, memref<4x3x16x8xf32, #ascend.mem<l0b>>
  return
}

// -----

func.func @nd2nz_dst_shape(%a: memref<?x?xf16, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l1>>
  // expected-error @+1 {{expected dst shaped at least 2x4x16x16 (Nz of 64x32 f16) but got 4x2x16x16}}
  ascend.copy_nd2nz %a[%c0, %c0], %l1 sizes [64, 32]
      : memref<?x?xf16, #ascend.mem<gm>>, memref<4x2x16x16xf16, #ascend.mem<l1>>
  return
}

// -----

func.func @load_l0a_src_space() {
  %ub = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<ub>>
  %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  // expected-error @+1 {{expected src in l1 but got ub}}
  ascend.load_l0a %ub, %l0a sizes [64, 32]
      : memref<2x4x16x16xf16, #ascend.mem<ub>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
  return
}

// -----

func.func @load_l0a_dst_space() {
  %l1 = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  %l0b = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0b>>
  // expected-error @+1 {{expected dst in l0a but got l0b}}
  ascend.load_l0a %l1, %l0b sizes [64, 32]
      : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0b>>
  return
}

// -----

func.func @load_l0a_sizes() {
  %l1 = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  // expected-error @+1 {{expected sizes [M, K] but got [64, 32, 16]}}
  ascend.load_l0a %l1, %l0a sizes [64, 32, 16]
      : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
  return
}

// -----

func.func @load_l0a_element_types() {
  %l1 = memref.alloc() : memref<2x4x16x16xbf16, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  // expected-error @+1 {{expected dst of element type bf16 (the element type of src) but got f16}}
  ascend.load_l0a %l1, %l0a sizes [64, 32]
      : memref<2x4x16x16xbf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
  return
}

// -----

func.func @load_l0a_src_shape() {
  %l1 = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  // expected-error @+1 {{expected src shaped 2x4x16x16 (Nz of 64x32 f16) but got 4x2x16x16}}
  ascend.load_l0a %l1, %l0a sizes [64, 32]
      : memref<4x2x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
  return
}

// -----

func.func @load_l0a_transposed_src_shape() {
  %l1 = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
  // expected-error @+1 {{expected src shaped 4x2x16x16 (Nz of 32x64 f16) but got 2x4x16x16}}
  ascend.load_l0a %l1, %l0a {transpose} sizes [64, 32]
      : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
  return
}

// -----

func.func @load_l0a_dst_shape() {
  %l1 = memref.alloc() : memref<1x4x16x32xi8, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<4x2x16x16xi8, #ascend.mem<l0a>>
  // expected-error @+1 {{expected dst shaped 4x1x16x32 (Zz of 64x32 i8) but got 4x2x16x16}}
  ascend.load_l0a %l1, %l0a sizes [64, 32]
      : memref<1x4x16x32xi8, #ascend.mem<l1>>, memref<4x2x16x16xi8, #ascend.mem<l0a>>
  return
}

// -----

func.func @load_l0b_dst_space() {
  %l1 = memref.alloc() : memref<3x2x16x16xf16, #ascend.mem<l1>>
  %l0a = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l0a>>
  // expected-error @+1 {{expected dst in l0b but got l0a}}
  ascend.load_l0b %l1, %l0a sizes [32, 48]
      : memref<3x2x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0a>>
  return
}

// -----

func.func @load_l0b_dst_shape() {
  %l1 = memref.alloc() : memref<3x2x16x16xf16, #ascend.mem<l1>>
  %l0b = memref.alloc() : memref<3x2x16x16xf16, #ascend.mem<l0b>>
  // expected-error @+1 {{expected dst shaped 2x3x16x16 (Zn of 32x48 f16) but got 3x2x16x16}}
  ascend.load_l0b %l1, %l0b sizes [32, 48]
      : memref<3x2x16x16xf16, #ascend.mem<l1>>, memref<3x2x16x16xf16, #ascend.mem<l0b>>
  return
}

// -----

func.func @load_l0b_transposed_src_shape() {
  %l1 = memref.alloc() : memref<3x2x16x16xf16, #ascend.mem<l1>>
  %l0b = memref.alloc() : memref<2x3x16x16xf16, #ascend.mem<l0b>>
  // expected-error @+1 {{expected src shaped 2x3x16x16 (Nz of 48x32 f16) but got 3x2x16x16}}
  ascend.load_l0b %l1, %l0b {transpose} sizes [32, 48]
      : memref<3x2x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0b>>
  return
}

// -----

func.func @mmad_a_space() {
  %a = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l1>>
  %b = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected a in l0a but got l1}}
  ascend.mmad %a, %b, %c sizes [16, 16, 16]
      : memref<1x1x16x16xf16, #ascend.mem<l1>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

func.func @mmad_b_space() {
  %a = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0a>>
  %c = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected b in l0b but got l0a}}
  ascend.mmad %a, %b, %c sizes [16, 16, 16]
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0a>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

func.func @mmad_c_space() {
  %a = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected c in l0c but got ub}}
  ascend.mmad %a, %b, %c sizes [16, 16, 16]
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @mmad_sizes() {
  %a = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected sizes [M, N, K] but got [16, 16]}}
  ascend.mmad %a, %b, %c sizes [16, 16]
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

func.func @mmad_f16_accumulator() {
  %a = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0c>>
  // expected-error @+1 {{expected element types (a, b) -> c among (f16, f16) -> f32, (bf16, bf16) -> f32, (f32, f32) -> f32, (i8, i8) -> i32, (f8E4M3FN, f8E4M3FN) -> f32, (f8E5M2, f8E5M2) -> f32 but got (f16, f16) -> f16}}
  ascend.mmad %a, %b, %c sizes [16, 16, 16]
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf16, #ascend.mem<l0c>>
  return
}

// -----

func.func @mmad_mixed_operands() {
  %a = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x1x16x16xbf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{but got (f16, bf16) -> f32}}
  ascend.mmad %a, %b, %c sizes [16, 16, 16]
      : memref<1x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xbf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

func.func @mmad_i8_to_f32() {
  %a = memref.alloc() : memref<1x1x16x32xi8, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x1x16x32xi8, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{but got (i8, i8) -> f32}}
  ascend.mmad %a, %b, %c sizes [16, 16, 32]
      : memref<1x1x16x32xi8, #ascend.mem<l0a>>, memref<1x1x16x32xi8, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

func.func @mmad_a_shape() {
  %a = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<2x1x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected a shaped 1x2x16x16 (Zz of 16x32 f16) but got 2x2x16x16}}
  ascend.mmad %a, %b, %c sizes [16, 16, 32]
      : memref<2x2x16x16xf16, #ascend.mem<l0a>>, memref<2x1x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

func.func @mmad_b_shape() {
  %a = memref.alloc() : memref<1x2x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x2x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected b shaped 2x1x16x16 (Zn of 32x16 f16) but got 1x2x16x16}}
  ascend.mmad %a, %b, %c sizes [16, 16, 32]
      : memref<1x2x16x16xf16, #ascend.mem<l0a>>, memref<1x2x16x16xf16, #ascend.mem<l0b>>,
        memref<1x1x16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

func.func @mmad_c_shape() {
  %a = memref.alloc() : memref<2x1x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<2x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected c shaped 1x2x16x16 (Nz of 32x16 f32) but got 2x1x16x16}}
  ascend.mmad %a, %b, %c sizes [32, 16, 16]
      : memref<2x1x16x16xf16, #ascend.mem<l0a>>, memref<1x1x16x16xf16, #ascend.mem<l0b>>,
        memref<2x1x16x16xf32, #ascend.mem<l0c>>
  return
}

// -----

func.func @fixpipe_src_space(%out: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected src in l0c but got ub}}
  ascend.fixpipe %ub, %out[%c0, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<ub>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// -----

func.func @fixpipe_dst_space() {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  %l0a = memref.alloc() : memref<16x16xf32, #ascend.mem<l0a>>
  // expected-error @+1 {{expected dst in gm, l1 or ub but got l0a}}
  ascend.fixpipe %acc, %l0a[%c0, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<16x16xf32, #ascend.mem<l0a>>
  return
}

// -----

func.func @fixpipe_sizes(%out: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected sizes [M, N] but got [16]}}
  ascend.fixpipe %acc, %out[%c0, %c0] sizes [16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// -----

func.func @fixpipe_offsets(%out: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected 2 dst offsets (one per dimension) but got 1}}
  ascend.fixpipe %acc, %out[%c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// -----

func.func @fixpipe_f32_to_i8(%out: memref<?x?xi8, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected dst element type f16, bf16 or f32 for an f32 accumulator but got i8}}
  ascend.fixpipe %acc, %out[%c0, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<?x?xi8, #ascend.mem<gm>>
  return
}

// -----

func.func @fixpipe_i32_to_f32(%out: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<1x1x16x16xi32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected dst element type i32 or f16 for an i32 accumulator but got f32}}
  ascend.fixpipe %acc, %out[%c0, %c0] sizes [16, 16]
      : memref<1x1x16x16xi32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// -----

func.func @fixpipe_f16_accumulator(%out: memref<?x?xf16, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<1x1x16x16xf16, #ascend.mem<l0c>>
  // expected-error @+1 {{expected src element type f32 or i32 but got f16}}
  ascend.fixpipe %acc, %out[%c0, %c0] sizes [16, 16]
      : memref<1x1x16x16xf16, #ascend.mem<l0c>>, memref<?x?xf16, #ascend.mem<gm>>
  return
}

// -----

func.func @fixpipe_src_shape(%out: memref<?x?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<2x4x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected src shaped 4x2x16x16 (Nz of 32x64 f32) but got 2x4x16x16}}
  ascend.fixpipe %acc, %out[%c0, %c0] sizes [32, 64]
      : memref<2x4x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// -----

func.func @fixpipe_gm_rank(%out: memref<?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<1x1x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected dst of rank 2 but got 1}}
  ascend.fixpipe %acc, %out[%c0, %c0] sizes [16, 16]
      : memref<1x1x16x16xf32, #ascend.mem<l0c>>, memref<?xf32, #ascend.mem<gm>>
  return
}

// -----

func.func @fixpipe_ub_too_small() {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<1x2x16x16xf32, #ascend.mem<l0c>>
  %ub = memref.alloc() : memref<16x16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected dimension 0 of dst to hold at least 32 elements but got 16}}
  ascend.fixpipe %acc, %ub[%c0, %c0] sizes [32, 16]
      : memref<1x2x16x16xf32, #ascend.mem<l0c>>, memref<16x16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @fixpipe_l1_layout() {
  %c0 = arith.constant 0 : index
  %acc = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
  %l1 = memref.alloc() : memref<1x2x16x16xf16, #ascend.mem<l1>>
  // expected-error @+1 {{expected dst shaped C1xR1x16x16 with C1 >= 2 and R1 >= 2 (Nz of 32x32 f16 or larger) but got 1x2x16x16}}
  ascend.fixpipe %acc, %l1[%c0, %c0] sizes [32, 32]
      : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<1x2x16x16xf16, #ascend.mem<l1>>
  return
}

// -----

func.func @vector_operand_space(%x: memref<16xf32, #ascend.mem<gm>>) {
  %y = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected a in ub but got gm}}
  ascend.vbin add %y, %x, %y
      : memref<16xf32, #ascend.mem<ub>>, memref<16xf32, #ascend.mem<gm>>, memref<16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @vector_shape_mismatch() {
  %x = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %y = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected b of shape 256 (the shape of dst) but got 128}}
  ascend.vbin mul %x, %x, %y
      : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @vector_element_type_mismatch() {
  %x = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  %h = memref.alloc() : memref<16xf16, #ascend.mem<ub>>
  // expected-error @+1 {{expected src of element type f32 (the element type of dst) but got f16}}
  ascend.vunary abs %x, %h : memref<16xf32, #ascend.mem<ub>>, memref<16xf16, #ascend.mem<ub>>
  return
}

// -----

func.func @vbins_scalar_type(%s: f16) {
  %x = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected scalar of type f32 (the element type of dst) but got f16}}
  ascend.vbins adds %x, %x, %s : memref<16xf32, #ascend.mem<ub>>, f16
  return
}

// -----

func.func @vdup_dst_space(%s: f32, %x: memref<16xf32, #ascend.mem<gm>>) {
  // expected-error @+1 {{expected dst in ub but got gm}}
  ascend.vdup %x, %s : memref<16xf32, #ascend.mem<gm>>, f32
  return
}

// -----

func.func @vunary_exp_of_integers() {
  %x = memref.alloc() : memref<16xi32, #ascend.mem<ub>>
  // expected-error @+1 {{expected a float element type for exp but got i32}}
  ascend.vunary exp %x, %x : memref<16xi32, #ascend.mem<ub>>
  return
}

// -----

func.func @vcast_shape() {
  %x = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  %h = memref.alloc() : memref<32xf16, #ascend.mem<ub>>
  // expected-error @+1 {{expected src of shape 32 (the shape of dst) but got 16}}
  ascend.vcast %h, %x round rint : memref<32xf16, #ascend.mem<ub>>, memref<16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @unknown_round_mode() {
  %x = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  %h = memref.alloc() : memref<16xf16, #ascend.mem<ub>>
  // expected-error @+1 {{expected one of none, rint, floor, ceil, round, trunc but got 'nearest'}}
  ascend.vcast %h, %x round nearest : memref<16xf16, #ascend.mem<ub>>, memref<16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @vreduce_dst_shape() {
  %x = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
  %r = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected dst of shape 64 or 64x1 (src 64x128 without its last dimension) but got 128}}
  ascend.vreduce sum %r, %x : memref<128xf32, #ascend.mem<ub>>, memref<64x128xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @vreduce_1d_dst_shape() {
  %x = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  %r = memref.alloc() : memref<2xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected dst of shape 1 (src 128 without its last dimension) but got 2}}
  ascend.vreduce max %r, %x : memref<2xf32, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @vreduce_element_type() {
  %x = memref.alloc() : memref<128xf16, #ascend.mem<ub>>
  %r = memref.alloc() : memref<1xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected dst of element type f16 (the element type of src) but got f32}}
  ascend.vreduce sum %r, %x : memref<1xf32, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
  return
}

// -----

func.func @vbrcb_src_shape() {
  %x = memref.alloc() : memref<64x128xf32, #ascend.mem<ub>>
  %r = memref.alloc() : memref<32xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected src of shape 64 or 64x1 (dst 64x128 without its last dimension) but got 32}}
  ascend.vbrcb %x, %r : memref<64x128xf32, #ascend.mem<ub>>, memref<32xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @vcmp_mask_type() {
  %a = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  %m = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected mask element type i1 or i8 but got f32}}
  ascend.vcmp lt %m, %a, %a : memref<128xf32, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @vcmp_mask_shape() {
  %a = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  %m = memref.alloc() : memref<64xi1, #ascend.mem<ub>>
  // expected-error @+1 {{expected mask of shape 128 (the shape of a) but got 64}}
  ascend.vcmp lt %m, %a, %a : memref<64xi1, #ascend.mem<ub>>, memref<128xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @vsel_mask_shape() {
  %a = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  %m = memref.alloc() : memref<64xi1, #ascend.mem<ub>>
  // expected-error @+1 {{expected mask of shape 128 (the shape of dst) but got 64}}
  ascend.vsel %a, %m, %a, %a : memref<128xf32, #ascend.mem<ub>>, memref<64xi1, #ascend.mem<ub>>
  return
}

// -----

func.func @vsel_operand_type() {
  %a = memref.alloc() : memref<128xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<128xf16, #ascend.mem<ub>>
  %m = memref.alloc() : memref<128xi1, #ascend.mem<ub>>
  // expected-error @+1 {{expected b of element type f32 (the element type of dst) but got f16}}
  ascend.vsel %a, %m, %a, %b
      : memref<128xf32, #ascend.mem<ub>>, memref<128xi1, #ascend.mem<ub>>,
        memref<128xf32, #ascend.mem<ub>>, memref<128xf16, #ascend.mem<ub>>
  return
}

// -----

func.func @set_flag_event_out_of_range() {
  // expected-error @+1 {{expected event id in [0, 7] but got 8}}
  ascend.set_flag mte2 -> v, 8
  return
}

// -----

func.func @wait_flag_negative_event() {
  // expected-error @+1 {{expected event id in [0, 7] but got -1}}
  ascend.wait_flag mte2 -> v, -1
  return
}

// -----

func.func @set_flag_same_pipe() {
  // expected-error @+1 {{expected different src and dst pipes but got v -> v (order one pipe with ascend.pipe_barrier)}}
  ascend.set_flag v -> v, 0
  return
}

// -----

func.func @set_flag_src_all() {
  // expected-error @+1 {{expected src to be a single pipe but got all}}
  ascend.set_flag all -> v, 0
  return
}

// -----

func.func @wait_flag_dst_all() {
  // expected-error @+1 {{expected dst to be a single pipe but got all}}
  ascend.wait_flag mte3 -> all, 0
  return
}

// -----

func.func @set_flag_across_cores() {
  // expected-error @+1 {{expected src and dst pipes of one core but got fix on the aic and v on the aiv (synchronize cores with ascend.cross_core_set_flag)}}
  ascend.set_flag fix -> v, 0
  return
}

// -----

func.func @pipe_barrier_cube_pipe_in_aiv_kernel() attributes {ascend.kernel = #ascend.core<aiv>} {
  // expected-error @+1 {{expected aic code (pipe mte1 is on the aic) but got an aiv kernel}}
  ascend.pipe_barrier mte1
  return
}

// -----

func.func @cross_core_mode() {
  // expected-error @+1 {{expected mode 0, 1, 2 or 4 but got 3}}
  ascend.cross_core_set_flag mode 3, fix, 0
  return
}

// -----

func.func @cross_core_set_flag_id() {
  // expected-error @+1 {{expected flag id in [0, 10] but got 11}}
  ascend.cross_core_set_flag mode 2, fix, 11
  return
}

// -----

func.func @cross_core_set_flag_all() {
  // expected-error @+1 {{expected pipe to be a single pipe but got all}}
  ascend.cross_core_set_flag mode 2, all, 0
  return
}

// -----

func.func @cross_core_wait_flag_id() {
  // expected-error @+1 {{expected flag id in [0, 10] but got 16}}
  ascend.cross_core_wait_flag 16, mte2
  return
}

// -----

// Generic form can give a required operand no value; the verifier says so
// instead of reading past the operand list.
func.func @copy_segment_without_dst(%a: memref<4xf32, #ascend.mem<ub>>, %i: index) {
  // expected-error @+1 {{'ascend.copy' op operand group #2 expects exactly one operand but operandSegmentSizes gives 0}}
  "ascend.copy"(%a, %i) <{operandSegmentSizes = array<i32: 1, 1, 0, 0>, sizes = array<i64: 4>}> : (memref<4xf32, #ascend.mem<ub>>, index) -> ()
  return
}

// -----

func.func @copy_atomic_add_from_gm(%x: memref<?xf32, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected an atomic_add copy from ub to gm but got gm -> ub}}
  ascend.copy %x[%c0], %ub[%c0] sizes [16] atomic_add : memref<?xf32, #ascend.mem<gm>>, memref<16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_atomic_add_on_chip() {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<16xf32, #ascend.mem<ub>>
  // expected-error @+1 {{expected an atomic_add copy from ub to gm but got ub -> ub}}
  ascend.copy %a[%c0], %b[%c0] sizes [16] atomic_add : memref<16xf32, #ascend.mem<ub>>, memref<16xf32, #ascend.mem<ub>>
  return
}

// -----

func.func @copy_atomic_add_f64(%x: memref<?xf64, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16xf64, #ascend.mem<ub>>
  // expected-error @+1 {{expected an atomic_add element type f32, f16, bf16, i32, i16 or i8 but got f64}}
  ascend.copy %ub[%c0], %x[%c0] sizes [16] atomic_add : memref<16xf64, #ascend.mem<ub>>, memref<?xf64, #ascend.mem<gm>>
  return
}

// -----

func.func @copy_atomic_add_i64(%x: memref<?xi64, #ascend.mem<gm>>) {
  %c0 = arith.constant 0 : index
  %ub = memref.alloc() : memref<16xi64, #ascend.mem<ub>>
  // expected-error @+1 {{expected an atomic_add element type f32, f16, bf16, i32, i16 or i8 but got i64}}
  ascend.copy %ub[%c0], %x[%c0] sizes [16] atomic_add : memref<16xi64, #ascend.mem<ub>>, memref<?xi64, #ascend.mem<gm>>
  return
}

// -----

func.func @dual_dst_outside(%c0: index) attributes {ascend.kernel = #ascend.core<mix>} {
  %c17 = arith.constant 17 : index
  %ring = memref.alloc() : memref<32x32xf32, #ascend.mem<ub>>
  ascend.core aic {
    %acc = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
    // expected-error @+1 {{expected elements [17, 33) of dimension 0 of dst to lie in [0, 32) but they do not}}
    ascend.fixpipe %acc, %ring[%c17, %c0] sizes [32, 32] {dual_dst}
        : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<32x32xf32, #ascend.mem<ub>>
  }
  return
}

// -----

func.func @dual_dst_to_gm(%out: memref<?x?xf32, #ascend.mem<gm>>, %c0: index)
    attributes {ascend.kernel = #ascend.core<aic>} {
  %acc = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
  // expected-error @+1 {{expected dst in ub with dual_dst (it writes the UBs of both AIVs) but got gm}}
  ascend.fixpipe %acc, %out[%c0, %c0] sizes [32, 32] {dual_dst}
      : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<?x?xf32, #ascend.mem<gm>>
  return
}

// -----

func.func @dual_dst_odd_rows(%c0: index) attributes {ascend.kernel = #ascend.core<mix>} {
  %ring = memref.alloc() : memref<16x32xf32, #ascend.mem<ub>>
  ascend.core aic {
    %acc = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
    // expected-error @+1 {{expected an even M with dual_dst (M/2 rows to each AIV) but got 31}}
    ascend.fixpipe %acc, %ring[%c0, %c0] sizes [31, 32] {dual_dst}
        : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<16x32xf32, #ascend.mem<ub>>
  }
  return
}

// -----

func.func @dual_dst_cast(%c0: index) attributes {ascend.kernel = #ascend.core<mix>} {
  %ring = memref.alloc() : memref<16x32xf16, #ascend.mem<ub>>
  ascend.core aic {
    %acc = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
    // expected-error @+1 {{expected no cast and no relu with dual_dst (the dual destination bypasses the fixpipe's conversions)}}
    ascend.fixpipe %acc, %ring[%c0, %c0] sizes [32, 32] {dual_dst}
        : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<16x32xf16, #ascend.mem<ub>>
  }
  return
}
