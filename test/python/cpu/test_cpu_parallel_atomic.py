"""Element-wise regions, fills, atomic adds and the block grid on the cpu."""

from __future__ import annotations

import numpy as np

import tilec

RNG = np.random.default_rng(3)


def test_parallel_region_with_math_and_select():
    kernel = tilec.compile("""
func.func @relu_exp(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %g = arith.ceildivsi %m, %c8 : index
  tile.kernel blocks(%bx) in (%g) threads = 128 {
    %row = arith.muli %bx, %c8 : index
    %t = tile.alloc : memref<8x24xf32, #tile.scope<fragment>>
    tile.copy %X[%row, %c0], %t[%c0, %c0] : memref<?x?xf32>, memref<8x24xf32, #tile.scope<fragment>>
    tile.parallel (%i, %j) in (8, 24) {
      %x = memref.load %t[%i, %j] : memref<8x24xf32, #tile.scope<fragment>>
      %zero = arith.constant 0.0 : f32
      %pos = arith.cmpf ogt, %x, %zero : f32
      %e = math.exp %x : f32
      %y = arith.select %pos, %x, %e : f32
      memref.store %y, %t[%i, %j] : memref<8x24xf32, #tile.scope<fragment>>
    }
    tile.copy %t[%c0, %c0], %Y[%row, %c0] : memref<8x24xf32, #tile.scope<fragment>>, memref<?x?xf32>
  }
  return
}
""")
    x = RNG.standard_normal((21, 24)).astype(np.float32)
    y = np.zeros_like(x)
    kernel(x, y)
    np.testing.assert_allclose(y, np.where(x > 0, x, np.exp(x)), rtol=1e-6)


def test_fill_global_and_split_k_atomic_add():
    # Each of 4 blocks adds ones*(block+1) into the same 3x5 region of a
    # 3x4 output (the 5th column falls off the edge and is dropped), then
    # a scalar atomic add counts the blocks.
    kernel = tilec.compile("""
func.func @split_k(%O: memref<?x?xf32>, %count: memref<1xi32>) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %one = arith.constant 1 : i32
  %zero = arith.constant 0.0 : f32
  tile.fill %O, %zero : memref<?x?xf32>, f32
  tile.kernel blocks(%bx) in (%c4) threads = 1 {
    %t = tile.alloc : memref<3x5xf32, #tile.scope<fragment>>
    %b = arith.index_cast %bx : index to i32
    %bf = arith.sitofp %b : i32 to f32
    %onef = arith.constant 1.0 : f32
    %v = arith.addf %bf, %onef : f32
    tile.fill %t, %v : memref<3x5xf32, #tile.scope<fragment>>, f32
    tile.atomic_add %t, %O[%c0, %c0] : memref<3x5xf32, #tile.scope<fragment>>, memref<?x?xf32>
    tile.atomic_add %one, %count[%c0] : i32, memref<1xi32>
  }
  return
}
""")
    out = np.full((3, 4), 99.0, np.float32)
    count = np.zeros(1, np.int32)
    kernel(out, count)
    np.testing.assert_array_equal(out, np.full((3, 4), 1.0 + 2 + 3 + 4, np.float32))
    assert count[0] == 4


def test_tiles_over_the_stack_budget_live_on_the_heap(cpu_stage):
    # A 1 MiB tile per block (heap: alloc at the block's start, dealloc at
    # its end), four blocks at once on the workers.
    kernel = tilec.compile("""
func.func @big(%X: memref<?x?xf32>, %Y: memref<?x?xf32>) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %m = memref.dim %X, %c0 : memref<?x?xf32>
  %g = arith.ceildivsi %m, %c512 : index
  tile.kernel blocks(%bx) in (%g) threads = 1 {
    %row = arith.muli %bx, %c512 : index
    %t = tile.alloc : memref<512x512xf32, #tile.scope<shared>>
    tile.copy %X[%row, %c0], %t[%c0, %c0]
        : memref<?x?xf32>, memref<512x512xf32, #tile.scope<shared>>
    tile.copy %t[%c0, %c0], %Y[%row, %c0]
        : memref<512x512xf32, #tile.scope<shared>>, memref<?x?xf32>
  }
  return
}
""")
    assert "memref.alloc()" in kernel.ir(
        cpu_stage("tile.pipelined,tile.barrier,tile.alloc,tile.kernel")
    )
    x = RNG.standard_normal((2000, 512)).astype(np.float32)
    y = np.zeros_like(x)
    kernel(x, y)
    np.testing.assert_array_equal(y, x)


def test_grid_runs_on_two_worker_threads():
    # Every block records the thread that ran it (pthread_self, resolved by
    # the JIT from the process) after some work, so both workers get blocks.
    kernel = tilec.compile("""
func.func private @pthread_self() -> i64
func.func @who(%T: memref<?xi64>, %W: memref<?xf32>) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %steps = arith.constant 200000 : index
  %n = memref.dim %T, %c0 : memref<?xi64>
  tile.kernel blocks(%bx) in (%n) threads = 1 {
    %init = arith.constant 0.0 : f32
    %inc = arith.constant 1.0 : f32
    %sum = scf.for %i = %c0 to %steps step %c1 iter_args(%acc = %init) -> (f32) {
      %next = arith.addf %acc, %inc : f32
      scf.yield %next : f32
    }
    memref.store %sum, %W[%bx] : memref<?xf32>
    %tid = func.call @pthread_self() : () -> i64
    memref.store %tid, %T[%bx] : memref<?xi64>
  }
  return
}
""")
    threads = np.zeros(16, np.int64)
    work = np.zeros(16, np.float32)
    kernel(threads, work)
    assert np.all(work == 200000.0)
    assert len(set(threads.tolist())) >= 2, threads


def test_expanded_exp_and_exp2_match_numpy_including_specials():
    kernel = tilec.compile("""
func.func @exps(%X: memref<?xf32>, %E: memref<?xf32>, %T: memref<?xf32>) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %n = memref.dim %X, %c0 : memref<?xf32>
  %g = arith.ceildivsi %n, %c64 : index
  tile.kernel blocks(%bx) in (%g) threads = 1 {
    %o = arith.muli %bx, %c64 : index
    %x = tile.alloc : memref<64xf32, #tile.scope<fragment>>
    %e = tile.alloc : memref<64xf32, #tile.scope<fragment>>
    tile.copy %X[%o], %x[%c0] : memref<?xf32>, memref<64xf32, #tile.scope<fragment>>
    tile.parallel (%i) in (64) {
      %v = memref.load %x[%i] : memref<64xf32, #tile.scope<fragment>>
      %a = math.exp %v : f32
      %b = math.exp2 %v : f32
      memref.store %a, %e[%i] : memref<64xf32, #tile.scope<fragment>>
      memref.store %b, %x[%i] : memref<64xf32, #tile.scope<fragment>>
    }
    tile.copy %e[%c0], %E[%o] : memref<64xf32, #tile.scope<fragment>>, memref<?xf32>
    tile.copy %x[%c0], %T[%o] : memref<64xf32, #tile.scope<fragment>>, memref<?xf32>
  }
  return
}
""")
    specials = [0.0, -np.inf, np.inf, np.nan, 88.7, 89.0, -87.0, -103.0, 127.99, 128.0, -149.0]
    x = np.concatenate([np.linspace(-160, 130, 5000), specials]).astype(np.float32)
    e = np.zeros_like(x)
    t = np.zeros_like(x)
    kernel(x, e, t)
    with np.errstate(over="ignore"):
        for got, ref in ((e, np.exp(x.astype(np.float64))), (t, np.exp2(x.astype(np.float64)))):
            expected = ref.astype(np.float32)
            normal = np.isfinite(expected) & (np.abs(expected) >= np.finfo(np.float32).tiny)
            np.testing.assert_allclose(got[normal], ref[normal], rtol=2.5e-7)
            # inf, NaN, 0 and the subnormals as numpy has them (to 2 ulps).
            np.testing.assert_allclose(got[~normal], expected[~normal], rtol=0, atol=3e-45)
