// z = x + y for f32 vectors of dynamic length n on the vector cores (AIV).
//
// The vector is cut into 256-element chunks and the chunks into pairs; block
// b takes pairs b, b + block_num, ... The first chunk of a pair lives in UB
// slot 0 and uses event id 0, the second in slot 1 with event id 1, so the
// MTE2 loads of one chunk overlap the vector add and the MTE3 store of the
// other. The last chunk may run past n: its out-of-range GM reads are zero
// and its out-of-range GM writes are dropped. A pair whose second chunk
// starts at or past n skips that chunk.
//
// Flags, per slot s:
//   mte2 -> v, s   x_s and y_s are loaded before the add reads them     (RAW)
//   v -> mte3, s   z_s is computed before the store reads it            (RAW)
//   v -> mte2, s   the add has read x_s, y_s before they are reloaded   (WAR)
//   mte3 -> v, s   the store has read z_s before the add rewrites it    (WAR)
// The WAR flags are set once before the loop ("slot free") and waited once
// after it, so every set_flag is consumed by exactly one wait_flag and no
// flag is set twice.
func.func @vadd(%x: memref<?xf32, #ascend.mem<gm>>, %y: memref<?xf32, #ascend.mem<gm>>,
                %z: memref<?xf32, #ascend.mem<gm>>, %n: index)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %c511 = arith.constant 511 : index
  %c512 = arith.constant 512 : index
  %block = ascend.block_idx : index
  %blocks = ascend.block_num : index
  %n_up = arith.addi %n, %c511 : index
  %pairs = arith.divui %n_up, %c512 : index

  %ub_x = memref.alloc() : memref<2x256xf32, #ascend.mem<ub>>
  %ub_y = memref.alloc() : memref<2x256xf32, #ascend.mem<ub>>
  %ub_z = memref.alloc() : memref<2x256xf32, #ascend.mem<ub>>
  %x0 = memref.subview %ub_x[0, 0] [1, 256] [1, 1]
      : memref<2x256xf32, #ascend.mem<ub>> to memref<256xf32, strided<[1]>, #ascend.mem<ub>>
  %y0 = memref.subview %ub_y[0, 0] [1, 256] [1, 1]
      : memref<2x256xf32, #ascend.mem<ub>> to memref<256xf32, strided<[1]>, #ascend.mem<ub>>
  %z0 = memref.subview %ub_z[0, 0] [1, 256] [1, 1]
      : memref<2x256xf32, #ascend.mem<ub>> to memref<256xf32, strided<[1]>, #ascend.mem<ub>>
  %x1 = memref.subview %ub_x[1, 0] [1, 256] [1, 1]
      : memref<2x256xf32, #ascend.mem<ub>> to memref<256xf32, strided<[1], offset: 256>, #ascend.mem<ub>>
  %y1 = memref.subview %ub_y[1, 0] [1, 256] [1, 1]
      : memref<2x256xf32, #ascend.mem<ub>> to memref<256xf32, strided<[1], offset: 256>, #ascend.mem<ub>>
  %z1 = memref.subview %ub_z[1, 0] [1, 256] [1, 1]
      : memref<2x256xf32, #ascend.mem<ub>> to memref<256xf32, strided<[1], offset: 256>, #ascend.mem<ub>>

  // Both slots start free.
  ascend.set_flag v -> mte2, 0
  ascend.set_flag v -> mte2, 1
  ascend.set_flag mte3 -> v, 0
  ascend.set_flag mte3 -> v, 1

  scf.for %pair = %block to %pairs step %blocks {
    %off0 = arith.muli %pair, %c512 : index
    %off1 = arith.addi %off0, %c256 : index

    // Chunk at %off0, slot 0.
    ascend.wait_flag v -> mte2, 0
    ascend.copy %x[%off0], %x0[%c0] sizes [256]
        : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, strided<[1]>, #ascend.mem<ub>>
    ascend.copy %y[%off0], %y0[%c0] sizes [256]
        : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, strided<[1]>, #ascend.mem<ub>>
    ascend.set_flag mte2 -> v, 0
    ascend.wait_flag mte2 -> v, 0
    ascend.wait_flag mte3 -> v, 0
    ascend.vbin add %z0, %x0, %y0 : memref<256xf32, strided<[1]>, #ascend.mem<ub>>
    ascend.set_flag v -> mte2, 0
    ascend.set_flag v -> mte3, 0
    ascend.wait_flag v -> mte3, 0
    ascend.copy %z0[%c0], %z[%off0] sizes [256]
        : memref<256xf32, strided<[1]>, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
    ascend.set_flag mte3 -> v, 0

    // Chunk at %off1, slot 1, when it starts inside the vector.
    %has_second = arith.cmpi ult, %off1, %n : index
    scf.if %has_second {
      ascend.wait_flag v -> mte2, 1
      ascend.copy %x[%off1], %x1[%c0] sizes [256]
          : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, strided<[1], offset: 256>, #ascend.mem<ub>>
      ascend.copy %y[%off1], %y1[%c0] sizes [256]
          : memref<?xf32, #ascend.mem<gm>>, memref<256xf32, strided<[1], offset: 256>, #ascend.mem<ub>>
      ascend.set_flag mte2 -> v, 1
      ascend.wait_flag mte2 -> v, 1
      ascend.wait_flag mte3 -> v, 1
      ascend.vbin add %z1, %x1, %y1 : memref<256xf32, strided<[1], offset: 256>, #ascend.mem<ub>>
      ascend.set_flag v -> mte2, 1
      ascend.set_flag v -> mte3, 1
      ascend.wait_flag v -> mte3, 1
      ascend.copy %z1[%c0], %z[%off1] sizes [256]
          : memref<256xf32, strided<[1], offset: 256>, #ascend.mem<ub>>, memref<?xf32, #ascend.mem<gm>>
      ascend.set_flag mte3 -> v, 1
    }
  }

  // Consume the last "slot free" signals so that every flag ends clear.
  ascend.wait_flag v -> mte2, 0
  ascend.wait_flag v -> mte2, 1
  ascend.wait_flag mte3 -> v, 0
  ascend.wait_flag mte3 -> v, 1
  return
}
