// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s
// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend=target=ascend:950 \
// RUN:   | filecheck %s --check-prefix=A950

// A causal mask applied to the scores: `q0 + i >= k0 + j` holds at every
// point when `q0 >= k0 + 127` (a key tile below the diagonal), tested once in
// front of the region; there the select is the scores themselves and the
// region is no work at all. Elsewhere, beside 160 KiB of the kernel's tiles,
// the region runs in strips of one row, so its index tiles are 128
// elements, not 64x128.

// CHECK-LABEL: func.func @causal_mask
// CHECK-SAME: %[[S:[^:]*]]: memref<64x128xf32, #ascend.mem<ub>>, %[[Q0:[^:]*]]: index, %[[K0:[^:]*]]: index
// CHECK: %[[LAST:.*]] = arith.addi %[[K0]], %c127
// CHECK: %[[BELOW:.*]] = arith.cmpi sge, %[[Q0]], %[[LAST]] : index
// CHECK: scf.if %[[BELOW]] {
// CHECK-NOT: ascend.v
// CHECK: } else {
// CHECK: scf.for %[[ROW:.*]] = %c0{{.*}} to %c64{{.*}} step %c1
// CHECK-NOT: memref<64x128xi32
// CHECK: ascend.vcmp ge %[[MASK:[^,]*]], %{{.*}}, %{{.*}} : memref<1x128xi1, #ascend.mem<ub>>, memref<1x128xf32, #ascend.mem<ub>>
// CHECK: memref.subview %[[S]][%[[ROW]], 0] [1, 128]
// CHECK: ascend.vsel %{{.*}}, %[[MASK]], %{{.*}}, %{{.*}} : memref<1x128xf32, strided<[128, 1], offset: ?>, #ascend.mem<ub>>, memref<1x128xi1
// A950-LABEL: func.func @causal_mask
// A950: scf.if
// A950: } else {
// A950: scf.for
// A950: ascend.vcmp ge %{{.*}} : memref<1x128xi1, #ascend.mem<ub>>, memref<1x128xi32, #ascend.mem<ub>>
func.func @causal_mask(%s: memref<64x128xf32, #tile.scope<ub>>, %q0: index, %k0: index) {
  %held = tile.alloc : memref<40960xf32, #tile.scope<ub>>
  %ninf = arith.constant 0xFF800000 : f32
  tile.parallel (%i, %j) in (64, 128) {
    %query = arith.addi %q0, %i : index
    %key = arith.addi %k0, %j : index
    %visible = arith.cmpi sge, %query, %key : index
    %x = memref.load %s[%i, %j] : memref<64x128xf32, #tile.scope<ub>>
    %v = arith.select %visible, %x, %ninf : f32
    memref.store %v, %s[%i, %j] : memref<64x128xf32, #tile.scope<ub>>
  }
  return
}

// -----

// The mask as TileLang writes it, before the gemm: where both compares hold
// everywhere (keys below the diagonal and inside the sequence) the region
// only fills 0; an index computed in the body in front of the compares
// (`t * 128`, uniform) moves in front of the region with them.

// CHECK-LABEL: func.func @mask_of_constants
// CHECK-SAME: %[[S:[^:]*]]: memref<64x128xf32, #ascend.mem<ub>>
// CHECK: %[[K0:.*]] = arith.muli %{{.*}}, %c128
// CHECK: arith.cmpi sge
// CHECK: arith.cmpi slt
// CHECK: %[[BOTH:.*]] = arith.andi
// CHECK: scf.if %[[BOTH]] {
// CHECK: ascend.vdup %[[S]], %{{.*}} : memref<64x128xf32, #ascend.mem<ub>>, f32
// CHECK-NOT: ascend.v
// CHECK: } else {
// CHECK: scf.for
// CHECK: ascend.vsel
func.func @mask_of_constants(%s: memref<64x128xf32, #tile.scope<ub>>, %q0: index, %t: index, %n: index) {
  %held = tile.alloc : memref<40960xf32, #tile.scope<ub>>
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  tile.parallel (%i, %j) in (64, 128) {
    %k0 = arith.muli %t, %c128 : index
    %query = arith.addi %q0, %i : index
    %key = arith.addi %k0, %j : index
    %causal = arith.cmpi sge, %query, %key : index
    %inside = arith.cmpi slt, %key, %n : index
    %visible = arith.andi %causal, %inside : i1
    %v = arith.select %visible, %zero, %ninf : f32
    memref.store %v, %s[%i, %j] : memref<64x128xf32, #tile.scope<ub>>
  }
  return
}

// -----

// A compare of a coordinate with a value that depends on the point otherwise
// (a load) is not decided by a test in front of the region: no branch, and a
// region whose index tiles are small runs whole.

// CHECK-LABEL: func.func @compare_with_data
// CHECK-NOT: scf.if
// CHECK: ascend.vcmp lt %{{.*}} : memref<8x64xi1
func.func @compare_with_data(%s: memref<8x64xf32, #tile.scope<ub>>, %lim: memref<8x64xi32, #tile.scope<ub>>) {
  %ninf = arith.constant 0xFF800000 : f32
  tile.parallel (%i, %j) in (8, 64) {
    %l = memref.load %lim[%i, %j] : memref<8x64xi32, #tile.scope<ub>>
    %li = arith.index_cast %l : i32 to index
    %visible = arith.cmpi slt, %j, %li : index
    %x = memref.load %s[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
    %v = arith.select %visible, %x, %ninf : f32
    memref.store %v, %s[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
  }
  return
}

// -----

// A strip's views must start on 32-byte boundaries: a per-column vector is
// the same in every strip, but one f32 per row moves 4 bytes a row, so a
// region that loads a per-row vector runs whole (one row is too few bytes
// and eight rows too many elements). Without the 160 KiB of other tiles a
// 32x128 region's index tiles fit whole, and strips would only cost start-ups.

// CHECK-LABEL: func.func @strips_and_vectors
// CHECK: scf.for %{{.*}} step %c1
// CHECK: memref<1x128xi1
// CHECK-LABEL: func.func @per_row_vector_keeps_the_region_whole
// CHECK: } else {
// CHECK-NOT: scf.for
// CHECK: ascend.vcmp ge %{{.*}} : memref<64x128xi1
// CHECK-LABEL: func.func @room_for_whole_index_tiles
// CHECK: } else {
// CHECK-NOT: scf.for
// CHECK: ascend.vcmp ge %{{.*}} : memref<32x128xi1
func.func @strips_and_vectors(%s: memref<64x128xf32, #tile.scope<ub>>, %w: memref<128xf32, #tile.scope<ub>>, %q0: index, %k0: index) {
  %held = tile.alloc : memref<40960xf32, #tile.scope<ub>>
  %ninf = arith.constant 0xFF800000 : f32
  tile.parallel (%i, %j) in (64, 128) {
    %query = arith.addi %q0, %i : index
    %key = arith.addi %k0, %j : index
    %visible = arith.cmpi sge, %query, %key : index
    %x = memref.load %s[%i, %j] : memref<64x128xf32, #tile.scope<ub>>
    %b = memref.load %w[%j] : memref<128xf32, #tile.scope<ub>>
    %y = arith.addf %x, %b : f32
    %v = arith.select %visible, %y, %ninf : f32
    memref.store %v, %s[%i, %j] : memref<64x128xf32, #tile.scope<ub>>
  }
  return
}
func.func @per_row_vector_keeps_the_region_whole(%s: memref<64x128xf32, #tile.scope<ub>>, %m: memref<64xf32, #tile.scope<ub>>, %q0: index, %k0: index) {
  %held = tile.alloc : memref<40960xf32, #tile.scope<ub>>
  tile.parallel (%i, %j) in (64, 128) {
    %query = arith.addi %q0, %i : index
    %key = arith.addi %k0, %j : index
    %visible = arith.cmpi sge, %query, %key : index
    %x = memref.load %s[%i, %j] : memref<64x128xf32, #tile.scope<ub>>
    %r = memref.load %m[%i] : memref<64xf32, #tile.scope<ub>>
    %v = arith.select %visible, %x, %r : f32
    memref.store %v, %s[%i, %j] : memref<64x128xf32, #tile.scope<ub>>
  }
  return
}
func.func @room_for_whole_index_tiles(%s: memref<32x128xf32, #tile.scope<ub>>, %q0: index, %k0: index) {
  %ninf = arith.constant 0xFF800000 : f32
  tile.parallel (%i, %j) in (32, 128) {
    %query = arith.addi %q0, %i : index
    %key = arith.addi %k0, %j : index
    %visible = arith.cmpi sge, %query, %key : index
    %x = memref.load %s[%i, %j] : memref<32x128xf32, #tile.scope<ub>>
    %v = arith.select %visible, %x, %ninf : f32
    memref.store %v, %s[%i, %j] : memref<32x128xf32, #tile.scope<ub>>
  }
  return
}
