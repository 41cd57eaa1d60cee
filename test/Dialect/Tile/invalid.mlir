// RUN: tile-opt %s -split-input-file -verify-diagnostics

func.func @kernel_too_many_grid_sizes(%n: index) {
  // expected-error @+1 {{expected 1 to 3 grid sizes but got 4}}
  tile.kernel blocks(%a, %b, %c, %d) in (%n, %n, %n, %n) threads = 128 {
  }
  return
}

// -----

func.func @kernel_no_grid_sizes() {
  // expected-error @+1 {{expected 1 to 3 grid sizes but got 0}}
  tile.kernel blocks() in () threads = 128 {
  }
  return
}

// -----

func.func @kernel_grid_sizes_mismatch(%n: index) {
  // expected-error @+1 {{expected 2 grid sizes (one per block index) but got 1}}
  tile.kernel blocks(%bx, %by) in (%n) threads = 128 {
  }
  return
}

// -----

func.func @kernel_nonpositive_threads(%n: index) {
  // expected-error @+1 {{attribute 'threads' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  tile.kernel blocks(%bx) in (%n) threads = 0 {
  }
  return
}

// -----

func.func @kernel_nested(%n: index) {
  // expected-note @+1 {{enclosing tile.kernel}}
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    // expected-error @+1 {{must not be nested inside another tile.kernel}}
    tile.kernel blocks(%by) in (%n) threads = 128 {
    }
  }
  return
}

// -----

func.func @kernel_block_arguments_mismatch(%n: index) {
  // expected-error @+1 {{expected 2 block arguments (one per grid size) but got 1}}
  "tile.kernel"(%n, %n) <{threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : (index, index) -> ()
  return
}

// -----

func.func @kernel_block_argument_type(%n: index) {
  // expected-error @+1 {{expected block argument #0 of type index but got 'i32'}}
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  ^bb0(%bx: i32):
    "tile.yield"() : () -> ()
  }) : (index) -> ()
  return
}

// -----

func.func @kernel_grid_size_type(%n: i32) {
  // expected-error @+1 {{operand #0 must be variadic of index, but got 'i32'}}
  "tile.kernel"(%n) <{threads = 128 : i64}> ({
  ^bb0(%bx: index):
    "tile.yield"() : () -> ()
  }) : (i32) -> ()
  return
}

// -----

func.func @parallel_no_extents() {
  // expected-error @+1 {{expected at least 1 extent but got 0}}
  tile.parallel () in () {
  }
  return
}

// -----

func.func @parallel_extents_mismatch() {
  // expected-error @+1 {{expected 2 extents (one per index) but got 1}}
  tile.parallel (%i, %j) in (64) {
  }
  return
}

// -----

func.func @parallel_nonpositive_extent() {
  // expected-error @+1 {{attribute 'extents' failed to satisfy constraint: i64 dense array attribute whose value is positive}}
  tile.parallel (%i, %j) in (64, 0) {
  }
  return
}

// -----

func.func @parallel_block_arguments_mismatch() {
  // expected-error @+1 {{expected 2 block arguments (one per extent) but got 1}}
  "tile.parallel"() <{extents = array<i64: 64, 128>}> ({
  ^bb0(%i: index):
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @pipelined_nonpositive_stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{attribute 'num_stages' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  tile.pipelined %k = %c0 to %n step %c1 num_stages = 0 {
  }
  return
}

// -----

func.func @pipelined_nonpositive_step(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{expected a positive step but got 0}}
  tile.pipelined %k = %c0 to %n step %c0 num_stages = 2 {
  }
  return
}

// -----

func.func @pipelined_block_arguments_mismatch(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{expected 1 block argument (the induction variable) but got 2}}
  "tile.pipelined"(%c0, %n, %c1) <{num_stages = 2 : i64}> ({
  ^bb0(%k: index, %l: index):
    "tile.yield"() : () -> ()
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @yield_outside_region_op() {
  // expected-error @+1 {{expects parent op to be one of 'tile.kernel, tile.parallel, tile.pipelined'}}
  tile.yield
}

// -----

func.func @alloc_global() {
  // expected-error @+1 {{expected an on-chip scope but got global}}
  %0 = tile.alloc : memref<64x64xf16>
  return
}

// -----

func.func @alloc_dynamic_shape() {
  // expected-error @+1 {{result #0 must be statically shaped memref of signless integer or index or floating-point values, but got 'memref<?x64xf16, #tile.scope<shared>>'}}
  %0 = tile.alloc : memref<?x64xf16, #tile.scope<shared>>
  return
}

// -----

func.func @alloc_foreign_memory_space() {
  // expected-error @+1 {{expected result memory space to be a #tile.scope but got 3 : i64}}
  %0 = tile.alloc : memref<64x64xf16, 3>
  return
}

// -----

// A tile with a zero extent holds no element; the verifiers reject it at
// every tile op, and any zero-extent reduce, whatever its scope.
func.func @alloc_zero_extent() {
  // expected-error @+1 {{expected a tile with non-zero extents but got 0x16}}
  %0 = tile.alloc : memref<0x16xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @copy_zero_extent_dst(%a: memref<4x16xf32>, %t: memref<0x16xf32, #tile.scope<fragment>>, %i: index) {
  // expected-error @+1 {{expected dst to be a tile with non-zero extents but got 0x16}}
  tile.copy %a[%i, %i], %t[%i, %i] : memref<4x16xf32>, memref<0x16xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @copy_zero_extent_src(%a: memref<4x16xf32>, %t: memref<16x0xf32, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected src to be a tile with non-zero extents but got 16x0}}
  tile.copy %t[%i, %i], %a[%i, %i] : memref<16x0xf32, #tile.scope<shared>>, memref<4x16xf32>
  return
}

// -----

func.func @atomic_add_zero_extent_src(%d: memref<?x?xf32>, %t: memref<0x64xf32, #tile.scope<fragment>>, %i: index) {
  // expected-error @+1 {{expected src to be a tile with non-zero extents but got 0x64}}
  tile.atomic_add %t, %d[%i, %i] : memref<0x64xf32, #tile.scope<fragment>>, memref<?x?xf32>
  return
}

// -----

func.func @atomic_add_zero_extent_dst(%d: memref<0xf32, #tile.scope<shared>>, %v: f32, %i: index) {
  // expected-error @+1 {{expected dst to be a tile with non-zero extents but got 0}}
  tile.atomic_add %v, %d[%i] : f32, memref<0xf32, #tile.scope<shared>>
  return
}

// -----

func.func @fill_zero_extent(%t: memref<64x0xf32, #tile.scope<fragment>>, %v: f32) {
  // expected-error @+1 {{expected dst to be a tile with non-zero extents but got 64x0}}
  tile.fill %t, %v : memref<64x0xf32, #tile.scope<fragment>>, f32
  return
}

// -----

func.func @clear_zero_extent(%t: memref<0x64xf32, #tile.scope<local>>) {
  // expected-error @+1 {{expected dst to be a tile with non-zero extents but got 0x64}}
  tile.clear %t : memref<0x64xf32, #tile.scope<local>>
  return
}

// -----

func.func @gemm_zero_extent(%a: memref<32x0xf16, #tile.scope<shared>>, %b: memref<0x32xf16, #tile.scope<shared>>, %c: memref<32x32xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected A to be a tile with non-zero extents but got 32x0}}
  tile.gemm %a, %b, %c : memref<32x0xf16, #tile.scope<shared>>, memref<0x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_zero_extent_global(%s: memref<0x16xf32>, %d: memref<16xf32>) {
  // expected-error @+1 {{expected src to be a tile with non-zero extents but got 0x16}}
  tile.reduce max %s, %d dim = 0 : memref<0x16xf32>, memref<16xf32>
  return
}

// -----

func.func @reduce_zero_extent_dst(%s: memref<4x16xf32, #tile.scope<fragment>>, %d: memref<0xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected dst to be a tile with non-zero extents but got 0}}
  tile.reduce sum %s, %d dim = 1 : memref<4x16xf32, #tile.scope<fragment>>, memref<0xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @cumsum_zero_extent(%s: memref<0x16xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected src to be a tile with non-zero extents but got 0x16}}
  tile.cumsum %s, %s dim = 1 : memref<0x16xf32, #tile.scope<fragment>>, memref<0x16xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @copy_element_type(%a: memref<4xcomplex<f32>>, %b: memref<4xcomplex<f32>, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{operand #0 must be memref of signless integer or index or floating-point values, but got 'memref<4xcomplex<f32>>'}}
  tile.copy %a[%i], %b[%i] : memref<4xcomplex<f32>>, memref<4xcomplex<f32>, #tile.scope<shared>>
  return
}

// -----

func.func @copy_src_offsets(%a: memref<?x?xf16>, %t: memref<64x64xf16, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected 2 src offsets (the src rank) but got 1}}
  tile.copy %a[%i], %t[%i, %i] : memref<?x?xf16>, memref<64x64xf16, #tile.scope<shared>>
  return
}

// -----

func.func @copy_dst_offsets(%a: memref<?x?xf16>, %t: memref<64x64xf16, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected 2 dst offsets (the dst rank) but got 3}}
  tile.copy %a[%i, %i], %t[%i, %i, %i] : memref<?x?xf16>, memref<64x64xf16, #tile.scope<shared>>
  return
}

// -----

func.func @copy_pad_type(%a: memref<?x?xf16>, %t: memref<64x64xf32, #tile.scope<shared>>, %i: index, %p: f32) {
  // expected-error @+1 {{expected pad of type 'f16' (the src element type) but got 'f32'}}
  tile.copy %a[%i, %i], %t[%i, %i] pad(%p : f32) : memref<?x?xf16>, memref<64x64xf32, #tile.scope<shared>>
  return
}

// -----

func.func @copy_foreign_memory_space(%a: memref<?x?xf16, #gpu.address_space<workgroup>>, %t: memref<64x64xf16, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected src memory space to be a #tile.scope but got #gpu.address_space<workgroup>}}
  tile.copy %a[%i, %i], %t[%i, %i] : memref<?x?xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #tile.scope<shared>>
  return
}

// -----

func.func @copy_mixed_families(%s: memref<64x64xf16, #tile.scope<shared>>, %u: memref<64x64xf16, #tile.scope<ub>>, %i: index) {
  // expected-error @+1 {{expected src and dst scopes from one family but got shared (generic) and ub (ascend)}}
  tile.copy %s[%i, %i], %u[%i, %i] : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<ub>>
  return
}

// -----

func.func @copy_ascend_path(%a: memref<?x?xf32>, %c: memref<64x64xf32, #tile.scope<l0c>>, %i: index) {
  // expected-error @+1 {{expected an ascend copy path (global->l1, global->ub, ub->global, l1->l0a, l1->l0b, l0c->global, l0c->ub, ub->l1, l1->ub, ub->ub) but got global->l0c}}
  tile.copy %a[%i, %i], %c[%i, %i] : memref<?x?xf32>, memref<64x64xf32, #tile.scope<l0c>>
  return
}

// -----

func.func @copy_sizes_rank(%q: memref<?x?x?xf16>, %t: memref<64x128xf16, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected 3 sizes (the higher operand rank) but got 2}}
  tile.copy %q[%i, %i, %i], %t[%i, %i] sizes [64, 128] : memref<?x?x?xf16>, memref<64x128xf16, #tile.scope<shared>>
  return
}

// -----

func.func @copy_nonpositive_sizes(%a: memref<?x?xf16>, %t: memref<64x64xf16, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected positive sizes but got 64x0}}
  tile.copy %a[%i, %i], %t[%i, %i] sizes [64, 0] : memref<?x?xf16>, memref<64x64xf16, #tile.scope<shared>>
  return
}

// -----

func.func @copy_ranks_differ_without_sizes(%q: memref<?x?x?xf16>, %t: memref<64x128xf16, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected sizes since the src and dst ranks differ (3 vs 2)}}
  tile.copy %q[%i, %i, %i], %t[%i, %i] : memref<?x?x?xf16>, memref<64x128xf16, #tile.scope<shared>>
  return
}

// -----

func.func @copy_dynamic_without_sizes(%a: memref<?x?xf16>, %b: memref<?x?xf16>, %i: index) {
  // expected-error @+1 {{expected sizes since dst has the dynamic shape ?x?}}
  tile.copy %a[%i, %i], %b[%i, %i] : memref<?x?xf16>, memref<?x?xf16>
  return
}

// -----

func.func @copy_missing_unit_dims(%q: memref<?x?x?xf16>, %t: memref<64x128xf16, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected at least 1 unit dim in sizes 2x64x128 to match the rank-2 dst but got 0}}
  tile.copy %q[%i, %i, %i], %t[%i, %i] sizes [2, 64, 128] : memref<?x?x?xf16>, memref<64x128xf16, #tile.scope<shared>>
  return
}

// -----

func.func @copy_extent_exceeds_tile(%a: memref<?x?xf16>, %t: memref<64x32xf16, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected dst shape of at least 64x64 (the copy extent) but got 64x32}}
  tile.copy %a[%i, %i], %t[%i, %i] sizes [64, 64] : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
  return
}

// -----

func.func @copy_extent_exceeds_lower_rank_tile(%q: memref<?x?x?x?xf16>, %t: memref<1x64x128xf16, #tile.scope<shared>>, %i: index) {
  // expected-error @+1 {{expected dst shape of at least 64x1x128 (the copy extent) but got 1x64x128}}
  tile.copy %q[%i, %i, %i, %i], %t[%i, %i, %i] sizes [1, 64, 1, 128] : memref<?x?x?x?xf16>, memref<1x64x128xf16, #tile.scope<shared>>
  return
}

// -----

func.func @atomic_add_index_elements(%d: memref<?xindex>, %v: index, %i: index) {
  // expected-error @+1 {{operand #0 must be signless integer or float scalar or memref, but got 'index'}}
  tile.atomic_add %v, %d[%i] : index, memref<?xindex>
  return
}

// -----

func.func @atomic_add_offsets(%d: memref<?x?xf32>, %v: f32, %i: index) {
  // expected-error @+1 {{expected 2 offsets (the dst rank) but got 1}}
  tile.atomic_add %v, %d[%i] : f32, memref<?x?xf32>
  return
}

// -----

func.func @atomic_add_scalar_type(%d: memref<?xf32>, %v: f16, %i: index) {
  // expected-error @+1 {{expected src of type 'f32' (the dst element type) but got 'f16'}}
  tile.atomic_add %v, %d[%i] : f16, memref<?xf32>
  return
}

// -----

func.func @atomic_add_rank(%d: memref<?x?xf32>, %t: memref<64xf32, #tile.scope<fragment>>, %i: index) {
  // expected-error @+1 {{expected src rank 2 (the dst rank) but got 1}}
  tile.atomic_add %t, %d[%i, %i] : memref<64xf32, #tile.scope<fragment>>, memref<?x?xf32>
  return
}

// -----

func.func @atomic_add_element_type(%d: memref<?x?xf32>, %t: memref<64x64xf16, #tile.scope<fragment>>, %i: index) {
  // expected-error @+1 {{expected src element type 'f32' (the dst element type) but got 'f16'}}
  tile.atomic_add %t, %d[%i, %i] : memref<64x64xf16, #tile.scope<fragment>>, memref<?x?xf32>
  return
}

// -----

func.func @fill_value_type(%t: memref<64x64xf32, #tile.scope<fragment>>, %v: f16) {
  // expected-error @+1 {{expected value of type 'f32' (the dst element type) but got 'f16'}}
  tile.fill %t, %v : memref<64x64xf32, #tile.scope<fragment>>, f16
  return
}

// -----

func.func @gemm_rank(%a: memref<64xf16, #tile.scope<shared>>, %b: memref<64x64xf16, #tile.scope<shared>>, %c: memref<64x64xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{operand #0 must be 2D memref of signless integer or floating-point values, but got 'memref<64xf16, #tile.scope<shared>>'}}
  tile.gemm %a, %b, %c : memref<64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_global_operand(%a: memref<64x64xf16>, %b: memref<64x64xf16, #tile.scope<shared>>, %c: memref<64x64xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected A in an on-chip scope but got global}}
  tile.gemm %a, %b, %c : memref<64x64xf16>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_accumulator_scope(%a: memref<64x64xf16, #tile.scope<shared>>, %c: memref<64x64xf32, #tile.scope<shared>>) {
  // expected-error @+1 {{expected C in scope fragment, local or l0c but got shared}}
  tile.gemm %a, %a, %c : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<shared>>
  return
}

// -----

func.func @gemm_mixed_families(%a: memref<64x64xf16, #tile.scope<shared>>, %c: memref<64x64xf32, #tile.scope<l0c>>) {
  // expected-error @+1 {{expected C and A scopes from one family but got l0c (ascend) and shared (generic)}}
  tile.gemm %a, %a, %c : memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf16, #tile.scope<shared>>, memref<64x64xf32, #tile.scope<l0c>>
  return
}

// -----

func.func @gemm_cube_a_scope(%a: memref<64x64xf16, #tile.scope<ub>>, %b: memref<64x64xf16, #tile.scope<l0b>>, %c: memref<64x64xf32, #tile.scope<l0c>>) {
  // expected-error @+1 {{expected A in scope l1 or l0a (the cube path) but got ub}}
  tile.gemm %a, %b, %c : memref<64x64xf16, #tile.scope<ub>>, memref<64x64xf16, #tile.scope<l0b>>, memref<64x64xf32, #tile.scope<l0c>>
  return
}

// -----

func.func @gemm_cube_b_scope(%a: memref<64x64xf16, #tile.scope<l0a>>, %c: memref<64x64xf32, #tile.scope<l0c>>) {
  // expected-error @+1 {{expected B in scope l1 or l0b (the cube path) but got l0a}}
  tile.gemm %a, %a, %c : memref<64x64xf16, #tile.scope<l0a>>, memref<64x64xf16, #tile.scope<l0a>>, memref<64x64xf32, #tile.scope<l0c>>
  return
}

// -----

func.func @gemm_a_shape(%a: memref<32x32xf16, #tile.scope<shared>>, %b: memref<32x16xf16, #tile.scope<shared>>, %c: memref<64x16xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected A to have shape 64x32 (M x K) but got 32x32}}
  tile.gemm %a, %b, %c : memref<32x32xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_a_shape_transposed(%a: memref<64x32xf16, #tile.scope<shared>>, %b: memref<64x16xf16, #tile.scope<shared>>, %c: memref<64x16xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected A to have shape 64x64 (K x M, transpose_a) but got 64x32}}
  tile.gemm %a, %b, %c transpose_a : memref<64x32xf16, #tile.scope<shared>>, memref<64x16xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_b_shape(%a: memref<32x32xf16, #tile.scope<shared>>, %b: memref<64x32xf16, #tile.scope<shared>>, %c: memref<32x64xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected B to have shape 32x64 (K x N) but got 64x32}}
  tile.gemm %a, %b, %c : memref<32x32xf16, #tile.scope<shared>>, memref<64x32xf16, #tile.scope<shared>>, memref<32x64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_b_shape_transposed(%a: memref<32x32xf16, #tile.scope<shared>>, %b: memref<32x64xf16, #tile.scope<shared>>, %c: memref<32x64xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected B to have shape 64x32 (N x K, transpose_b) but got 32x64}}
  tile.gemm %a, %b, %c transpose_b : memref<32x32xf16, #tile.scope<shared>>, memref<32x64xf16, #tile.scope<shared>>, memref<32x64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_b_element_type(%a: memref<32x32xf16, #tile.scope<shared>>, %b: memref<32x32xbf16, #tile.scope<shared>>, %c: memref<32x32xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected B element type 'f16' (the A element type) but got 'bf16'}}
  tile.gemm %a, %b, %c : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xbf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_operand_element_type(%a: memref<32x32xi16, #tile.scope<shared>>, %c: memref<32x32xi32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected A element type f16, bf16, f32, an 8-bit float or i8 but got 'i16'}}
  tile.gemm %a, %a, %c : memref<32x32xi16, #tile.scope<shared>>, memref<32x32xi16, #tile.scope<shared>>, memref<32x32xi32, #tile.scope<fragment>>
  return
}

// -----

func.func @gemm_accumulator_element_type(%a: memref<32x32xf16, #tile.scope<shared>>, %c: memref<32x32xi32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected C element type 'f32' or 'f16' (for A element type 'f16') but got 'i32'}}
  tile.gemm %a, %a, %c : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xi32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_unknown_kind(%s: memref<64x128xf32, #tile.scope<fragment>>, %d: memref<64xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected reduce kind sum, max, min, abssum or absmax but got 'prod'}}
  tile.reduce prod %s, %d dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_dynamic_shape(%s: memref<?x128xf32, #tile.scope<fragment>>, %d: memref<128xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{operand #0 must be statically shaped memref of signless integer or index or floating-point values, but got 'memref<?x128xf32, #tile.scope<fragment>>'}}
  tile.reduce sum %s, %d dim = 0 : memref<?x128xf32, #tile.scope<fragment>>, memref<128xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_dim_out_of_range(%s: memref<64x128xf32, #tile.scope<fragment>>, %d: memref<64xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected dim in [0, 2) (the src rank) but got 2}}
  tile.reduce sum %s, %d dim = 2 : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_dst_shape(%s: memref<64x128xf32, #tile.scope<fragment>>, %d: memref<128xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected dst shape 64 (src shape 64x128 without dim 1) but got 128}}
  tile.reduce sum %s, %d dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<128xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_1d_to_scalar(%s: memref<128xf32, #tile.scope<fragment>>, %d: memref<f32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected dst shape 1 (src shape 128 without dim 0) but got ()}}
  tile.reduce max %s, %d dim = 0 : memref<128xf32, #tile.scope<fragment>>, memref<f32, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_element_type(%s: memref<64x128xf32, #tile.scope<fragment>>, %d: memref<64xf16, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected dst element type 'f32' (the src element type) but got 'f16'}}
  tile.reduce sum %s, %d dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf16, #tile.scope<fragment>>
  return
}

// -----

func.func @reduce_mixed_families(%s: memref<64x128xf32, #tile.scope<ub>>, %d: memref<64xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected src and dst scopes from one family but got ub (ascend) and fragment (generic)}}
  tile.reduce sum %s, %d dim = 1 : memref<64x128xf32, #tile.scope<ub>>, memref<64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @cumsum_negative_dim(%s: memref<64x128xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected dim in [0, 2) (the src rank) but got -1}}
  tile.cumsum %s, %s dim = -1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @cumsum_dst_shape(%s: memref<64x128xf32, #tile.scope<fragment>>, %d: memref<64x64xf32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected dst shape 64x128 (the src shape) but got 64x64}}
  tile.cumsum %s, %d dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64x64xf32, #tile.scope<fragment>>
  return
}

// -----

func.func @cumsum_element_type(%s: memref<64x128xf32, #tile.scope<fragment>>, %d: memref<64x128xi32, #tile.scope<fragment>>) {
  // expected-error @+1 {{expected dst element type 'f32' (the src element type) but got 'i32'}}
  tile.cumsum %s, %d dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xi32, #tile.scope<fragment>>
  return
}

// -----

// Generic form can give a required operand no value; the verifier says so
// instead of reading past the operand list.
func.func @copy_segment_without_dst(%a: memref<4xf32>, %i: index) {
  // expected-error @+1 {{'tile.copy' op operand group #2 expects exactly one operand but operandSegmentSizes gives 0}}
  "tile.copy"(%a, %i) <{operandSegmentSizes = array<i32: 1, 1, 0, 0, 0>}> : (memref<4xf32>, index) -> ()
  return
}
