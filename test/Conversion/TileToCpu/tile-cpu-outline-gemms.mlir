// RUN: tile-opt %s --tile-cpu-outline-gemms | filecheck %s

// Five gemms of two kinds in one function: each becomes a call, and the
// module gains one noinline function per kind holding that gemm.
// CHECK-LABEL: func.func @many
// CHECK: call @tile_cpu_gemm_0(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>) -> ()
// CHECK-NEXT: call @tile_cpu_gemm_1(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>) -> ()
// CHECK-NEXT: call @tile_cpu_gemm_0(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>) -> ()
// CHECK-NEXT: call @tile_cpu_gemm_1(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>) -> ()
// CHECK-NEXT: call @tile_cpu_gemm_0(%{{.*}}, %{{.*}}, %{{.*}}) : (memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>) -> ()
// CHECK-NOT: tile.gemm
// CHECK: return
func.func @many() {
  %a = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %c = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %c : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %c transpose_b : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %c : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %c transpose_b : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %c : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
  return
}

// Two gemms stay where they are.
// CHECK-LABEL: func.func @few
// CHECK-COUNT-2: tile.gemm
// CHECK-NOT: call
func.func @few() {
  %a = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %b = tile.alloc : memref<8x8xf32, #tile.scope<shared>>
  %c = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %c : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %c : memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<shared>>, memref<8x8xf32, #tile.scope<fragment>>
  return
}

// CHECK: func.func private @tile_cpu_gemm_0(%[[A:.*]]: memref<8x8xf32, #tile.scope<shared>>, %[[B:.*]]: memref<8x8xf32, #tile.scope<shared>>, %[[C:.*]]: memref<8x8xf32, #tile.scope<fragment>>) attributes {passthrough = ["noinline"]}
// CHECK-NEXT: tile.gemm %[[A]], %[[B]], %[[C]] :
// CHECK-NEXT: return
// CHECK: func.func private @tile_cpu_gemm_1(
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} transpose_b
// CHECK-NOT: func.func
