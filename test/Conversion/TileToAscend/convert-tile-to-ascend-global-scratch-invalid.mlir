// RUN: tile-opt %s -split-input-file --convert-tile-to-ascend --verify-diagnostics

// The host sizes scratch before the launch: a size read from memory is not
// known there.
func.func @size_from_memory(%x: memref<4xindex>) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.load %x[%c0] : memref<4xindex>
  // expected-error @+1 {{convert-tile-to-ascend: the host allocates global scratch before the launch, so its sizes must be integer arithmetic on the kernel's arguments and their dims}}
  %s = memref.alloc(%n) : memref<?xf32>
  tile.kernel blocks(%bx) in (%c1) threads = 128 {
    %t = tile.alloc : memref<16xf32, #tile.scope<ub>>
    tile.copy %t[%c0], %s[%c0] : memref<16xf32, #tile.scope<ub>>, memref<?xf32>
  }
  return
}

// -----

func.func @scratch_in_a_branch(%c: i1) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.if %c {
    // expected-error @+1 {{convert-tile-to-ascend: global scratch must be allocated at the top of the kernel function, outside its kernels}}
    %s = memref.alloc() : memref<16xf32>
    tile.kernel blocks(%bx) in (%c1) threads = 128 {
      %t = tile.alloc : memref<16xf32, #tile.scope<ub>>
      tile.copy %t[%c0], %s[%c0] : memref<16xf32, #tile.scope<ub>>, memref<16xf32>
    }
  }
  return
}
