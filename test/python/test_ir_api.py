"""The Python surface of the IR: contexts, typed attribute builders,
parsing with file locations, op classes."""

from __future__ import annotations

import pytest

from tilec import ir
from tilec.diagnostics import CompileError
from tilec.dialects import tile


def test_scope_attributes_without_parsing(context):
    for scope in tile.Scope:
        attr = tile.scope_attr(scope)
        assert str(attr) == f"#tile.scope<{scope}>"
        assert tile.scope_attr(str(scope)) == attr


def test_unknown_scope_name_is_a_value_error(context):
    with pytest.raises(ValueError, match="unknown Scope 'sharde'"):
        tile.scope_attr("sharde")


def test_memref_types_carry_their_scope(context):
    f16 = ir.F16Type.get()
    shared = tile.memref_type([64, 32], f16, "shared")
    assert str(shared) == "memref<64x32xf16, #tile.scope<shared>>"
    assert tile.scope_of(shared) is tile.Scope.shared
    assert tile.scope_of(tile.memref_type([8], f16)) is tile.Scope.global_


def test_parsed_ops_come_back_as_their_classes(context):
    module = ir.parse_module(
        """
        func.func @f(%t: memref<4x4xf32, #tile.scope<fragment>>) {
          %c = arith.constant 1.0 : f32
          tile.fill %t, %c : memref<4x4xf32, #tile.scope<fragment>>, f32
          return
        }
        """,
        "k.mlir",
    )
    func = module.body.operations[0]
    fill = func.regions[0].blocks[0].operations[1]
    assert isinstance(fill, tile.FillOp)
    assert fill.location.filename == "k.mlir"
    assert (fill.location.start_line, fill.location.start_col) == (4, 11)


def test_parse_errors_name_the_file_and_position(context):
    with pytest.raises(CompileError) as info:
        ir.parse_module("func.func @f() {\n  %x = arith.addi : i32\n}", "bad.mlir")
    [diag] = info.value.diagnostics
    assert (diag.file, diag.line, diag.col) == ("bad.mlir", 2, 18)
    assert str(info.value) == "bad.mlir:2:18: error: expected SSA operand"


def test_verifier_errors_are_compile_errors(context):
    source = (
        "func.func @g(%t: memref<4xf32, #tile.scope<local>>, %c: i32) {\n"
        "  tile.fill %t, %c : memref<4xf32, #tile.scope<local>>, i32\n"
        "  return\n"
        "}\n"
    )
    expected = r"^k.mlir:2:3: error: 'tile.fill' op expected value of type 'f32'"
    with pytest.raises(CompileError, match=expected):
        ir.parse_module(source, "k.mlir")


def test_ascend_attributes_without_parsing(context):
    from tilec.dialects import ascend

    assert str(ascend.pipe_attr("mte2")) == "#ascend.pipe<mte2>"
    assert str(ascend.core_attr(ascend.CoreType.mix)) == "#ascend.core<mix>"
    ub = ascend.memref_type([256], ir.F32Type.get(), "ub")
    assert str(ub) == "memref<256xf32, #ascend.mem<ub>>"
    assert ascend.mem_space_of(ub) is ascend.MemSpace.ub
    with pytest.raises(ValueError, match="unknown Pipe 'mte4'"):
        ascend.pipe_attr("mte4")


def test_ops_built_from_python_verify_and_print(context):
    f32 = ir.F32Type.get()
    tile_type = tile.memref_type([16], f32, "local")
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        func_type = ir.FunctionType.get([tile_type, f32], [])
        from mlir.dialects import func

        fn = func.FuncOp("fill", func_type)
        block = fn.add_entry_block()
        with ir.InsertionPoint(block):
            tile.FillOp(block.arguments[0], block.arguments[1])
            func.ReturnOp([])
    assert module.operation.verify()
    assert "tile.fill %arg0, %arg1 : memref<16xf32, #tile.scope<local>>, f32" in str(module)


def test_parsed_ascend_ops_come_back_as_their_classes(context):
    from tilec.dialects import ascend

    module = ir.parse_module(
        """
        func.func @k() attributes {ascend.kernel = #ascend.core<aiv>} {
          ascend.set_flag mte2 -> v, 3
          ascend.wait_flag mte2 -> v, 3
          return
        }
        """
    )
    ops = list(module.body.operations[0].regions[0].blocks[0].operations)
    assert isinstance(ops[0], ascend.SetFlagOp)
    assert isinstance(ops[1], ascend.WaitFlagOp)
    assert str(ops[0].attributes["src"]) == "#ascend.pipe<mte2>"
