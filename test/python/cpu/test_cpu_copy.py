"""tile.copy end to end on the cpu: edge tiles of any shape, pad values,
element conversion, and copies through lower-rank tiles."""

from __future__ import annotations

import cpu_tile_ir as tile_ir
import ml_dtypes
import numpy as np
import pytest

import tilec

RNG = np.random.default_rng(1)


@pytest.fixture(scope="module")
def f32_to_f16():
    return tilec.compile(tile_ir.copy_through_tile(16, 20, "f32", "f16"))


@pytest.mark.parametrize("shape", [(16, 20), (1, 1), (3, 2), (37, 45), (33, 61), (17, 100)])
def test_edge_tiles_convert_every_element(f32_to_f16, shape):
    a = RNG.standard_normal(shape).astype(np.float32)
    b = np.full(shape, np.nan, np.float16)
    f32_to_f16(a, b)
    np.testing.assert_array_equal(b, a.astype(np.float16))


def test_bf16_rounds_to_nearest_even():
    kernel = tilec.compile(tile_ir.copy_through_tile(4, 16, "f32", "bf16"))
    a = RNG.standard_normal((7, 21)).astype(np.float32)
    b = np.zeros((7, 21), ml_dtypes.bfloat16)
    kernel(a, b)
    np.testing.assert_array_equal(b, a.astype(ml_dtypes.bfloat16))


def test_writes_past_the_destination_are_dropped():
    kernel = tilec.compile(tile_ir.copy_through_tile(8, 8, "i32", "i32"))
    # The grid covers B (5x6); A is bigger, so only B's region is written
    # and nothing past B's end is touched (guard rows around B's storage).
    a = np.arange(100, dtype=np.int32).reshape(10, 10)
    storage = np.full(5 * 6 + 16, -7, np.int32)
    b = storage[8 : 8 + 30].reshape(5, 6)
    kernel(a, b)
    np.testing.assert_array_equal(b, a[:5, :6])
    assert np.all(storage[:8] == -7) and np.all(storage[38:] == -7)


def test_reads_past_the_source_give_the_pad_value():
    src = """
func.func @shift(%A: memref<?xf32>, %B: memref<?xf32>) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %pad = arith.constant -1.5 : f32
  %n = memref.dim %B, %c0 : memref<?xf32>
  %g = arith.ceildivsi %n, %c4 : index
  tile.kernel blocks(%bx) in (%g) threads = 1 {
    %i = arith.muli %bx, %c4 : index
    %j = arith.addi %i, %c1 : index
    %t = tile.alloc : memref<4xf32, #tile.scope<local>>
    tile.copy %A[%j], %t[%c0] pad(%pad : f32) : memref<?xf32>, memref<4xf32, #tile.scope<local>>
    tile.copy %t[%c0], %B[%i] : memref<4xf32, #tile.scope<local>>, memref<?xf32>
  }
  return
}
"""
    kernel = tilec.compile(src)
    a = np.arange(1, 11, dtype=np.float32)
    b = np.zeros(10, np.float32)
    kernel(a, b)
    np.testing.assert_array_equal(b, [*a[1:], -1.5])


def test_negative_offsets_read_pad_and_drop_writes():
    # Block b copies A[8b - 3 : 8b + 5] to B[8b - 3 : 8b + 5]: block 0 starts
    # before both buffers, so those 3 positions are neither read nor written
    # (and the grid of 2 blocks does not reach B's last 3 elements).
    kernel = tilec.compile("""
func.func @shifted(%A: memref<?xf32>, %B: memref<?xf32>, %C: memref<?xf32>)
    attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %pad = arith.constant 7.0 : f32
  %n = memref.dim %B, %c0 : memref<?xf32>
  %g = arith.ceildivsi %n, %c8 : index
  tile.kernel blocks(%bx) in (%g) threads = 1 {
    %i = arith.muli %bx, %c8 : index
    %j = arith.subi %i, %c3 : index
    %t = tile.alloc : memref<8xf32, #tile.scope<local>>
    tile.copy %A[%j], %t[%c0] pad(%pad : f32) : memref<?xf32>, memref<8xf32, #tile.scope<local>>
    tile.copy %t[%c0], %B[%j] : memref<8xf32, #tile.scope<local>>, memref<?xf32>
    tile.copy %t[%c0], %C[%i] : memref<8xf32, #tile.scope<local>>, memref<?xf32>
  }
  return
}
""")
    a = np.arange(1, 17, dtype=np.float32)
    b = np.zeros(16, np.float32)
    c = np.zeros(16, np.float32)
    kernel(a, b, c)
    np.testing.assert_array_equal(b, [*a[:13], 0, 0, 0])
    np.testing.assert_array_equal(c, [7, 7, 7, *a[:13]])


def test_rank_reducing_copies_and_columns():
    src = """
func.func @pick(%Q: memref<?x?x?xf32>, %O: memref<?x?xf32>, %b: index, %col: index)
    attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<4x8xf32, #tile.scope<shared>>
    %v = tile.alloc : memref<4xf32, #tile.scope<local>>
    tile.copy %Q[%b, %c0, %c0], %t[%c0, %c0] sizes [1, 4, 8]
        : memref<?x?x?xf32>, memref<4x8xf32, #tile.scope<shared>>
    tile.copy %t[%c0, %col], %v[%c0] sizes [4, 1]
        : memref<4x8xf32, #tile.scope<shared>>, memref<4xf32, #tile.scope<local>>
    tile.copy %t[%c0, %c0], %O[%c0, %c0]
        : memref<4x8xf32, #tile.scope<shared>>, memref<?x?xf32>
    tile.copy %v[%c0], %O[%c0, %c0] sizes [1, 4]
        : memref<4xf32, #tile.scope<local>>, memref<?x?xf32>
  }
  return
}
"""
    kernel = tilec.compile(src)
    q = RNG.standard_normal((3, 4, 8)).astype(np.float32)
    o = np.zeros((4, 8), np.float32)
    kernel(q, o, 2, 5)
    expected = q[2].copy()
    expected[0, :4] = q[2][:, 5]
    np.testing.assert_array_equal(o, expected)
