// z = x + y and m = the element-wise max of z over 256-element chunks, with
// a pipe_barrier after every step so that any copy of the body is race-free
// without the sync pass: multi-buffering and planning must keep the numbers.
func.func @vadd_max(%x: memref<?xf32, #ascend.mem<gm>>, %y: memref<?xf32, #ascend.mem<gm>>,
                    %z: memref<?xf32, #ascend.mem<gm>>, %m: memref<256xf32, #ascend.mem<gm>>,
                    %n: index) attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %low = arith.constant -1.0e30 : f32
  %ub_x = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %ub_y = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %ub_z = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  %ub_m = memref.alloc() : memref<256xf32, #ascend.mem<ub>>
  ascend.vdup %ub_m, %low : memref<256xf32, #ascend.mem<ub>>, f32
  scf.for %i = %c0 to %n step %c256 {
    ascend.pipe_barrier all
    ascend.copy %x[%i], %ub_x[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
    ascend.copy %y[%i], %ub_y[%c0] sizes [256] : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, #ascend.mem<ub>>
    ascend.pipe_barrier all
    ascend.vbin add %ub_z, %ub_x, %ub_y : memref<256xf32, #ascend.mem<ub>>
    ascend.pipe_barrier v
    ascend.vbin max %ub_m, %ub_m, %ub_z : memref<256xf32, #ascend.mem<ub>>
    ascend.pipe_barrier all
    ascend.copy %ub_z[%c0], %z[%i] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
  } {tile.num_stages = 2 : i64}
  ascend.pipe_barrier all
  ascend.copy %ub_m[%c0], %m[%c0] sizes [256] : memref<256xf32, #ascend.mem<ub>>, memref<256xf32, #ascend.mem<gm>>
  return
}
