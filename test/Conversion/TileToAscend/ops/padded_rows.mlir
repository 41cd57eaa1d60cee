// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend | filecheck %s

// A tile reduced row by row whose rows are not whole 32-byte blocks (100 f32,
// 400 bytes) gets rows of 104 (416 bytes), and so does the tile of its shape
// that meets it in a tile.parallel; ops see the real columns through a view.
// A tile of that shape that meets neither keeps its layout.

// CHECK-LABEL: func.func @rms_rows
// CHECK-DAG: %[[SQ:.*]] = memref.alloc() : memref<4x104xf32, #ascend.mem<ub>>
// CHECK-DAG: %[[X:.*]] = memref.alloc() : memref<4x104xf32, #ascend.mem<ub>>
// CHECK-DAG: %[[OTHER:.*]] = memref.alloc() : memref<4x100xf32, #ascend.mem<ub>>
// CHECK-DAG: %[[XV:.*]] = memref.subview %[[X]][0, 0] [4, 100] [1, 1] : memref<4x104xf32, #ascend.mem<ub>> to memref<4x100xf32, strided<[104, 1]>, #ascend.mem<ub>>
// CHECK-DAG: %[[SQV:.*]] = memref.subview %[[SQ]][0, 0] [4, 100] [1, 1] : memref<4x104xf32, #ascend.mem<ub>> to memref<4x100xf32, strided<[104, 1]>, #ascend.mem<ub>>
// CHECK: ascend.copy %{{.*}}, %[[XV]][%{{.*}}, %{{.*}}] sizes [4, 100]
// CHECK: ascend.vbin mul %[[SQV]], %[[XV]], %[[XV]] : memref<4x100xf32, strided<[104, 1]>, #ascend.mem<ub>>
// CHECK: ascend.vreduce sum %{{.*}}, %[[SQV]] : memref<4xf32, #ascend.mem<ub>>, memref<4x100xf32, strided<[104, 1]>, #ascend.mem<ub>>
// CHECK: ascend.vdup %[[OTHER]]
// CHECK-NOT: tilec.padded_rows
func.func @rms_rows(%a: memref<8x100xf32>, %out: memref<8xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  tile.kernel blocks(%bx) in (%c2) threads = 1 {
    %x = tile.alloc : memref<4x100xf32, #tile.scope<ub>>
    %sq = tile.alloc : memref<4x100xf32, #tile.scope<ub>>
    %other = tile.alloc : memref<4x100xf32, #tile.scope<ub>>
    %sum = tile.alloc : memref<4xf32, #tile.scope<ub>>
    %row = arith.muli %bx, %c4 : index
    tile.copy %a[%row, %c0], %x[%c0, %c0] : memref<8x100xf32>, memref<4x100xf32, #tile.scope<ub>>
    tile.parallel (%i, %j) in (4, 100) {
      %e = memref.load %x[%i, %j] : memref<4x100xf32, #tile.scope<ub>>
      %p = arith.mulf %e, %e : f32
      memref.store %p, %sq[%i, %j] : memref<4x100xf32, #tile.scope<ub>>
    }
    tile.reduce sum %sq, %sum dim = 1 : memref<4x100xf32, #tile.scope<ub>>, memref<4xf32, #tile.scope<ub>>
    tile.fill %other, %v : memref<4x100xf32, #tile.scope<ub>>, f32
    tile.copy %sum[%c0], %out[%row] : memref<4xf32, #tile.scope<ub>>, memref<8xf32>
    tile.copy %other[%c0, %c0], %a[%row, %c0] : memref<4x100xf32, #tile.scope<ub>>, memref<8x100xf32>
  }
  return
}

// -----

// A tile of one row, or of rows of whole blocks, keeps its layout; so does a
// reduced tile that the kernel also views (the view's type would change).

// CHECK-LABEL: func.func @kept
// CHECK-DAG: memref.alloc() : memref<1x100xf32, #ascend.mem<ub>>
// CHECK-DAG: memref.alloc() : memref<4x64xf32, #ascend.mem<ub>>
// CHECK-DAG: memref.alloc() : memref<4x100xf32, #ascend.mem<ub>>
// CHECK-NOT: strided<[104, 1]>
func.func @kept(%a: memref<8x100xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %one = tile.alloc : memref<1x100xf32, #tile.scope<ub>>
    %whole = tile.alloc : memref<4x64xf32, #tile.scope<ub>>
    %viewed = tile.alloc : memref<4x100xf32, #tile.scope<ub>>
    %s1 = tile.alloc : memref<1xf32, #tile.scope<ub>>
    %s4 = tile.alloc : memref<4xf32, #tile.scope<ub>>
    tile.copy %a[%c0, %c0], %one[%c0, %c0] : memref<8x100xf32>, memref<1x100xf32, #tile.scope<ub>>
    tile.reduce sum %one, %s1 dim = 1 : memref<1x100xf32, #tile.scope<ub>>, memref<1xf32, #tile.scope<ub>>
    tile.copy %a[%c0, %c0], %whole[%c0, %c0] : memref<8x100xf32>, memref<4x64xf32, #tile.scope<ub>>
    tile.reduce sum %whole, %s4 dim = 1 : memref<4x64xf32, #tile.scope<ub>>, memref<4xf32, #tile.scope<ub>>
    %half = memref.subview %viewed[0, 0] [2, 100] [1, 1] : memref<4x100xf32, #tile.scope<ub>> to memref<2x100xf32, strided<[100, 1]>, #tile.scope<ub>>
    tile.copy %a[%c0, %c0], %half[%c0, %c0] : memref<8x100xf32>, memref<2x100xf32, strided<[100, 1]>, #tile.scope<ub>>
    tile.reduce sum %viewed, %s4 dim = 1 : memref<4x100xf32, #tile.scope<ub>>, memref<4xf32, #tile.scope<ub>>
    tile.copy %s4[%c0], %out[%c0] : memref<4xf32, #tile.scope<ub>>, memref<8xf32>
  }
  return
}

// -----

// The tiles a reduced tile meets are padded in their own element type: a bf16
// row of 100 to 112 (224 bytes), the f32 one to 104 (416 bytes).

// CHECK-LABEL: func.func @mixed_types
// CHECK-DAG: %[[B:.*]] = memref.alloc() : memref<4x112xbf16, #ascend.mem<ub>>
// CHECK-DAG: %[[F:.*]] = memref.alloc() : memref<4x104xf32, #ascend.mem<ub>>
// CHECK-DAG: %[[BV:.*]] = memref.subview %[[B]][0, 0] [4, 100] [1, 1] : memref<4x112xbf16, #ascend.mem<ub>> to memref<4x100xbf16, strided<[112, 1]>, #ascend.mem<ub>>
// CHECK-DAG: %[[FV:.*]] = memref.subview %[[F]][0, 0] [4, 100] [1, 1] : memref<4x104xf32, #ascend.mem<ub>> to memref<4x100xf32, strided<[104, 1]>, #ascend.mem<ub>>
// CHECK: ascend.vcast %[[FV]], %[[BV]]
// CHECK: ascend.vreduce sum %{{.*}}, %[[FV]]
func.func @mixed_types(%a: memref<8x100xbf16>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %x = tile.alloc : memref<4x100xbf16, #tile.scope<ub>>
    %f = tile.alloc : memref<4x100xf32, #tile.scope<ub>>
    %s = tile.alloc : memref<4xf32, #tile.scope<ub>>
    tile.copy %a[%c0, %c0], %x[%c0, %c0] : memref<8x100xbf16>, memref<4x100xbf16, #tile.scope<ub>>
    tile.parallel (%i, %j) in (4, 100) {
      %e = memref.load %x[%i, %j] : memref<4x100xbf16, #tile.scope<ub>>
      %w = arith.extf %e : bf16 to f32
      memref.store %w, %f[%i, %j] : memref<4x100xf32, #tile.scope<ub>>
    }
    tile.reduce sum %f, %s dim = 1 : memref<4x100xf32, #tile.scope<ub>>, memref<4xf32, #tile.scope<ub>>
    tile.copy %s[%c0], %out[%c0] : memref<4xf32, #tile.scope<ub>>, memref<8xf32>
  }
  return
}
