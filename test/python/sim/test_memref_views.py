"""Views a memory planner produces (memref.view into an i8 arena, reinterpret_cast,
subview, collapse/expand) and affine index arithmetic."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.sim import SimError, simulate

GM = "memref<?xf32, #ascend.mem<gm>>"
V8 = "memref<8xf32, #ascend.mem<ub>>"
W24 = "memref<2x4xf32, strided<[4, 1], offset: 8>, #ascend.mem<ub>>"
R24 = "memref<2x4xf32, #ascend.mem<ub>>"
ROW = "memref<4xf32, strided<[1], offset: 12>, #ascend.mem<ub>>"
ARENA = "memref<256xi8, #ascend.mem<ub>>"

PLANNED = f"""
#edge = affine_map<(d0)[s0] -> (s0 - d0, 8)>
func.func @planned(%x: {GM}, %z: {GM}, %n: index)
    attributes {{ascend.kernel = #ascend.core<aiv>}} {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %three = arith.constant 3.0 : f32
  %arena = memref.alloc() : {ARENA}
  %v = memref.view %arena[%c32][] : {ARENA} to {V8}
  %w = memref.reinterpret_cast %v to offset: [8], sizes: [2, 4], strides: [4, 1] : {V8} to {W24}
  %rows = memref.expand_shape %v [[0, 1]] output_shape [2, 4] : {V8} into {R24}
  %flat = memref.collapse_shape %rows [[0, 1]] : {R24} into {V8}
  %e = affine.min #edge(%c4)[%n]
  %start = affine.apply affine_map<(d0) -> (d0 * 2 - 8)>(%e)
  ascend.copy %x[%start], %flat[%c0] sizes [8] : {GM}, {V8}
  ascend.set_flag mte2 -> v, 0
  ascend.wait_flag mte2 -> v, 0
  %second = memref.subview %w[1, 0] [1, 4] [1, 1] : {W24} to {ROW}
  ascend.vbins muls %second, %second, %three : {ROW}, f32
  ascend.set_flag v -> mte3, 0
  ascend.wait_flag v -> mte3, 0
  ascend.copy %v[%c0], %z[%c0] sizes [8] : {V8}, {GM}
  return
}}
"""


@pytest.mark.parametrize(("n", "start"), [(10, 4), (100, 8)])
def test_planned_views_alias_the_same_bytes(n: int, start: int) -> None:
    x = np.arange(16, dtype=np.float32)
    result = simulate(PLANNED, [x, np.zeros(8, np.float32), n])
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    expected = x[start:start + 8].copy()
    expected[4:] *= 3
    np.testing.assert_array_equal(result["z"], expected)


def test_a_view_outside_its_source_is_an_error() -> None:
    text = PLANNED.replace("memref<256xi8", "memref<48xi8")
    with pytest.raises(SimError, match=r"memref.view of 32 bytes at byte 32 is outside its "
                                       r"48-byte source"):
        simulate(text, [np.zeros(16, np.float32), np.zeros(8, np.float32), 10])
