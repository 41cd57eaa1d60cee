"""A tile.gemm's shape as the cuda lowerings decide on it: element types, sizes, transposes
resolved, and the warp policy (`T.GemmWarpPolicy`) it asks for."""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir


@dataclass(frozen=True)
class GemmShape:
    """A gemm's operand element types and sizes, transposes resolved."""

    m: int
    n: int
    k: int
    ab_element: str
    c_element: str
    transpose_a: bool
    transpose_b: bool
    policy: str = "square"


POLICY = "tile.policy"
POLICIES = ("square", "full_row", "full_col")


def gemm_shape(op: ir.Operation, a: tuple[int, ...], c: tuple[int, ...], ab: ir.Type,
               acc: ir.Type) -> GemmShape:
    transpose_a = "transpose_a" in op.attributes
    transpose_b = "transpose_b" in op.attributes
    k = a[0] if transpose_a else a[1]
    policy = ir.StringAttr(op.attributes[POLICY]).value if POLICY in op.attributes else "square"
    return GemmShape(c[0], c[1], k, str(ab), str(acc), transpose_a, transpose_b, policy)

