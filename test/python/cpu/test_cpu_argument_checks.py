"""Arguments a kernel cannot take as given are refused, naming the parameter:
a read-only array for a parameter the kernel writes, an integer scalar out
of its type's range. Before these checks the kernel wrote into read-only
memory (even an immutable `bytes` object) and ints wrapped silently."""

from __future__ import annotations

import cpu_tile_ir as tile_ir
import numpy as np
import pytest

import tilec
from tilec import ir
from tilec.runtime import compiler
from tilec.runtime.signature import ArgumentError, entry_params

# -- which parameters a kernel writes ---------------------------------------------

WRITES = """
func.func @writes(%copy_in: memref<8xf32>, %copy_out: memref<8xf32>, %add_out: memref<8xf32>,
                  %filled: memref<8xf32, #tile.scope<shared>>, %stored: memref<8xf32>,
                  %through_view: memref<8xf32>, %sized: memref<8xf32>,
                  %gemm_a: memref<4x4xf32, #tile.scope<shared>>,
                  %gemm_c: memref<4x4xf32, #tile.scope<fragment>>, %n: index)
    attributes {tile.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d = memref.dim %sized, %c0 : memref<8xf32>
  tile.kernel blocks(%bx) in (%c1) threads = 1 {
    %t = tile.alloc : memref<8xf32, #tile.scope<local>>
    tile.copy %copy_in[%c0], %t[%c0] : memref<8xf32>, memref<8xf32, #tile.scope<local>>
    tile.copy %t[%c0], %copy_out[%c0] : memref<8xf32, #tile.scope<local>>, memref<8xf32>
    tile.atomic_add %t, %add_out[%c0] : memref<8xf32, #tile.scope<local>>, memref<8xf32>
    tile.clear %filled : memref<8xf32, #tile.scope<shared>>
    %view = memref.subview %through_view[2] [4] [1]
        : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
    tile.parallel (%i) in (4) {
      %x = memref.load %t[%i] : memref<8xf32, #tile.scope<local>>
      memref.store %x, %stored[%i] : memref<8xf32>
      memref.store %x, %view[%i] : memref<4xf32, strided<[1], offset: 2>>
    }
    tile.gemm %gemm_a, %gemm_a, %gemm_c : memref<4x4xf32, #tile.scope<shared>>,
        memref<4x4xf32, #tile.scope<shared>>, memref<4x4xf32, #tile.scope<fragment>>
  }
  return
}
"""


def test_written_parameters_come_from_the_tile_ir(context):
    module = ir.parse_module(WRITES)
    written = {p.name: p.written for p in entry_params(compiler.find_entry(module))}
    assert written == {
        "arg0": False,  # copied from
        "arg1": True,  # copied into
        "arg2": True,  # atomically added into
        "arg3": True,  # cleared
        "arg4": True,  # memref.store
        "arg5": True,  # stored through a subview
        "arg6": False,  # only its size is taken
        "arg7": False,  # a gemm operand
        "arg8": True,  # the gemm accumulator
        "arg9": False,  # a scalar
    }


# -- read-only arrays -----------------------------------------------------------


@pytest.fixture(scope="module")
def copy_kernel():
    return tilec.compile(tile_ir.copy_through_tile(8, 8, "f32", "f32"))


def _read_only(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


READ_ONLY_OUTPUTS = {
    "writeable=False": lambda: _read_only(np.zeros((4, 4), np.float32)),
    "frombuffer of bytes": lambda: np.frombuffer(bytes(64), np.float32).reshape(4, 4),
}


@pytest.mark.parametrize("make", READ_ONLY_OUTPUTS.values(), ids=READ_ONLY_OUTPUTS.keys())
@pytest.mark.parametrize("wrap", [tilec.compile, tilec.jit], ids=["compile", "jit"])
def test_a_read_only_array_is_refused_where_the_kernel_writes(make, wrap, tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    kernel = wrap(tile_ir.copy_through_tile(8, 8, "f32", "f32"))
    out = make()
    before = out.copy()
    with pytest.raises(
        ArgumentError,
        match=r"argument 'arg1' expects a writeable array \(the kernel writes it\) but got a "
        "read-only one",
    ):
        kernel(np.ones((4, 4), np.float32), out)
    np.testing.assert_array_equal(out, before)


def test_read_only_inputs_are_accepted(copy_kernel):
    a = _read_only(np.arange(16, dtype=np.float32).reshape(4, 4))
    b = np.zeros((4, 4), np.float32)
    copy_kernel(a, b)
    np.testing.assert_array_equal(b, a)
    frozen = np.frombuffer(np.arange(16, dtype=np.float32).tobytes(), np.float32).reshape(4, 4)
    copy_kernel(frozen, b)
    np.testing.assert_array_equal(b, frozen)


def test_written_is_kept_in_the_disk_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path))
    source = tile_ir.copy_through_tile(8, 8, "f32", "f32")
    args = (np.zeros((4, 4), np.float32), np.zeros((4, 4), np.float32))
    tilec.jit(source)(*args)
    loaded = tilec.jit(source).compiled(*args)
    assert loaded.from_cache
    assert [p.written for p in loaded.params] == [False, True]
    with pytest.raises(ArgumentError, match="argument 'arg1' expects a writeable array"):
        loaded(args[0], _read_only(args[1]))


# -- integer scalars ------------------------------------------------------------

INT_TYPES = {"index": 64, "i64": 64, "i32": 32, "i16": 16, "i8": 8}


def _stores_scalars() -> str:
    """A kernel that writes each integer scalar parameter (one per type of
    INT_TYPES, index through i64) into a one-element output."""
    params, body = [], []
    for i, element in enumerate(INT_TYPES):
        stored = "i64" if element == "index" else element
        tile, out = f"memref<1x{stored}, #tile.scope<local>>", f"memref<1x{stored}>"
        params.append(f'%out{i}: {out}, %s{i}: {element} {{tile.name = "{element}"}}')
        value = f"%s{i}"
        if element == "index":
            body.append(f"%v{i} = arith.index_cast %s{i} : index to i64")
            value = f"%v{i}"
        body += [
            f"%t{i} = tile.alloc : {tile}",
            f"tile.fill %t{i}, {value} : {tile}, {stored}",
            f"tile.copy %t{i}[%c0], %out{i}[%c0] : {tile}, {out}",
        ]
    lines = "\n    ".join(body)
    return f"""
func.func @scalars({", ".join(params)}) attributes {{tile.entry}} {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel blocks(%bx) in (%c1) threads = 1 {{
    {lines}
  }}
  return
}}
"""


@pytest.fixture(scope="module")
def scalars():
    return tilec.compile(_stores_scalars())


def _call(kernel, values: dict[str, int]) -> list[int]:
    outs = [np.zeros(1, "int64" if t == "index" else f"int{INT_TYPES[t]}") for t in INT_TYPES]
    defaults = dict.fromkeys(INT_TYPES, 0) | values
    kernel(*[x for out, t in zip(outs, INT_TYPES, strict=True) for x in (out, defaults[t])])
    return [int(out[0]) for out in outs]


@pytest.mark.parametrize("element", INT_TYPES)
def test_the_ends_of_an_int_range_arrive_exactly(scalars, element):
    bits = INT_TYPES[element]
    at = list(INT_TYPES).index(element)
    for value in (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1, np.int8(-5)):
        assert _call(scalars, {element: value})[at] == value


@pytest.mark.parametrize("element", INT_TYPES)
@pytest.mark.parametrize("past", ["below", "above", "far above"])
def test_an_int_out_of_range_is_refused(scalars, element, past):
    bits = INT_TYPES[element]
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    value = {"below": low - 1, "above": high + 1, "far above": 2**64 + 5}[past]
    with pytest.raises(ArgumentError) as info:
        _call(scalars, {element: value})
    assert str(info.value) == (
        f"argument '{element}' expects an {element} in [{low}, {high}] but got {value}"
    )


def test_a_float_for_an_int_is_still_refused(scalars):
    with pytest.raises(ArgumentError, match="argument 'i32' expects an int but got float"):
        _call(scalars, {"i32": 1.0})
