// REQUIRES: avx512_bf16
// RUN: tile-opt %s -split-input-file --convert-tile-to-cpu="ops=tile.gemm target=cpu:avx512" | filecheck %s

// A bf16 gemm with an f32 accumulator on a host with AVX512-BF16: B is packed
// pair-interleaved (two rows of a 32-wide panel shuffled into one 64-lane
// row), A is read in place, one 32-bit pair per row broadcast to 16 lanes,
// and each k step of pairs is one vdpbf16ps per accumulator (6 rows x 2).
// CHECK-LABEL: func.func @pairs
// CHECK-SAME: (%[[A:.*]]: memref<6x4xbf16, {{.*}}>, %[[B:.*]]: memref<4x32xbf16, {{.*}}>, %[[C:.*]]: memref<6x32xf32, {{.*}}>)
// CHECK: %[[P:.*]] = tile.alloc : memref<1x2x64xbf16, #tile.scope<local>>
// CHECK: %[[EVEN:.*]] = vector.load %[[B]][%{{.*}}, %{{.*}}] : memref<4x32xbf16, {{.*}}>, vector<32xbf16>
// CHECK: %[[ODD:.*]] = vector.load %[[B]][%{{.*}}, %{{.*}}] : memref<4x32xbf16, {{.*}}>, vector<32xbf16>
// CHECK: %[[ROW:.*]] = vector.shuffle %[[EVEN]], %[[ODD]] [0, 32, 1, 33, 2, 34
// CHECK: vector.store %[[ROW]], %[[P]]
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args({{.*}}) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>)
// CHECK: %[[B0:.*]] = vector.load %[[P]][%{{.*}}, %[[K]], %{{.*}}] : memref<1x2x64xbf16, {{.*}}>, vector<32xbf16>
// CHECK: %[[PAIR:.*]] = vector.load %[[A]][%{{.*}}, %{{.*}}] : memref<6x4xbf16, {{.*}}>, vector<2xbf16>
// CHECK: %[[BITS:.*]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK: %[[SCALAR:.*]] = vector.extract %[[BITS]][0] : i32 from vector<1xi32>
// CHECK: %[[SPLAT:.*]] = vector.broadcast %[[SCALAR]] : i32 to vector<16xi32>
// CHECK: %[[AS:.*]] = vector.bitcast %[[SPLAT]] : vector<16xi32> to vector<32xbf16>
// CHECK: x86vector.avx512.dot %{{.*}}, %[[AS]], %[[B0]] : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-11: x86vector.avx512.dot
// CHECK-NOT: x86vector.avx512.dot
// CHECK-NOT: tile.gemm
func.func @pairs(%a: memref<6x4xbf16, #tile.scope<shared>>, %b: memref<4x32xbf16, #tile.scope<shared>>, %c: memref<6x32xf32, #tile.scope<fragment>>) {
  tile.gemm %a, %b, %c : memref<6x4xbf16, #tile.scope<shared>>, memref<4x32xbf16, #tile.scope<shared>>, memref<6x32xf32, #tile.scope<fragment>>
  return
}

// -----

// An odd K: B's last pair takes a zero row, and A goes through a scratch
// tile with a zero column (also what a transposed A does).
// CHECK-LABEL: func.func @odd_k
// CHECK-DAG: tile.alloc : memref<1x2x64xbf16, #tile.scope<local>>
// CHECK-DAG: %[[AP:.*]] = tile.alloc : memref<6x4xbf16, #tile.scope<local>>
// CHECK: %[[V:.*]] = memref.load %{{.*}}[%[[KK:.*]], %[[I:.*]]] : memref<3x6xbf16
// CHECK: memref.store %[[V]], %[[AP]][%[[I]], %[[KK]]]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : bf16
// CHECK: memref.store %[[ZERO]], %[[AP]][%{{.*}}, %c3{{.*}}]
// CHECK: %[[NONE:.*]] = arith.constant dense<0.000000e+00> : vector<32xbf16>
// CHECK: vector.shuffle %{{.*}}, %[[NONE]]
// CHECK: x86vector.avx512.dot
func.func @odd_k(%a: memref<3x6xbf16, #tile.scope<shared>>, %b: memref<3x32xbf16, #tile.scope<shared>>, %c: memref<6x32xf32, #tile.scope<fragment>>) {
  tile.gemm %a, %b, %c transpose_a : memref<3x6xbf16, #tile.scope<shared>>, memref<3x32xbf16, #tile.scope<shared>>, memref<6x32xf32, #tile.scope<fragment>>
  return
}

// -----

// Where it does not apply (N not a multiple of 32, or B transposed), the
// f32 path converts the operands and uses fmas.
// CHECK-LABEL: func.func @fallback
// CHECK-NOT: x86vector.avx512.dot
// CHECK: vector.fma
// CHECK-NOT: x86vector.avx512.dot
// CHECK: return
func.func @fallback(%a: memref<6x4xbf16, #tile.scope<shared>>, %b: memref<4x48xbf16, #tile.scope<shared>>, %c: memref<6x48xf32, #tile.scope<fragment>>, %bt: memref<32x4xbf16, #tile.scope<shared>>, %c2: memref<6x32xf32, #tile.scope<fragment>>) {
  tile.gemm %a, %b, %c : memref<6x4xbf16, #tile.scope<shared>>, memref<4x48xbf16, #tile.scope<shared>>, memref<6x48xf32, #tile.scope<fragment>>
  tile.gemm %a, %bt, %c2 transpose_b : memref<6x4xbf16, #tile.scope<shared>>, memref<32x4xbf16, #tile.scope<shared>>, memref<6x32xf32, #tile.scope<fragment>>
  return
}
