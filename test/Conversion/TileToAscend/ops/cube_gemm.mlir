// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// A K loop after a clear: the L0 buffers are allocated once, at the start
// of the function; each step loads them and the mmad of the loop's first
// iteration overwrites the accumulator (init), the others add to it.
// CHECK-LABEL: func.func @k_loop
// CHECK-DAG: %[[L0A:.*]] = memref.alloc() : memref<4x2x16x16xf16, #ascend.mem<l0a>>
// CHECK-DAG: %[[L0B:.*]] = memref.alloc() : memref<2x4x16x16xf16, #ascend.mem<l0b>>
// CHECK: scf.for
// CHECK: scf.for %[[K:.*]] = %[[LB:.*]] to %{{.*}} step %{{.*}} {
// CHECK: ascend.load_l0a %{{.*}}, %[[L0A]] sizes [64, 32] : memref<2x4x16x16xf16, #ascend.mem<l1>>, memref<4x2x16x16xf16, #ascend.mem<l0a>>
// CHECK: ascend.load_l0b %{{.*}}, %[[L0B]] sizes [32, 64] : memref<4x2x16x16xf16, #ascend.mem<l1>>, memref<2x4x16x16xf16, #ascend.mem<l0b>>
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[K]], %[[LB]] : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: ascend.mmad %[[L0A]], %[[L0B]], %[[ACC:.*]] sizes [64, 64, 32] {init}
// CHECK: } else {
// CHECK: ascend.mmad %[[L0A]], %[[L0B]], %[[ACC]] sizes [64, 64, 32] :
// CHECK: } {tile.num_stages = 2 : i64}
// CHECK-NOT: tile.
func.func @k_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%n) threads = 128 {
    %a = tile.alloc : memref<64x32xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<32x64xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<64x64xf32, #tile.scope<l0c>>
    tile.pipelined %k = %c0 to %n step %c1 num_stages = 2 {
      tile.gemm %a, %b, %acc : memref<64x32xf16, #tile.scope<l1>>, memref<32x64xf16, #tile.scope<l1>>, memref<64x64xf32, #tile.scope<l0c>>
    }
  }
  return
}

// -----

// clear_accum is an init mmad; a gemm after it accumulates. Transposed
// operands are transposed by the L0 loads (A stored K x M, B stored N x K).
// CHECK-LABEL: func.func @clear_accum_then_accumulate
// CHECK: ascend.load_l0a %{{.*}}, %{{.*}} {transpose} sizes [32, 48] : memref<2x3x16x16xf16, #ascend.mem<l1>>, memref<2x3x16x16xf16, #ascend.mem<l0a>>
// CHECK: ascend.load_l0b %{{.*}}, %{{.*}} {transpose} sizes [48, 64] : memref<3x4x16x16xf16, #ascend.mem<l1>>, memref<3x4x16x16xf16, #ascend.mem<l0b>>
// CHECK: ascend.mmad %{{.*}}, %{{.*}}, %{{.*}} sizes [32, 64, 48] {init}
// CHECK: ascend.mmad %{{.*}}, %{{.*}}, %{{.*}} sizes [32, 64, 48] :
// CHECK-NOT: scf.if
func.func @clear_accum_then_accumulate() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %at = tile.alloc : memref<48x32xf16, #tile.scope<l1>>
    %bt = tile.alloc : memref<64x48xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x64xf32, #tile.scope<l0c>>
    tile.gemm %at, %bt, %acc transpose_a transpose_b clear_accum : memref<48x32xf16, #tile.scope<l1>>, memref<64x48xf16, #tile.scope<l1>>, memref<32x64xf32, #tile.scope<l0c>>
    tile.gemm %at, %bt, %acc transpose_a transpose_b : memref<48x32xf16, #tile.scope<l1>>, memref<64x48xf16, #tile.scope<l1>>, memref<32x64xf32, #tile.scope<l0c>>
  }
  return
}

// -----

// A clear outside two loops: the init mmad is the one of the first
// iteration of both.
// CHECK-LABEL: func.func @nested_loops
// CHECK: scf.for %{{.*}} = %block_idx
// CHECK: scf.for %[[I:.*]] = %[[LBI:[^ ]*]] to
// CHECK: scf.for %[[J:.*]] = %[[LBJ:[^ ]*]] to
// CHECK-DAG: %[[FJ:.*]] = arith.cmpi eq, %[[J]], %[[LBJ]] : index
// CHECK-DAG: %[[FI:.*]] = arith.cmpi eq, %[[I]], %[[LBI]] : index
// CHECK: %[[BOTH:.*]] = arith.andi
// CHECK: scf.if %[[BOTH]] {
// CHECK: ascend.mmad {{.*}} {init}
func.func @nested_loops(%n: index, %m: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x32xf32, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %i = %c0 to %n step %c1 {
      scf.for %j = %c1 to %m step %c1 {
        tile.gemm %a, %a, %acc : memref<32x32xf32, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      }
    }
  }
  return
}

// -----

// 128 x 256 f32 operands would take 128 KiB of L0A: K is cut into the
// deepest steps of which two fit each L0 (64 deep: 32 KiB), which take turns
// on two L0A and two L0B buffers, so MTE1 loads one step while the cube
// multiplies the other. Each step is an L1 view of 8 C0-column (A, Nz) or 4
// 16-row (B, in Zz since its fractals reach L0B transposed) fractals.
// CHECK-LABEL: func.func @k_split
// CHECK-DAG: %[[LA0:.*]] = memref.alloc() {ascend.l0_turns = 2 : i64} : memref<8x8x16x8xf32, #ascend.mem<l0a>>
// CHECK-DAG: %[[LA1:.*]] = memref.alloc() {ascend.l0_turns = 2 : i64} : memref<8x8x16x8xf32, #ascend.mem<l0a>>
// CHECK-DAG: %[[LB0:.*]] = memref.alloc() {ascend.l0_turns = 2 : i64} : memref<8x8x16x8xf32, #ascend.mem<l0b>>
// CHECK-DAG: %[[LB1:.*]] = memref.alloc() {ascend.l0_turns = 2 : i64} : memref<8x8x16x8xf32, #ascend.mem<l0b>>
// CHECK: %[[A0:.*]] = memref.subview %{{.*}}[0, 0, 0, 0] [8, 8, 16, 8] [1, 1, 1, 1]
// CHECK: %[[B0:.*]] = memref.subview %{{.*}}[0, 0, 0, 0] [4, 16, 16, 8] [1, 1, 1, 1]
// CHECK: ascend.load_l0a %[[A0]], %[[A_0:[^ ]*]] sizes [128, 64]
// CHECK: ascend.load_l0b %[[B0]], %[[B_0:[^ ]*]] {zz} sizes [64, 128]
// CHECK: ascend.mmad %[[A_0]], %[[B_0]], %{{.*}} sizes [128, 128, 64] {init}
// CHECK: %[[A1:.*]] = memref.subview %{{.*}}[8, 0, 0, 0] [8, 8, 16, 8] [1, 1, 1, 1]
// CHECK: %[[B1:.*]] = memref.subview %{{.*}}[4, 0, 0, 0] [4, 16, 16, 8] [1, 1, 1, 1]
// CHECK: ascend.load_l0a %[[A1]], %[[A_1:[^ ]*]] sizes [128, 64]
// CHECK-NOT: %[[A_0]]
// CHECK: ascend.load_l0b %[[B1]], %[[B_1:[^ ]*]] {zz} sizes [64, 128]
// CHECK-NOT: %[[B_0]]
// CHECK: ascend.mmad %[[A_1]], %[[B_1]], %{{.*}} sizes [128, 128, 64] :
// CHECK: ascend.load_l0a %{{.*}}, %[[A_0]] sizes [128, 64]
// CHECK: ascend.load_l0b %{{.*}}, %[[B_0]] {zz} sizes [64, 128]
// CHECK: ascend.mmad %[[A_0]], %[[B_0]], %{{.*}} sizes [128, 128, 64] :
// CHECK: ascend.load_l0a %{{.*}}, %[[A_1]] sizes [128, 64]
// CHECK: ascend.mmad %[[A_1]], %[[B_1]], %{{.*}} sizes [128, 128, 64] :
// CHECK-NOT: ascend.mmad
func.func @k_split() {
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<128x256xf32, #tile.scope<l1>>
    %b = tile.alloc : memref<256x128xf32, #tile.scope<l1>>
    %acc = tile.alloc : memref<128x128xf32, #tile.scope<l0c>>
    tile.gemm %a, %b, %acc clear_accum : memref<128x256xf32, #tile.scope<l1>>, memref<256x128xf32, #tile.scope<l1>>, memref<128x128xf32, #tile.scope<l0c>>
  }
  return
}

// -----

// A clear at the end of the loop's body: the mmad of every iteration after
// the first overwrites (the first one adds onto what the tile held).
// CHECK-LABEL: func.func @clear_after_the_gemm_in_a_loop
// CHECK: scf.for
// CHECK: scf.for %[[I:[^ ]*]] = %[[LB:[^ ]*]] to
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[LB]]
// CHECK: %[[LATER:.*]] = arith.xori %[[FIRST]], %{{.*}} : i1
// CHECK: scf.if %[[LATER]] {
// CHECK-NEXT: ascend.mmad %{{.*}} sizes [32, 32, 16] {init}
// CHECK: } else {
// CHECK-NEXT: ascend.mmad %{{.*}} sizes [32, 32, 16] :
func.func @clear_after_the_gemm_in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %i = %c0 to %n step %c1 {
      tile.gemm %a, %b, %acc : memref<32x16xf16, #tile.scope<l1>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
    }
  }
  return
}

// -----

// A clear before the loop and one at the end of its body (DeepGEMM's
// promotion: the vector cores add each K tile's product onto a second
// accumulator): every mmad overwrites, with no test.
// CHECK-LABEL: func.func @clear_before_and_after_the_gemm
// CHECK: scf.for
// CHECK: scf.for
// CHECK-NOT: arith.cmpi
// CHECK-NOT: scf.if
// CHECK: ascend.mmad %{{.*}} sizes [32, 32, 16] {init}
// CHECK-NEXT: }
func.func @clear_before_and_after_the_gemm(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %i = %c0 to %n step %c1 {
      tile.gemm %a, %b, %acc : memref<32x16xf16, #tile.scope<l1>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
    }
  }
  return
}

// -----

// 2x accumulation: the clear after the gemm runs every other iteration, so
// the mmad overwrites on the first iteration and after one whose clear ran:
// the clear's condition, recomputed for the previous iteration (%i - 1).
// CHECK-LABEL: func.func @clear_every_other_iteration
// CHECK: scf.for
// CHECK: scf.for %[[I:[^ ]*]] = %[[LB:[^ ]*]] to
// CHECK-DAG: %[[PREV:.*]] = arith.subi %[[I]], %{{.*}} : index
// CHECK-DAG: %[[REM:.*]] = arith.remui %[[PREV]], %{{.*}} : index
// CHECK-DAG: %[[RAN:.*]] = arith.cmpi eq, %[[REM]], %{{.*}} : index
// CHECK-DAG: %[[FIRST:.*]] = arith.cmpi eq, %[[I]], %[[LB]]
// CHECK: %[[INIT:.*]] = arith.ori %[[FIRST]], %[[RAN]] : i1
// CHECK: scf.if %[[INIT]] {
// CHECK-NEXT: ascend.mmad %{{.*}} sizes [32, 32, 16] {init}
// CHECK: } else {
// CHECK-NEXT: ascend.mmad %{{.*}} sizes [32, 32, 16] :
// CHECK: %[[REM2:.*]] = arith.remui %[[I]], %{{.*}} : index
// CHECK: %[[CLEAR:.*]] = arith.cmpi eq, %[[REM2]], %{{.*}} : index
// CHECK: scf.if %[[CLEAR]] {
// CHECK-NEXT: }
func.func @clear_every_other_iteration(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %i = %c0 to %n step %c1 {
      tile.gemm %a, %b, %acc : memref<32x16xf16, #tile.scope<l1>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      %r = arith.remui %i, %c2 : index
      %promote = arith.cmpi eq, %r, %c1 : index
      scf.if %promote {
        tile.clear %acc : memref<32x32xf32, #tile.scope<l0c>>
      }
    }
  }
  return
}

// -----

// Without a clear, a gemm under a condition in a loop just accumulates.
// CHECK-LABEL: func.func @conditional_accumulation
// CHECK: scf.if
// CHECK: ascend.load_l0a
// CHECK-NOT: {init}
// CHECK: ascend.mmad %{{.*}} sizes [32, 32, 16] :
func.func @conditional_accumulation(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %a = tile.alloc : memref<32x16xf16, #tile.scope<l1>>
    %b = tile.alloc : memref<16x32xf16, #tile.scope<l1>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<l0c>>
    scf.for %i = %c0 to %n step %c1 {
      %later = arith.cmpi ugt, %i, %c0 : index
      scf.if %later {
        tile.gemm %a, %b, %acc : memref<32x16xf16, #tile.scope<l1>>, memref<16x32xf16, #tile.scope<l1>>, memref<32x32xf32, #tile.scope<l0c>>
      }
    }
  }
  return
}
