// RUN: tile-opt %s --convert-tile-to-cuda --canonicalize --cse | filecheck %s
// RUN: tile-opt %s --convert-tile-to-cuda=target=cuda:sm_90a --canonicalize --cse | filecheck %s --check-prefix=SM90

// A register tile is added by the threads that hold it, slot by slot,
// dropping elements past the end of the destination, each with a `red` on
// the element's global address (no result comes back); a scalar is added
// once per block, by thread 0.
// CHECK-LABEL: func.func @atomic_add
// CHECK-SAME: (%[[G:arg[0-9]+]]: memref<?x?xf32>, %[[V:arg[0-9]+]]: f32
// CHECK: %[[R:.*]] = memref.alloca() {tile.cuda_layout = "cyclic"{{.*}}} : memref<2xf32>
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK: %[[COL:.*]] = arith.remui %[[TID]], %c8 : index
// CHECK: %[[ROW:.*]] = arith.divui %[[TID]], %c8 : index
// CHECK: %[[AT:.*]] = arith.addi %{{.*}}, %[[ROW]] : index
// CHECK: %[[ROWS:.*]] = memref.dim %[[G]], %c0
// CHECK: arith.cmpi ult, %[[AT]], %[[ROWS]] : index
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: %[[X:.*]] = memref.load %[[R]][%c0] : memref<2xf32>
// CHECK-NEXT: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[G]]
// CHECK-NEXT: %[[LINE:.*]] = arith.muli %[[AT]], %[[STRIDES]]#0 : index
// CHECK-NEXT: %[[ELEMENT:.*]] = arith.addi %[[LINE]], %[[COL]] : index
// CHECK-NEXT: %[[BASE:.*]] = memref.extract_aligned_pointer_as_index %[[G]]
// CHECK-NEXT: %[[BYTES:.*]] = arith.muli %[[ELEMENT]], %c4 : index
// CHECK-NEXT: %[[ADDRESS:.*]] = arith.addi %[[BASE]], %[[BYTES]] : index
// CHECK-NEXT: %[[I64:.*]] = arith.index_cast %[[ADDRESS]] : index to i64
// CHECK-NEXT: %[[GENERIC:.*]] = llvm.inttoptr %[[I64]] : i64 to !llvm.ptr
// CHECK-NEXT: %[[GLOBAL:.*]] = llvm.addrspacecast %[[GENERIC]] : !llvm.ptr to !llvm.ptr<1>
// CHECK-NEXT: llvm.inline_asm has_side_effects "red.global.add.f32 [$0], $1;", "l,f,~{memory}" %[[GLOBAL]], %[[X]] : (!llvm.ptr<1>, f32) -> ()
// CHECK: memref.load %[[R]][%c1] : memref<2xf32>
// CHECK: "red.global.add.f32 [$0], $1;"
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[TID]], %c0 : index
// CHECK: %[[ONCE:.*]] = arith.andi %[[FIRST]], %{{.*}} : i1
// CHECK: scf.if %[[ONCE]] {
// CHECK: llvm.inline_asm has_side_effects "red.global.add.f32 [$0], $1;", "l,f,~{memory}" %{{.*}}, %[[V]]
// CHECK-NOT: memref.atomic_rmw
func.func @atomic_add(%G: memref<?x?xf32>, %v: f32, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %c0 = arith.constant 0 : index
    %r = tile.alloc : memref<8x8xf32, #tile.scope<fragment>>
    tile.fill %r, %v : memref<8x8xf32, #tile.scope<fragment>>, f32
    tile.atomic_add %r, %G[%bx, %c0] : memref<8x8xf32, #tile.scope<fragment>>, memref<?x?xf32>
    tile.atomic_add %v, %G[%c0, %bx] : f32, memref<?x?xf32>
  }
  return
}

// A shared 16-bit float tile is dealt in pairs of a row: one f16x2 red when
// both elements are inside and the pair's address is 4-byte aligned, else
// one red each. bf16 has red only from sm_90: before it, an atomic
// read-modify-write (a compare-and-swap loop).
// CHECK-LABEL: func.func @pairs
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %{{.*}}, %c0 : index
// CHECK: %[[BOTH:.*]] = arith.andi %{{.*}}, %[[ALIGNED]] : i1
// CHECK: scf.if %[[BOTH]] {
// CHECK: %[[PAIR:.*]] = vector.from_elements %{{.*}}, %{{.*}} : vector<2xf16>
// CHECK: %[[WORD:.*]] = vector.bitcast %[[PAIR]] : vector<2xf16> to vector<1xi32>
// CHECK: %[[PACKED:.*]] = vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// CHECK: llvm.inline_asm has_side_effects "red.global.add.noftz.f16x2 [$0], $1;", "l,r,~{memory}" %{{.*}}, %[[PACKED]]
// CHECK: } else {
// CHECK: "red.global.add.noftz.f16 [$0], $1;", "l,h,~{memory}"
// CHECK: "red.global.add.noftz.f16 [$0], $1;", "l,h,~{memory}"
// CHECK: memref.atomic_rmw addf %{{.*}} : (bf16, memref<?x?xbf16>) -> bf16
// SM90-LABEL: func.func @pairs
// SM90: "red.global.add.noftz.f16x2 [$0], $1;"
// SM90: "red.global.add.noftz.bf16x2 [$0], $1;"
// SM90: "red.global.add.noftz.bf16 [$0], $1;", "l,h,~{memory}"
// SM90-NOT: memref.atomic_rmw
func.func @pairs(%H: memref<?x?xf16>, %B: memref<?x?xbf16>, %h: f16, %b: bf16, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    %c0 = arith.constant 0 : index
    %s = tile.alloc : memref<8x8xf16, #tile.scope<shared>>
    tile.fill %s, %h : memref<8x8xf16, #tile.scope<shared>>, f16
    tile.atomic_add %s, %H[%bx, %c0] : memref<8x8xf16, #tile.scope<shared>>, memref<?x?xf16>
    %t = tile.alloc : memref<4x6xbf16, #tile.scope<shared>>
    tile.fill %t, %b : memref<4x6xbf16, #tile.scope<shared>>, bf16
    tile.atomic_add %t, %B[%bx, %c0] : memref<4x6xbf16, #tile.scope<shared>>, memref<?x?xbf16>
  }
  return
}

// An element add written as memref.atomic_rmw (the DSL's T.atomic_add on one
// element) becomes a `red` when nobody reads the old value; one whose old
// value is used stays an atomic (an `atom`), and so does a type `red` lacks.
// CHECK-LABEL: func.func @element_adds
// CHECK: "red.global.add.f32 [$0], $1;", "l,f,~{memory}"
// CHECK: %[[OLD:.*]] = memref.atomic_rmw addf %{{.*}} : (f32, memref<?xf32>) -> f32
// CHECK: memref.store %[[OLD]]
// CHECK: memref.atomic_rmw addf %{{.*}} : (bf16, memref<?xbf16>) -> bf16
// SM90-LABEL: func.func @element_adds
// SM90: "red.global.add.f32 [$0], $1;"
// SM90: memref.atomic_rmw addf %{{.*}} : (f32, memref<?xf32>) -> f32
// SM90: "red.global.add.noftz.bf16 [$0], $1;"
func.func @element_adds(%G: memref<?xf32>, %O: memref<?xf32>, %B: memref<?xbf16>, %v: f32,
                        %b: bf16, %n: index) {
  tile.kernel blocks(%bx) in (%n) threads = 32 {
    tile.parallel (%i) in (32) {
      %unused = memref.atomic_rmw addf %v, %G[%i] : (f32, memref<?xf32>) -> f32
      %old = memref.atomic_rmw addf %v, %G[%bx] : (f32, memref<?xf32>) -> f32
      memref.store %old, %O[%i] : memref<?xf32>
      %dropped = memref.atomic_rmw addf %b, %B[%i] : (bf16, memref<?xbf16>) -> bf16
      tile.yield
    }
  }
  return
}
