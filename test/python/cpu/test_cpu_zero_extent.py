"""A tile with a zero extent is refused where it is written, in tile IR and
in the DSL. Before the verifier checked it, copying a 4x16 tensor into a
0x16 tile and back rewrote 8 elements of the tensor."""

from __future__ import annotations

from pathlib import Path

import pytest

import tilec
import tilec.language as T
from tilec.diagnostics import CompileError
from tilec.language import DSLError

THROUGH_EMPTY_TILE = """
func.func @through_empty(%A: memref<4x16xf32>) attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<0x16xf32, #tile.scope<fragment>> loc("user.py":5:10)
    tile.copy %A[%c0, %c0], %t[%c0, %c0] : memref<4x16xf32>, memref<0x16xf32, #tile.scope<fragment>>
    tile.copy %t[%c0, %c0], %A[%c0, %c0] : memref<0x16xf32, #tile.scope<fragment>>, memref<4x16xf32>
  }
  return
}
"""


def test_zero_extent_tile_ir_is_a_located_error():
    with pytest.raises(CompileError) as info:
        tilec.compile(THROUGH_EMPTY_TILE)
    assert str(info.value).startswith(
        "user.py:5:10: error: 'tile.alloc' op expected a tile with non-zero extents but got 0x16"
    )


def test_zero_extent_dsl_tile_is_an_error_at_the_users_line():
    @T.prim_func
    def through_empty(A: T.Tensor((4, 16), "float32")):
        with T.Kernel(1, threads=1):
            t = T.alloc_fragment((0, 16), "float32")  # zero-extent
            T.copy(A, t)
            T.copy(t, A)

    with pytest.raises(DSLError) as info:
        tilec.compile(through_empty)
    lines = Path(__file__).read_text().splitlines()
    [line] = [n for n, text in enumerate(lines, 1) if text.endswith("# zero-extent")]
    assert info.value.loc is not None
    assert (info.value.loc.file, info.value.loc.line) == (__file__, line)
    assert info.value.message == "T.alloc_fragment: dim 0 must be positive but got 0"
