"""Hand-written tile IR kernels for the cpu tests, parameterized by tile
sizes and element types (the DSL is tested on its own; these pin the IR
contract the cpu pipeline accepts)."""

from __future__ import annotations


def gemm(
    bm: int,
    bn: int,
    bk: int,
    ab: str = "f32",
    c: str = "f32",
    acc: str = "f32",
    transpose_a: bool = False,
    transpose_b: bool = False,
) -> str:
    """C[M, N] = op(A) @ op(B), one bm x bn block of C per grid point, k in
    steps of bk; A is M x K (K x M transposed), B is K x N (N x K)."""
    a_tile = f"{bk}x{bm}" if transpose_a else f"{bm}x{bk}"
    b_tile = f"{bn}x{bk}" if transpose_b else f"{bk}x{bn}"
    a_at = "%A[%ko, %row]" if transpose_a else "%A[%row, %ko]"
    b_at = "%B[%col, %ko]" if transpose_b else "%B[%ko, %col]"
    k_dim = 0 if transpose_a else 1
    flags = (" transpose_a" if transpose_a else "") + (" transpose_b" if transpose_b else "")
    return f"""
!a = memref<{a_tile}x{ab}, #tile.scope<shared>>
!b = memref<{b_tile}x{ab}, #tile.scope<shared>>
!acc = memref<{bm}x{bn}x{acc}, #tile.scope<fragment>>
func.func @gemm(%A: memref<?x?x{ab}>, %B: memref<?x?x{ab}>, %C: memref<?x?x{c}>)
    attributes {{tile.entry}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant {bm} : index
  %bn = arith.constant {bn} : index
  %bk = arith.constant {bk} : index
  %m = memref.dim %C, %c0 : memref<?x?x{c}>
  %n = memref.dim %C, %c1 : memref<?x?x{c}>
  %k = memref.dim %A, %c{k_dim} : memref<?x?x{ab}>
  %gm = arith.ceildivsi %m, %bm : index
  %gn = arith.ceildivsi %n, %bn : index
  %kt = arith.ceildivsi %k, %bk : index
  tile.kernel blocks(%bx, %by) in (%gm, %gn) threads = 128 {{
    %row = arith.muli %bx, %bm : index
    %col = arith.muli %by, %bn : index
    %a = tile.alloc : !a
    %b = tile.alloc : !b
    %acc = tile.alloc : !acc
    tile.clear %acc : !acc
    tile.pipelined %kk = %c0 to %kt step %c1 num_stages = 2 {{
      %ko = arith.muli %kk, %bk : index
      tile.copy {a_at}, %a[%c0, %c0] : memref<?x?x{ab}>, !a
      tile.copy {b_at}, %b[%c0, %c0] : memref<?x?x{ab}>, !b
      tile.gemm %a, %b, %acc{flags} : !a, !b, !acc
    }}
    tile.copy %acc[%c0, %c0], %C[%row, %col] : !acc, memref<?x?x{c}>
  }}
  return
}}
"""


def copy_through_tile(bm: int, bn: int, src: str, dst: str, pad: str | None = None) -> str:
    """Copies A into B (converting the element type) through one bm x bn
    tile per block; with `pad`, reads past A's end give that value."""
    pad_clause = f" pad(%pad : {src})" if pad else ""
    pad_def = f"%pad = arith.constant {pad} : {src}" if pad else ""
    return f"""
func.func @copy(%A: memref<?x?x{src}>, %B: memref<?x?x{dst}>) attributes {{tile.entry}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %bm = arith.constant {bm} : index
  %bn = arith.constant {bn} : index
  %m = memref.dim %B, %c0 : memref<?x?x{dst}>
  %n = memref.dim %B, %c1 : memref<?x?x{dst}>
  %gm = arith.ceildivsi %m, %bm : index
  %gn = arith.ceildivsi %n, %bn : index
  {pad_def}
  tile.kernel blocks(%bx, %by) in (%gm, %gn) threads = 128 {{
    %i = arith.muli %bx, %bm : index
    %j = arith.muli %by, %bn : index
    %t = tile.alloc : memref<{bm}x{bn}x{src}, #tile.scope<shared>>
    tile.copy %A[%i, %j], %t[%c0, %c0]{pad_clause}
        : memref<?x?x{src}>, memref<{bm}x{bn}x{src}, #tile.scope<shared>>
    tile.copy %t[%c0, %c0], %B[%i, %j]
        : memref<{bm}x{bn}x{src}, #tile.scope<shared>>, memref<?x?x{dst}>
  }}
  return
}}
"""
