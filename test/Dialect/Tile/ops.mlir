// RUN: tile-opt %s | tile-opt | filecheck %s

// CHECK-LABEL: func.func @kernel_1d
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: tile.kernel blocks(%[[BX:.*]]) in (%[[N]]) threads = 32 {
// CHECK-NEXT: arith.addi %[[BX]], %[[BX]] : index
// CHECK-NEXT: }
func.func @kernel_1d(%n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %0 = arith.addi %bx, %bx : index
  }
  return
}

// CHECK-LABEL: func.func @kernel_3d
// CHECK-SAME: (%[[X:.*]]: index, %[[Y:.*]]: index, %[[Z:.*]]: index)
// CHECK: tile.kernel blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%[[X]], %[[Y]], %[[Z]]) threads = 256 attributes {note = "keep"} {
func.func @kernel_3d(%x: index, %y: index, %z: index) {
  tile.kernel blocks(%bx, %by, %bz) in (%x, %y, %z) threads = 256 attributes {note = "keep"} {
  }
  return
}

// CHECK-LABEL: func.func @kernel_explicit_yield
// CHECK: tile.kernel blocks(%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}}) threads = 128 {
// CHECK-NOT: tile.yield
func.func @kernel_explicit_yield(%x: index, %y: index) {
  tile.kernel blocks(%bx, %by) in (%x, %y) threads = 128 {
    tile.yield
  }
  return
}

// CHECK-LABEL: func.func @alloc
// CHECK: tile.alloc : memref<64x32xf16, #tile.scope<shared>>
// CHECK: tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
// CHECK: tile.alloc : memref<4xi32, #tile.scope<local>>
// CHECK: tile.alloc : memref<128x64xf16, #tile.scope<l1>>
// CHECK: tile.alloc : memref<64x64xf16, #tile.scope<l0a>>
// CHECK: tile.alloc : memref<64x64xf16, #tile.scope<l0b>>
// CHECK: tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
// CHECK: tile.alloc : memref<f32, #tile.scope<ub>>
func.func @alloc() {
  %0 = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
  %1 = tile.alloc : memref<64x64xf32, #tile.scope<fragment>>
  %2 = tile.alloc : memref<4xi32, #tile.scope<local>>
  %3 = tile.alloc : memref<128x64xf16, #tile.scope<l1>>
  %4 = tile.alloc : memref<64x64xf16, #tile.scope<l0a>>
  %5 = tile.alloc : memref<64x64xf16, #tile.scope<l0b>>
  %6 = tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
  %7 = tile.alloc : memref<f32, #tile.scope<ub>>
  return
}

// CHECK-LABEL: func.func @copy_forms
// CHECK-SAME: (%[[A:[^:]*]]: memref<?x?xf16>, %[[Q:[^:]*]]: memref<?x?x?x?xf16>, %[[I:[^:]*]]: index, %[[J:[^:]*]]: index, %[[P:[^:]*]]: f16)
func.func @copy_forms(%A: memref<?x?xf16>, %Q: memref<?x?x?x?xf16>, %i: index, %j: index, %p: f16) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : memref<64x32xf16, #tile.scope<shared>>
  %q = tile.alloc : memref<64x128xf16, #tile.scope<shared>>
  %f = tile.alloc : memref<64x32xf32, #tile.scope<fragment>>
  // CHECK: tile.copy %[[A]][%[[I]], %[[J]]], %[[S:.*]][%[[C0:.*]], %[[C0]]] : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
  tile.copy %A[%i, %j], %s[%c0, %c0] : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
  // CHECK: tile.copy %[[A]][%[[I]], %[[J]]], %[[S]][%[[C0]], %[[C0]]] sizes [32, 32] : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
  tile.copy %A[%i, %j], %s[%c0, %c0] sizes [32, 32] : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
  // CHECK: tile.copy %[[A]][%[[I]], %[[J]]], %[[S]][%[[C0]], %[[C0]]] pad(%[[P]] : f16) : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
  tile.copy %A[%i, %j], %s[%c0, %c0] pad(%p : f16) : memref<?x?xf16>, memref<64x32xf16, #tile.scope<shared>>
  // CHECK: tile.copy %[[Q]][%[[C0]], %[[I]], %[[J]], %[[C0]]], %{{.*}}[%[[C0]], %[[C0]]] sizes [1, 64, 1, 128] pad(%[[P]] : f16) : memref<?x?x?x?xf16>, memref<64x128xf16, #tile.scope<shared>>
  tile.copy %Q[%c0, %i, %j, %c0], %q[%c0, %c0] sizes [1, 64, 1, 128] pad(%p : f16) : memref<?x?x?x?xf16>, memref<64x128xf16, #tile.scope<shared>>
  // CHECK: tile.copy %[[S]][%[[C0]], %[[C0]]], %{{.*}}[%[[C0]], %[[C0]]] : memref<64x32xf16, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<fragment>>
  tile.copy %s[%c0, %c0], %f[%c0, %c0] : memref<64x32xf16, #tile.scope<shared>>, memref<64x32xf32, #tile.scope<fragment>>
  // CHECK: tile.copy %{{.*}}[%[[C0]], %[[C0]]], %[[A]][%[[I]], %[[J]]] : memref<64x32xf32, #tile.scope<fragment>>, memref<?x?xf16>
  tile.copy %f[%c0, %c0], %A[%i, %j] : memref<64x32xf32, #tile.scope<fragment>>, memref<?x?xf16>
  // CHECK: tile.copy %[[A]][%[[I]], %[[J]]], %[[A]][%[[J]], %[[I]]] sizes [16, 16] : memref<?x?xf16>, memref<?x?xf16>
  tile.copy %A[%i, %j], %A[%j, %i] sizes [16, 16] : memref<?x?xf16>, memref<?x?xf16>
  return
}

// A global tensor may be empty (copies clip to it); only tiles must not be.
// CHECK-LABEL: func.func @copy_empty_global
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] : memref<0x16xf32>, memref<4x16xf32, #tile.scope<fragment>>
func.func @copy_empty_global(%A: memref<0x16xf32>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : memref<4x16xf32, #tile.scope<fragment>>
  tile.copy %A[%c0, %c0], %t[%c0, %c0] : memref<0x16xf32>, memref<4x16xf32, #tile.scope<fragment>>
  return
}

// CHECK-LABEL: func.func @copy_ascend_paths
func.func @copy_ascend_paths(%A: memref<?x?xf16>, %C: memref<?x?xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %l1 = tile.alloc : memref<64x64xf16, #tile.scope<l1>>
  %l0a = tile.alloc : memref<64x64xf16, #tile.scope<l0a>>
  %l0b = tile.alloc : memref<64x64xf16, #tile.scope<l0b>>
  %l0c = tile.alloc : memref<64x64xf32, #tile.scope<l0c>>
  %ub = tile.alloc : memref<64x64xf16, #tile.scope<ub>>
  %ub32 = tile.alloc : memref<64x64xf32, #tile.scope<ub>>
  // CHECK: tile.copy {{.*}} : memref<?x?xf16>, memref<64x64xf16, #tile.scope<l1>>
  tile.copy %A[%i, %c0], %l1[%c0, %c0] : memref<?x?xf16>, memref<64x64xf16, #tile.scope<l1>>
  // CHECK: tile.copy {{.*}} : memref<?x?xf16>, memref<64x64xf16, #tile.scope<ub>>
  tile.copy %A[%i, %c0], %ub[%c0, %c0] : memref<?x?xf16>, memref<64x64xf16, #tile.scope<ub>>
  // CHECK: tile.copy {{.*}} : memref<64x64xf16, #tile.scope<ub>>, memref<?x?xf16>
  tile.copy %ub[%c0, %c0], %A[%i, %c0] : memref<64x64xf16, #tile.scope<ub>>, memref<?x?xf16>
  // CHECK: tile.copy {{.*}} : memref<64x64xf16, #tile.scope<l1>>, memref<64x64xf16, #tile.scope<l0a>>
  tile.copy %l1[%c0, %c0], %l0a[%c0, %c0] : memref<64x64xf16, #tile.scope<l1>>, memref<64x64xf16, #tile.scope<l0a>>
  // CHECK: tile.copy {{.*}} : memref<64x64xf16, #tile.scope<l1>>, memref<64x64xf16, #tile.scope<l0b>>
  tile.copy %l1[%c0, %c0], %l0b[%c0, %c0] : memref<64x64xf16, #tile.scope<l1>>, memref<64x64xf16, #tile.scope<l0b>>
  // CHECK: tile.copy {{.*}} : memref<64x64xf32, #tile.scope<l0c>>, memref<?x?xf32>
  tile.copy %l0c[%c0, %c0], %C[%i, %c0] : memref<64x64xf32, #tile.scope<l0c>>, memref<?x?xf32>
  // CHECK: tile.copy {{.*}} : memref<64x64xf32, #tile.scope<l0c>>, memref<64x64xf32, #tile.scope<ub>>
  tile.copy %l0c[%c0, %c0], %ub32[%c0, %c0] : memref<64x64xf32, #tile.scope<l0c>>, memref<64x64xf32, #tile.scope<ub>>
  // CHECK: tile.copy {{.*}} : memref<64x64xf16, #tile.scope<ub>>, memref<64x64xf16, #tile.scope<l1>>
  tile.copy %ub[%c0, %c0], %l1[%c0, %c0] : memref<64x64xf16, #tile.scope<ub>>, memref<64x64xf16, #tile.scope<l1>>
  // CHECK: tile.copy {{.*}} : memref<64x64xf16, #tile.scope<l1>>, memref<64x64xf16, #tile.scope<ub>>
  tile.copy %l1[%c0, %c0], %ub[%c0, %c0] : memref<64x64xf16, #tile.scope<l1>>, memref<64x64xf16, #tile.scope<ub>>
  // CHECK: tile.copy {{.*}} : memref<64x64xf32, #tile.scope<ub>>, memref<64x64xf16, #tile.scope<ub>>
  tile.copy %ub32[%c0, %c0], %ub[%c0, %c0] : memref<64x64xf32, #tile.scope<ub>>, memref<64x64xf16, #tile.scope<ub>>
  return
}

// CHECK-LABEL: func.func @copy_lower_rank_tile
// CHECK: tile.copy %{{.*}}[%{{.*}}], %{{.*}}[%{{.*}}, %{{.*}}] sizes [1, 128] : memref<128xf32, #tile.scope<fragment>>, memref<?x?xf32>
func.func @copy_lower_rank_tile(%out: memref<?x?xf32>, %i: index) {
  %c0 = arith.constant 0 : index
  %row = tile.alloc : memref<128xf32, #tile.scope<fragment>>
  tile.copy %row[%c0], %out[%i, %c0] sizes [1, 128] : memref<128xf32, #tile.scope<fragment>>, memref<?x?xf32>
  return
}

// CHECK-LABEL: func.func @fill_clear
// CHECK-SAME: (%[[T:.*]]: memref<64x64xf32, #tile.scope<fragment>>, %[[V:.*]]: f32, %[[U:.*]]: memref<16xi8, #tile.scope<ub>>, %[[B:.*]]: i8)
// CHECK: tile.fill %[[T]], %[[V]] : memref<64x64xf32, #tile.scope<fragment>>, f32
// CHECK: tile.fill %[[U]], %[[B]] : memref<16xi8, #tile.scope<ub>>, i8
// CHECK: tile.clear %[[T]] : memref<64x64xf32, #tile.scope<fragment>>
func.func @fill_clear(%t: memref<64x64xf32, #tile.scope<fragment>>, %v: f32, %u: memref<16xi8, #tile.scope<ub>>, %b: i8) {
  tile.fill %t, %v : memref<64x64xf32, #tile.scope<fragment>>, f32
  tile.fill %u, %b : memref<16xi8, #tile.scope<ub>>, i8
  tile.clear %t : memref<64x64xf32, #tile.scope<fragment>>
  return
}

// CHECK-LABEL: func.func @gemm_forms
// CHECK-SAME: (%[[A:[^:]*]]: memref<64x32xf16, #tile.scope<shared>>, %[[AT:[^:]*]]: memref<32x64xf16, #tile.scope<shared>>, %[[B:[^:]*]]: memref<32x16xf16, #tile.scope<shared>>, %[[BT:[^:]*]]: memref<16x32xf16, #tile.scope<fragment>>, %[[C:[^:]*]]: memref<64x16xf32, #tile.scope<fragment>>, %[[H:[^:]*]]: memref<64x16xf16, #tile.scope<local>>)
func.func @gemm_forms(%a: memref<64x32xf16, #tile.scope<shared>>, %at: memref<32x64xf16, #tile.scope<shared>>,
                      %b: memref<32x16xf16, #tile.scope<shared>>, %bt: memref<16x32xf16, #tile.scope<fragment>>,
                      %c: memref<64x16xf32, #tile.scope<fragment>>, %h: memref<64x16xf16, #tile.scope<local>>) {
  // CHECK: tile.gemm %[[A]], %[[B]], %[[C]] : memref<64x32xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  tile.gemm %a, %b, %c : memref<64x32xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  // CHECK: tile.gemm %[[AT]], %[[B]], %[[C]] transpose_a : memref<32x64xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  tile.gemm %at, %b, %c transpose_a : memref<32x64xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf32, #tile.scope<fragment>>
  // CHECK: tile.gemm %[[A]], %[[BT]], %[[C]] transpose_b : memref<64x32xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<fragment>>, memref<64x16xf32, #tile.scope<fragment>>
  tile.gemm %a, %bt, %c transpose_b : memref<64x32xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<fragment>>, memref<64x16xf32, #tile.scope<fragment>>
  // CHECK: tile.gemm %[[A]], %[[B]], %[[H]] clear_accum : memref<64x32xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf16, #tile.scope<local>>
  tile.gemm %a, %b, %h clear_accum : memref<64x32xf16, #tile.scope<shared>>, memref<32x16xf16, #tile.scope<shared>>, memref<64x16xf16, #tile.scope<local>>
  // CHECK: tile.gemm %[[AT]], %[[BT]], %[[C]] transpose_a transpose_b clear_accum : memref<32x64xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<fragment>>, memref<64x16xf32, #tile.scope<fragment>>
  tile.gemm %at, %bt, %c transpose_a transpose_b clear_accum : memref<32x64xf16, #tile.scope<shared>>, memref<16x32xf16, #tile.scope<fragment>>, memref<64x16xf32, #tile.scope<fragment>>
  return
}

// CHECK-LABEL: func.func @gemm_element_types
// CHECK: tile.gemm {{.*}} : memref<16x16xbf16, #tile.scope<shared>>, memref<16x16xbf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
// CHECK: tile.gemm {{.*}} : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
// CHECK: tile.gemm {{.*}} : memref<16x32xf8E4M3FN, #tile.scope<shared>>, memref<32x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
// CHECK: tile.gemm {{.*}} : memref<16x32xi8, #tile.scope<l1>>, memref<32x16xi8, #tile.scope<l0b>>, memref<16x16xi32, #tile.scope<l0c>>
func.func @gemm_element_types(%a: memref<16x16xbf16, #tile.scope<shared>>, %c: memref<16x16xf32, #tile.scope<fragment>>,
                              %a32: memref<16x16xf32, #tile.scope<shared>>,
                              %a8: memref<16x32xf8E4M3FN, #tile.scope<shared>>, %b8: memref<32x16xf8E4M3FN, #tile.scope<shared>>,
                              %ai: memref<16x32xi8, #tile.scope<l1>>, %bi: memref<32x16xi8, #tile.scope<l0b>>,
                              %ci: memref<16x16xi32, #tile.scope<l0c>>) {
  tile.gemm %a, %a, %c : memref<16x16xbf16, #tile.scope<shared>>, memref<16x16xbf16, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.gemm %a32, %a32, %c : memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.gemm %a8, %b8, %c : memref<16x32xf8E4M3FN, #tile.scope<shared>>, memref<32x16xf8E4M3FN, #tile.scope<shared>>, memref<16x16xf32, #tile.scope<fragment>>
  tile.gemm %ai, %bi, %ci : memref<16x32xi8, #tile.scope<l1>>, memref<32x16xi8, #tile.scope<l0b>>, memref<16x16xi32, #tile.scope<l0c>>
  return
}

// CHECK-LABEL: func.func @reduce_kinds
// CHECK-SAME: (%[[S:[^:]*]]: memref<64x128xf32, #tile.scope<fragment>>, %[[R:[^:]*]]: memref<64xf32, #tile.scope<fragment>>, %[[C:[^:]*]]: memref<128xf32, #tile.scope<fragment>>, %[[V:[^:]*]]: memref<128xf32, #tile.scope<ub>>, %[[O:[^:]*]]: memref<1xf32, #tile.scope<ub>>)
// CHECK: tile.reduce sum %[[S]], %[[R]] dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
// CHECK: tile.reduce max %[[S]], %[[R]] dim = 1 clear = false : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
// CHECK: tile.reduce min %[[S]], %[[C]] dim = 0 : memref<64x128xf32, #tile.scope<fragment>>, memref<128xf32, #tile.scope<fragment>>
// CHECK: tile.reduce abssum %[[S]], %[[R]] dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
// CHECK: tile.reduce absmax %[[V]], %[[O]] dim = 0 : memref<128xf32, #tile.scope<ub>>, memref<1xf32, #tile.scope<ub>>
func.func @reduce_kinds(%s: memref<64x128xf32, #tile.scope<fragment>>, %r: memref<64xf32, #tile.scope<fragment>>,
                        %c: memref<128xf32, #tile.scope<fragment>>, %v: memref<128xf32, #tile.scope<ub>>,
                        %o: memref<1xf32, #tile.scope<ub>>) {
  tile.reduce sum %s, %r dim = 1 clear = true : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
  tile.reduce max %s, %r dim = 1 clear = false : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
  tile.reduce min %s, %c dim = 0 : memref<64x128xf32, #tile.scope<fragment>>, memref<128xf32, #tile.scope<fragment>>
  tile.reduce abssum %s, %r dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64xf32, #tile.scope<fragment>>
  tile.reduce absmax %v, %o dim = 0 : memref<128xf32, #tile.scope<ub>>, memref<1xf32, #tile.scope<ub>>
  return
}

// CHECK-LABEL: func.func @reduce_kind_attr
// CHECK-SAME: attributes {kind = #tile.reduce_kind<absmax>}
func.func @reduce_kind_attr() attributes {kind = #tile.reduce_kind<absmax>} {
  return
}

// CHECK-LABEL: func.func @cumsum
// CHECK-SAME: (%[[S:[^:]*]]: memref<64x128xf32, #tile.scope<fragment>>, %[[D:[^:]*]]: memref<64x128xf32, #tile.scope<fragment>>)
// CHECK: tile.cumsum %[[S]], %[[D]] dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
// CHECK: tile.cumsum %[[S]], %[[D]] dim = 0 : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
// CHECK: tile.cumsum %[[S]], %[[S]] dim = 0 reverse = true : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
func.func @cumsum(%s: memref<64x128xf32, #tile.scope<fragment>>, %d: memref<64x128xf32, #tile.scope<fragment>>) {
  tile.cumsum %s, %d dim = 1 : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
  tile.cumsum %s, %d dim = 0 reverse = false : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
  tile.cumsum %s, %s dim = 0 reverse = true : memref<64x128xf32, #tile.scope<fragment>>, memref<64x128xf32, #tile.scope<fragment>>
  return
}

// CHECK-LABEL: func.func @parallel
// CHECK-SAME: (%[[T:[^:]*]]: memref<64x128xf32, #tile.scope<fragment>>, %[[V:[^:]*]]: memref<8xf32, #tile.scope<local>>)
// CHECK: tile.parallel (%[[I:.*]], %[[J:.*]]) in (64, 128) {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[T]][%[[I]], %[[J]]]
// CHECK-NEXT: %[[Y:.*]] = math.exp %[[X]] : f32
// CHECK-NEXT: memref.store %[[Y]], %[[T]][%[[I]], %[[J]]]
// CHECK-NEXT: }
// CHECK: tile.parallel (%[[K:.*]]) in (8) attributes {unroll} {
// CHECK-NEXT: memref.load %[[V]][%[[K]]]
func.func @parallel(%t: memref<64x128xf32, #tile.scope<fragment>>, %v: memref<8xf32, #tile.scope<local>>) {
  tile.parallel (%i, %j) in (64, 128) {
    %x = memref.load %t[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
    %y = math.exp %x : f32
    memref.store %y, %t[%i, %j] : memref<64x128xf32, #tile.scope<fragment>>
  }
  tile.parallel (%k) in (8) attributes {unroll} {
    %x = memref.load %v[%k] : memref<8xf32, #tile.scope<local>>
    tile.yield
  }
  return
}

// CHECK-LABEL: func.func @pipelined
// CHECK-SAME: (%[[LB:[^:]*]]: index, %[[UB:[^:]*]]: index, %[[ST:[^:]*]]: index, %[[A:[^:]*]]: memref<?x?xf16>)
// CHECK: tile.pipelined %[[K:.*]] = %[[LB]] to %[[UB]] step %[[ST]] num_stages = 3 {
// CHECK: tile.copy %[[A]][%[[K]], %[[K]]]
// CHECK: tile.pipelined %{{.*}} = %[[LB]] to %[[UB]] step %[[ST]] num_stages = 1 attributes {order = [0, 1]} {
func.func @pipelined(%lb: index, %ub: index, %step: index, %A: memref<?x?xf16>) {
  %c0 = arith.constant 0 : index
  %t = tile.alloc : memref<64x64xf16, #tile.scope<shared>>
  tile.pipelined %k = %lb to %ub step %step num_stages = 3 {
    tile.copy %A[%k, %k], %t[%c0, %c0] : memref<?x?xf16>, memref<64x64xf16, #tile.scope<shared>>
  }
  tile.pipelined %k = %lb to %ub step %step num_stages = 1 attributes {order = [0, 1]} {
    tile.yield
  }
  return
}

// CHECK-LABEL: func.func @atomic_add
// CHECK-SAME: (%[[OUT:[^:]*]]: memref<?x?xf32>, %[[T:[^:]*]]: memref<64x64xf32, #tile.scope<fragment>>, %[[CNT:[^:]*]]: memref<?xi32>, %[[V:[^:]*]]: i32, %[[I:[^:]*]]: index)
// CHECK: tile.atomic_add %[[T]], %[[OUT]][%[[I]], %[[I]]] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xf32>
// CHECK: tile.atomic_add %[[V]], %[[CNT]][%[[I]]] : i32, memref<?xi32>
func.func @atomic_add(%out: memref<?x?xf32>, %t: memref<64x64xf32, #tile.scope<fragment>>, %cnt: memref<?xi32>, %v: i32, %i: index) {
  tile.atomic_add %t, %out[%i, %i] : memref<64x64xf32, #tile.scope<fragment>>, memref<?x?xf32>
  tile.atomic_add %v, %cnt[%i] : i32, memref<?xi32>
  return
}

// CHECK-LABEL: func.func @barrier
// CHECK: tile.barrier
func.func @barrier() {
  tile.barrier
  return
}
