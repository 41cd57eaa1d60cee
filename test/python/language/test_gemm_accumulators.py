"""The DSL's table of T.gemm element types agrees with the verifier of tile.gemm.

`GEMM_ACCUMULATORS` is what T.gemm checks a kernel against; tile.gemm's
verifier (dialects/tile/TileOps.cpp) is what every target relies on. A tile.gemm
is parsed for every pair of operand and accumulator element types the DSL can
name, and the verifier must accept exactly the table's pairs, so that neither
can change without the other.
"""

from __future__ import annotations

import pytest

from tilec import ir
from tilec.diagnostics import CompileError
from tilec.language.dtypes import BY_NAME
from tilec.language.semantic.ops.gemm import GEMM_ACCUMULATORS


def _element_types() -> list[str]:
    """The MLIR element types of the DSL's dtypes, once each (uint8 is i8 like int8)."""
    with ir.make_context():
        return sorted({str(dtype.mlir_type()) for dtype in BY_NAME.values()})


def _table_pairs() -> set[tuple[str, str]]:
    with ir.make_context():
        return {
            (str(BY_NAME[a].mlir_type()), str(BY_NAME[c].mlir_type()))
            for a, accumulators in GEMM_ACCUMULATORS.items()
            for c in accumulators
        }


def _verifies(operands: str, accumulator: str) -> bool:
    a = f"memref<16x8x{operands}, #tile.scope<shared>>"
    b = f"memref<8x32x{operands}, #tile.scope<shared>>"
    c = f"memref<16x32x{accumulator}, #tile.scope<fragment>>"
    text = (
        f"func.func @gemm(%a: {a}, %b: {b}, %c: {c}) {{\n"
        f"  tile.gemm %a, %b, %c : {a}, {b}, {c}\n"
        "  return\n"
        "}\n"
    )
    with ir.make_context() as context:
        try:
            ir.parse_module(text, "gemm.mlir", context)
        except CompileError as failure:
            # Only the element-type rules may reject it: the shapes and scopes are legal.
            assert "element type" in str(failure), str(failure)
            return False
    return True


ELEMENT_TYPES = _element_types()
TABLE = _table_pairs()


def test_every_dtype_of_the_table_is_one_the_dsl_names() -> None:
    for operands, accumulators in GEMM_ACCUMULATORS.items():
        assert operands in BY_NAME
        assert set(accumulators) <= BY_NAME.keys()
    assert {a for a, _ in TABLE} < set(ELEMENT_TYPES)


@pytest.mark.parametrize("operands", ELEMENT_TYPES)
def test_verifier_accepts_exactly_the_table(operands: str) -> None:
    accepted = {c for c in ELEMENT_TYPES if _verifies(operands, c)}
    assert accepted == {c for a, c in TABLE if a == operands}
