// RUN: tile-opt %s -split-input-file --tile-ascend-place-tiles | filecheck %s

// A gemm operand that vector work writes element by element (a scaled or gathered
// A tile) belongs to the vector cores: it lives in UB, and the gemm reads an L1
// twin that a whole-tile copy (a handoff up, as attention's P) refreshes after the
// write; the copy in from global memory stays on the cube.
// CHECK-LABEL: func.func @scaled_operand
// CHECK: %[[TWIN:.*]] = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
// CHECK: %[[A:.*]] = tile.alloc : memref<32x32xf16, #tile.scope<ub>>
// CHECK: %[[B:.*]] = tile.alloc : memref<32x32xf16, #tile.scope<l1>>
// CHECK: scf.for
// CHECK: tile.parallel
// CHECK: memref.store %{{.*}}, %[[A]][
// CHECK: }
// CHECK-NEXT: tile.copy %[[A]][%{{.*}}, %{{.*}}], %[[TWIN]][%{{.*}}, %{{.*}}] : memref<32x32xf16, #tile.scope<ub>>, memref<32x32xf16, #tile.scope<l1>>
// CHECK: tile.copy %{{.*}}, %[[B]]
// CHECK: tile.gemm %[[TWIN]], %[[B]], %{{.*}} :
func.func @scaled_operand(%X: memref<64x64xf16>, %W: memref<64x64xf16>, %C: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %two = arith.constant 2.0 : f16
  tile.kernel blocks(%bx) in (%c2) threads = 128 {
    %a = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %b = tile.alloc : memref<32x32xf16, #tile.scope<shared>>
    %acc = tile.alloc : memref<32x32xf32, #tile.scope<fragment>>
    tile.clear %acc : memref<32x32xf32, #tile.scope<fragment>>
    scf.for %k = %c0 to %c2 step %c1 {
      tile.parallel (%i, %j) in (32, 32) {
        %x = memref.load %X[%i, %j] : memref<64x64xf16>
        %y = arith.mulf %x, %two : f16
        memref.store %y, %a[%i, %j] : memref<32x32xf16, #tile.scope<shared>>
      }
      tile.copy %W[%k, %c0], %b[%c0, %c0] : memref<64x64xf16>, memref<32x32xf16, #tile.scope<shared>>
      tile.gemm %a, %b, %acc : memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf16, #tile.scope<shared>>, memref<32x32xf32, #tile.scope<fragment>>
    }
    tile.copy %acc[%c0, %c0], %C[%bx, %c0] : memref<32x32xf32, #tile.scope<fragment>>, memref<64x64xf32>
  }
  return
}
