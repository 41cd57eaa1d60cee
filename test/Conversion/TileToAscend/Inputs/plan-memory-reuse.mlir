// Two phases on the vector core whose UB tiles are never live at once: the
// memory planner gives both the same bytes. The barriers order the reuse
// (the copy out of %a finishes before the load into %b starts); the second
// kernel drops the barrier between them and the simulator reports the race
// on the shared bytes.
func.func @reuse(%x: memref<?xf32, #ascend.mem<gm>>, %y: memref<?xf32, #ascend.mem<gm>>,
                 %z: memref<?xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %a[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.pipe_barrier all
  ascend.vbins muls %a, %a, %two : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.pipe_barrier all
  ascend.copy %a[%c0], %z[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  ascend.pipe_barrier all
  ascend.copy %y[%c0], %b[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.pipe_barrier all
  ascend.vbins adds %b, %b, %one : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.pipe_barrier all
  ascend.copy %b[%c0], %z[%c256] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  return
}

func.func @reuse_unsynchronized(%x: memref<?xf32, #ascend.mem<gm>>, %y: memref<?xf32, #ascend.mem<gm>>,
                                %z: memref<?xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %a = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %b = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.copy %x[%c0], %a[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.pipe_barrier all
  ascend.vbins muls %a, %a, %two : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.pipe_barrier all
  ascend.copy %a[%c0], %z[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  ascend.copy %y[%c0], %b[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
  ascend.pipe_barrier all
  ascend.vbins adds %b, %b, %one : memref<256xf32, #ascend.mem<ub>>, f32
  ascend.pipe_barrier all
  ascend.copy %b[%c0], %z[%c256] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  return
}
