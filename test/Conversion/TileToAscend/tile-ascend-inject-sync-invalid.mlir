// RUN: tile-opt %s -split-input-file --tile-ascend-inject-sync --verify-diagnostics

// Nine loads whose flags to the vector pipe are all pending at once (MTE2
// may finish them all before V waits for the first): one more than the
// event ids of a pipe. An error, never a silent PIPE_ALL barrier.
func.func @many_loads(%x: memref<64xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %b0 = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b1 = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b2 = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b3 = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b4 = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b5 = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b6 = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b7 = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %b8 = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %b0[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %b1[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %b2[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %b3[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %b4[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %b5[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %b6[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %b7[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  // expected-error @+1 {{tile-ascend-inject-sync: out of event ids for flags from the mte2 pipe (to v): 9 would be pending at once, the 910b profile has 8 ids per pipe; use fewer multi-buffer stages}}
  ascend.copy %x[%c0], %b8[%c0] sizes [64] : memref<64xf32, #ascend.mem<gm>>, memref<64xf32, #ascend.mem<ub>>
  ascend.vbins muls %b0, %b0, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %b1, %b1, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %b2, %b2, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %b3, %b3, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %b4, %b4, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %b5, %b5, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %b6, %b6, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %b7, %b7, %two : memref<64xf32, #ascend.mem<ub>>, f32
  ascend.vbins muls %b8, %b8, %two : memref<64xf32, #ascend.mem<ub>>, f32
  return
}

// -----

// Flags already there: the pass runs once, on IR without them.
func.func @synchronized() attributes {ascend.kernel = #ascend.core<aiv>} {
  // expected-error @+1 {{tile-ascend-inject-sync: 'ascend.set_flag' is already in the kernel: the pass synchronizes ascend IR that has no flags yet}}
  ascend.set_flag mte2 -> v, 0
  ascend.wait_flag mte2 -> v, 0
  return
}

// -----

// A while loop is followed when its test is scalar code; one whose test reads
// a buffer is not.
func.func @while_loop(%n: index) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %flags = memref.alloc() : memref<64xi32, #ascend.mem<ub>>
  // expected-error @+1 {{tile-ascend-inject-sync: cannot synchronize a 'scf.while' whose condition region touches buffers (not supported yet)}}
  %r = scf.while (%i = %c0) : (index) -> index {
    %f = memref.load %flags[%i] : memref<64xi32, #ascend.mem<ub>>
    %zero = arith.constant 0 : i32
    %go = arith.cmpi ne, %f, %zero : i32
    scf.condition(%go) %i : index
  } do {
  ^bb0(%j: index):
    scf.yield %j : index
  }
  return
}

// -----

// An op whose pipe and bytes the pass does not know.
func.func @unknown() attributes {ascend.kernel = #ascend.core<aiv>} {
  %x = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  %y = memref.alloc() : memref<64xf32, #ascend.mem<ub>>
  // expected-error @+1 {{tile-ascend-inject-sync: cannot synchronize 'memref.copy': its pipe and memory accesses are unknown}}
  memref.copy %x, %y : memref<64xf32, #ascend.mem<ub>> to memref<64xf32, #ascend.mem<ub>>
  return
}
