// RUN: tile-opt %s -split-input-file --tile-ascend-sync-within-ops | filecheck %s

// An author-synchronized kernel: one T.gemm (line 24) lowered to two L1 -> L0 loads and
// an mmad that reads them; the author's own barrier (line 23) and the fixpipe of the
// next DSL op (line 26) are the author's business. One barrier, before the mmad.

// CHECK-LABEL: func.func @gemm_steps
// CHECK:       ascend.pipe_barrier all
// CHECK-NEXT:  ascend.load_l0a
// CHECK-NEXT:  ascend.load_l0b
// CHECK-NEXT:  ascend.pipe_barrier all
// CHECK-NEXT:  ascend.mmad
// CHECK-NEXT:  ascend.fixpipe
// CHECK-NEXT:  return
func.func @gemm_steps(%out: memref<32x32xf32, #ascend.mem<gm>>)
    attributes {ascend.author_sync, ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %l1 = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l1>>
  %a = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
  ascend.pipe_barrier all loc("k.py":23:5)
  ascend.load_l0a %l1, %a sizes [32, 32] : memref<2x2x16x16xf16, #ascend.mem<l1>>, memref<2x2x16x16xf16, #ascend.mem<l0a>> loc("k.py":24:5)
  ascend.load_l0b %l1, %b sizes [32, 32] : memref<2x2x16x16xf16, #ascend.mem<l1>>, memref<2x2x16x16xf16, #ascend.mem<l0b>> loc("k.py":24:5)
  ascend.mmad %a, %b, %c sizes [32, 32, 32] {init} : memref<2x2x16x16xf16, #ascend.mem<l0a>>, memref<2x2x16x16xf16, #ascend.mem<l0b>>, memref<2x2x16x16xf32, #ascend.mem<l0c>> loc("k.py":24:5)
  ascend.fixpipe %c, %out[%c0, %c0] sizes [32, 32] : memref<2x2x16x16xf32, #ascend.mem<l0c>>, memref<32x32xf32, #ascend.mem<gm>> loc("k.py":26:5)
  return
}

// -----

// A loop that one DSL op made (every op in it at line 30) whose steps conflict across
// iterations gets a barrier at the end of its body too.

// CHECK-LABEL: func.func @owned_loop
// CHECK:       scf.for
// CHECK-NEXT:    ascend.load_l0a
// CHECK-NEXT:    ascend.pipe_barrier all
// CHECK-NEXT:    ascend.mmad
// CHECK-NEXT:    ascend.pipe_barrier all
// CHECK-NEXT:  }
func.func @owned_loop(%n: index)
    attributes {ascend.author_sync, ascend.kernel = #ascend.core<aic>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l1 = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l1>>
  %a = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l0a>>
  %b = memref.alloc() : memref<2x2x16x16xf16, #ascend.mem<l0b>>
  %c = memref.alloc() : memref<2x2x16x16xf32, #ascend.mem<l0c>>
  scf.for %i = %c0 to %n step %c1 {
    ascend.load_l0a %l1, %a sizes [32, 32] : memref<2x2x16x16xf16, #ascend.mem<l1>>, memref<2x2x16x16xf16, #ascend.mem<l0a>> loc("k.py":30:5)
    ascend.mmad %a, %b, %c sizes [32, 32, 32] : memref<2x2x16x16xf16, #ascend.mem<l0a>>, memref<2x2x16x16xf16, #ascend.mem<l0b>>, memref<2x2x16x16xf32, #ascend.mem<l0c>> loc("k.py":30:5)
  } loc("k.py":30:5)
  return
}

// -----

// tilec synchronizes a kernel its author did not: nothing here.

// CHECK-LABEL: func.func @tilecs
// CHECK-NOT:   ascend.pipe_barrier
func.func @tilecs() attributes {ascend.kernel = #ascend.core<aiv>} {
  %x = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.vunary exp %x, %x : memref<64xf32, #ascend.mem<ub>> loc("k.py":3:5)
  ascend.vunary exp %x, %x : memref<64xf32, #ascend.mem<ub>> loc("k.py":3:5)
  return
}
