// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s
// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend=target=ascend:950 \
// RUN:   | filecheck %s --check-prefix=A950

// A per-row statistic is broadcast with vbrcb; the result is computed
// straight into the tile it is stored to.

// CHECK-LABEL: func.func @row_broadcast
// CHECK-SAME: %[[X:.*]]: memref<16x128xf32, #ascend.mem<ub>>, %[[M:.*]]: memref<16xf32, #ascend.mem<ub>>
// CHECK: %[[WIDE:.*]] = memref.alloc() : memref<16x128xf32, #ascend.mem<ub>>
// CHECK: ascend.vbrcb %[[WIDE]], %[[M]]
// CHECK: ascend.vbin sub %[[D:.*]], %[[X]], %[[WIDE]]
// CHECK: ascend.vunary exp %[[X]], %[[D]]
// CHECK-NOT: memref.store
func.func @row_broadcast(%x: memref<16x128xf32, #tile.scope<ub>>, %m: memref<16xf32, #tile.scope<ub>>) {
  tile.parallel (%i, %j) in (16, 128) {
    %a = memref.load %x[%i, %j] : memref<16x128xf32, #tile.scope<ub>>
    %b = memref.load %m[%i] : memref<16xf32, #tile.scope<ub>>
    %d = arith.subf %a, %b : f32
    %e = math.exp %d : f32
    memref.store %e, %x[%i, %j] : memref<16x128xf32, #tile.scope<ub>>
  }
  return
}

// -----

// A per-column vector is copied into every row (doubling copies); a scalar
// operand gives vbins; a cast is a vcast.

// CHECK-LABEL: func.func @column_broadcast
// CHECK-SAME: %[[X:.*]]: memref<4x32xf32, #ascend.mem<ub>>, %[[W:.*]]: memref<32xf32, #ascend.mem<ub>>, %[[S:.*]]: f32, %[[Y:.*]]: memref<4x32xf16, #ascend.mem<ub>>
// CHECK: ascend.copy %[[W]][%{{.*}}], %{{.*}} sizes [32]
// CHECK: ascend.copy %[[WIDE:.*]][%{{.*}}, %{{.*}}], %[[WIDE]][%{{.*}}, %{{.*}}] sizes [1, 32]
// CHECK: ascend.copy %[[WIDE]][%{{.*}}, %{{.*}}], %[[WIDE]][%{{.*}}, %{{.*}}] sizes [2, 32]
// CHECK: ascend.vbin mul %[[P:.*]], %[[X]], %[[WIDE]]
// CHECK: ascend.vbins muls %[[Q:.*]], %[[P]], %[[S]]
// CHECK: ascend.vcast %[[Y]], %[[Q]] round rint
func.func @column_broadcast(%x: memref<4x32xf32, #tile.scope<ub>>, %w: memref<32xf32, #tile.scope<ub>>, %s: f32, %y: memref<4x32xf16, #tile.scope<ub>>) {
  tile.parallel (%i, %j) in (4, 32) {
    %a = memref.load %x[%i, %j] : memref<4x32xf32, #tile.scope<ub>>
    %b = memref.load %w[%j] : memref<32xf32, #tile.scope<ub>>
    %p = arith.mulf %a, %b : f32
    %q = arith.mulf %p, %s : f32
    %h = arith.truncf %q : f32 to f16
    memref.store %h, %y[%i, %j] : memref<4x32xf16, #tile.scope<ub>>
  }
  return
}

// -----

// A bound on a coordinate is a compare of an iota (made once, by the S pipe)
// and a select. The 910b's Compare takes no i32: the coordinates are compared
// as the sign of their difference in f32; the 950 compares them as they are.

// CHECK-LABEL: func.func @mask_columns
// CHECK: %[[IOTA:.*]] = memref.alloc() : memref<64xi32, #ascend.mem<ub>>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[IOTA]]
// CHECK: ascend.vbins adds
// CHECK: ascend.vbin sub %[[DIFF:[^,]*]], {{.*}} : memref<8x64xi32, #ascend.mem<ub>>
// CHECK: ascend.vcast %[[WIDE:[^,]*]], %[[DIFF]] : memref<8x64xf32, #ascend.mem<ub>>, memref<8x64xi32, #ascend.mem<ub>>
// CHECK: ascend.vcmp lt %[[MASK:[^,]*]], %[[WIDE]], %{{.*}} : memref<8x64xi1, #ascend.mem<ub>>, memref<8x64xf32, #ascend.mem<ub>>
// CHECK: ascend.vsel %{{.*}}, %[[MASK]]
// A950-LABEL: func.func @mask_columns
// A950-NOT: ascend.vcast
// A950: ascend.vcmp lt %[[MASK:.*]], %{{.*}}, %{{.*}} : memref<8x64xi1, #ascend.mem<ub>>, memref<8x64xi32, #ascend.mem<ub>>
// A950: ascend.vsel %{{.*}}, %[[MASK]]
func.func @mask_columns(%x: memref<8x64xf32, #tile.scope<ub>>, %base: index, %n: index) {
  %ninf = arith.constant 0xFF800000 : f32
  tile.parallel (%i, %j) in (8, 64) {
    %col = arith.addi %base, %j : index
    %in = arith.cmpi slt, %col, %n : index
    %a = memref.load %x[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
    %v = arith.select %in, %a, %ninf : f32
    memref.store %v, %x[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
  }
  return
}

// -----

// Global memory in the body: DMA in and out of temporaries.

// CHECK-LABEL: func.func @global_operands
// CHECK-SAME: %[[X:.*]]: memref<?x?xf32, #ascend.mem<gm>>, %[[Y:.*]]: memref<?x?xf32, #ascend.mem<gm>>
// CHECK: ascend.copy %[[X]][%{{.*}}, %{{.*}}], %[[IN:.*]][%{{.*}}, %{{.*}}] sizes [8, 16]
// CHECK: ascend.vbins maxs
// CHECK-NOT: ascend.vbins
// CHECK: ascend.copy %{{.*}}, %[[Y]][%{{.*}}, %{{.*}}] sizes [8, 16]
func.func @global_operands(%x: memref<?x?xf32>, %y: memref<?x?xf32>, %r: index) {
  %zero = arith.constant 0.0 : f32
  tile.parallel (%i, %j) in (8, 16) {
    %row = arith.addi %r, %i : index
    %a = memref.load %x[%row, %j] : memref<?x?xf32>
    %b = arith.maximumf %a, %zero : f32
    memref.store %b, %y[%row, %j] : memref<?x?xf32>
  }
  return
}

// -----

// A gather (an index loaded at run time) has no vector form: scalar loops.

// CHECK-LABEL: func.func @gather
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load
// CHECK: memref.load
// CHECK: memref.store
// CHECK-NOT: ascend.v
func.func @gather(%x: memref<64x16xf32, #tile.scope<ub>>, %idx: memref<8xindex, #tile.scope<ub>>, %out: memref<8x16xf32, #tile.scope<ub>>) {
  tile.parallel (%i, %j) in (8, 16) {
    %k = memref.load %idx[%i] : memref<8xindex, #tile.scope<ub>>
    %v = memref.load %x[%k, %j] : memref<64x16xf32, #tile.scope<ub>>
    memref.store %v, %out[%i, %j] : memref<8x16xf32, #tile.scope<ub>>
  }
  return
}

// -----

// The bounds of the loop (and of the scf.if that guards the software-
// pipelined next tile) decide `t * 64 + j < 512` at every point: no iota,
// compare or select, just the selected value. The same compare against 500
// is not decided and stays.
// CHECK-LABEL: func.func @decided_mask
// CHECK: scf.for
// CHECK: scf.if
// CHECK-NOT: ascend.vcmp
// CHECK-NOT: ascend.vsel
// CHECK: ascend.vdup %{{.*}}, %{{.*}} : memref<8x64xf32, #ascend.mem<ub>>, f32
// CHECK: ascend.vcmp lt
// CHECK: ascend.vsel
func.func @decided_mask(%x: memref<8x64xf32, #tile.scope<ub>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %c500 = arith.constant 500 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  scf.for %t = %c0 to %c8 step %c1 {
    %next = arith.addi %t, %c1 : index
    %more = arith.cmpi slt, %next, %c8 : index
    scf.if %more {
      %base = arith.muli %next, %c64 : index
      tile.parallel (%i, %j) in (8, 64) {
        %col = arith.addi %base, %j : index
        %in = arith.cmpi slt, %col, %c512 : index
        %v = arith.select %in, %zero, %ninf : f32
        memref.store %v, %x[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
      }
      tile.parallel (%i, %j) in (8, 64) {
        %col = arith.addi %base, %j : index
        %in = arith.cmpi slt, %col, %c500 : index
        %a = memref.load %x[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
        %v = arith.select %in, %a, %ninf : f32
        memref.store %v, %x[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
      }
    }
  }
  return
}

// -----

// An element-wise chain writes each link over the scratch tile of the one
// before when nothing reads that value later (dst == src is legal for vbin,
// vbins and vunary): one temporary, the broadcast's, for sub, scale and exp.

// CHECK-LABEL: func.func @chain_in_place
// CHECK-SAME: %[[X:.*]]: memref<16x128xf32, #ascend.mem<ub>>, %[[M:.*]]: memref<16xf32, #ascend.mem<ub>>
// CHECK: %[[WIDE:.*]] = memref.alloc() : memref<16x128xf32, #ascend.mem<ub>>
// CHECK-NOT: memref.alloc
// CHECK: ascend.vbrcb %[[WIDE]], %[[M]]
// CHECK-NEXT: ascend.vbin sub %[[WIDE]], %[[X]], %[[WIDE]]
// CHECK-NEXT: ascend.vbins muls %[[WIDE]], %[[WIDE]], %{{.*}}
// CHECK: ascend.vunary exp %[[X]], %[[WIDE]]
func.func @chain_in_place(%x: memref<16x128xf32, #tile.scope<ub>>, %m: memref<16xf32, #tile.scope<ub>>, %s: f32) {
  tile.parallel (%i, %j) in (16, 128) {
    %a = memref.load %x[%i, %j] : memref<16x128xf32, #tile.scope<ub>>
    %b = memref.load %m[%i] : memref<16xf32, #tile.scope<ub>>
    %d = arith.subf %a, %b : f32
    %p = arith.mulf %d, %s : f32
    %e = math.exp %p : f32
    memref.store %e, %x[%i, %j] : memref<16x128xf32, #tile.scope<ub>>
  }
  return
}

// -----

// A value read again later keeps its tile: the exp of d gets a tile of its
// own, the sum goes into the tile it is stored to, and the input tile (a
// view of a user buffer) is never written over.

// CHECK-LABEL: func.func @live_operand_kept
// CHECK-SAME: %[[X:.*]]: memref<8x64xf32, #ascend.mem<ub>>, %[[Y:.*]]: memref<8x64xf32, #ascend.mem<ub>>, %[[S:.*]]: f32
// CHECK: %[[D:.*]] = memref.alloc() : memref<8x64xf32, #ascend.mem<ub>>
// CHECK: ascend.vbins adds %[[D]], %[[X]], %{{.*}}
// CHECK-NEXT: %[[E:.*]] = memref.alloc() : memref<8x64xf32, #ascend.mem<ub>>
// CHECK-NEXT: ascend.vunary exp %[[E]], %[[D]]
// CHECK: ascend.vbin add %[[Y]], %[[D]], %[[E]]
func.func @live_operand_kept(%x: memref<8x64xf32, #tile.scope<ub>>, %y: memref<8x64xf32, #tile.scope<ub>>, %s: f32) {
  tile.parallel (%i, %j) in (8, 64) {
    %a = memref.load %x[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
    %d = arith.subf %a, %s : f32
    %e = math.exp %d : f32
    %f = arith.addf %d, %e : f32
    memref.store %f, %y[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
  }
  return
}

// -----

// A select of two scalars (attention's 0 and -inf) duplicates the second
// into its destination and selects over it in place: one tile, for the
// first scalar, instead of two.

// CHECK-LABEL: func.func @select_scalars_in_place
// CHECK-SAME: %[[X:.*]]: memref<8x64xf32, #ascend.mem<ub>>
// CHECK: ascend.vcmp lt %[[MASK:.*]], %{{.*}}, %{{.*}} : memref<8x64xi1, #ascend.mem<ub>>
// CHECK: ascend.vdup %[[ZERO:.*]], %{{.*}} : memref<8x64xf32, #ascend.mem<ub>>, f32
// CHECK-NEXT: ascend.vdup %[[X]], %{{.*}} : memref<8x64xf32, #ascend.mem<ub>>, f32
// CHECK-NEXT: ascend.vsel %[[X]], %[[MASK]], %[[ZERO]], %[[X]]
func.func @select_scalars_in_place(%x: memref<8x64xf32, #tile.scope<ub>>, %base: index, %n: index) {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  tile.parallel (%i, %j) in (8, 64) {
    %col = arith.addi %base, %j : index
    %in = arith.cmpi slt, %col, %n : index
    %v = arith.select %in, %zero, %ninf : f32
    memref.store %v, %x[%i, %j] : memref<8x64xf32, #tile.scope<ub>>
  }
  return
}

// -----

// In a one-dimensional iteration a coordinate needs no broadcast: the shared
// iota is copied into the tile the offset is then added to in place.

// A950-LABEL: func.func @mask_1d
// A950: %[[IOTA:.*]] = memref.alloc() : memref<64xi32, #ascend.mem<ub>>
// A950-NOT: memref.collapse_shape
// A950: ascend.copy %[[IOTA]][%{{.*}}], %[[TILE:[a-z0-9_]+]][%{{.*}}] sizes [64]
// A950: ascend.vbins adds %[[TILE]], %[[TILE]]
// A950: ascend.vcmp lt %{{.*}}, %[[TILE]], %{{.*}} : memref<64xi1, #ascend.mem<ub>>, memref<64xi32, #ascend.mem<ub>>
func.func @mask_1d(%x: memref<64xf32, #tile.scope<ub>>, %base: index, %n: index) {
  %ninf = arith.constant 0xFF800000 : f32
  tile.parallel (%j) in (64) {
    %col = arith.addi %base, %j : index
    %in = arith.cmpi slt, %col, %n : index
    %a = memref.load %x[%j] : memref<64xf32, #tile.scope<ub>>
    %v = arith.select %in, %a, %ninf : f32
    memref.store %v, %x[%j] : memref<64xf32, #tile.scope<ub>>
  }
  return
}
