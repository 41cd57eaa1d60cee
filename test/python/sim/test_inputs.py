"""Kernel arguments from Python and from tile-sim: what each parameter type
takes, and a located error, never a traceback or a silently changed value,
for anything else."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from sim_helpers import INPUTS, location, read_input

from tilec.sim import SimError, simulate
from tilec.tools.tile_sim import main

NAME = "scalars.mlir"
SCALARS = """\
func.func @scalars(%out: memref<3xf32, #ascend.mem<gm>>, %i: i32, %n: index, %f: f32)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %fi = arith.sitofp %i : i32 to f32
  %ni = arith.index_cast %n : index to i64
  %fn = arith.sitofp %ni : i64 to f32
  memref.store %fi, %out[%c0] : memref<3xf32, #ascend.mem<gm>>
  memref.store %fn, %out[%c1] : memref<3xf32, #ascend.mem<gm>>
  memref.store %f, %out[%c2] : memref<3xf32, #ascend.mem<gm>>
  return
}
"""
KERNEL = location(NAME, SCALARS, "func.func @scalars")
VADD_PATH = INPUTS / "vadd-double-buffer.mlir"
VADD_KERNEL = location(str(VADD_PATH), read_input("vadd-double-buffer.mlir"), "func.func @vadd")


def scalars(i: object = 1, n: object = 2, f: object = 3.0, **out: object) -> np.ndarray:
    """`out` after the run: the given `i`, `n` and `f` as f32."""
    inputs = {"out": np.zeros(3, np.float32), "i": i, "n": n, "f": f, **out}
    return simulate(SCALARS, inputs, source_name=NAME)["out"]


def error_of(call) -> str:
    with pytest.raises(SimError) as info:
        call()
    [diagnostic] = info.value.diagnostics
    return diagnostic.render().splitlines()[0]


def test_whole_numbers_of_any_kind_are_integers_and_floats_are_rounded() -> None:
    np.testing.assert_array_equal(scalars(np.int8(-7), 4.0, 2), [-7, 4, 2])
    np.testing.assert_array_equal(scalars(-2**31, 2**63 - 1, np.float64(0.1)),
                                  [-2**31, 2.0**63, np.float32(0.1)])
    np.testing.assert_array_equal(scalars(True, np.float32(1e3), np.False_), [1, 1000, 0])
    np.testing.assert_array_equal(scalars(np.True_, np.uint64(2**40), 2**200),
                                  [1, 2**40, np.inf])


@pytest.mark.parametrize(("values", "message"), [
    ({"n": 2.5}, "argument %n (index) needs an integer, not 2.5"),
    ({"i": np.float64(-0.5)}, "argument %i (i32) needs an integer, not -0.5"),
    ({"n": float("inf")}, "argument %n (index) needs an integer, not inf"),
    ({"n": float("nan")}, "argument %n (index) needs an integer, not nan"),
    ({"i": 2**31}, "argument %i (i32) needs an integer in [-2147483648, 2147483647], "
                   "not 2147483648"),
    ({"n": -2**63 - 1}, "argument %n (index) needs an integer in [-9223372036854775808, "
                        "9223372036854775807], not -9223372036854775809"),
    ({"i": None}, "argument %i (i32) needs a number, not None"),
    ({"f": "1.5"}, "argument %f (f32) needs a number, not '1.5'"),
    ({"f": 10**400}, "argument %f (f32) needs a number that fits a 64-bit float, not 1" +
                     "0" * 400),
    ({"out": None}, "argument %out (memref<3xf32, #ascend.mem<gm>>) needs an array of "
                    "numbers, not None"),
    ({"out": np.array(["a", "b", "c"])}, "argument %out (memref<3xf32, #ascend.mem<gm>>) "
                                         "needs an array of numbers, not an array of <U1"),
])
def test_values_that_do_not_fit_their_parameter_are_errors(values: dict, message: str) -> None:
    assert error_of(lambda: scalars(**values)) == f"{KERNEL}: error: {message}"


@pytest.mark.parametrize(("inputs", "message"), [
    (5, "the inputs must be a mapping from argument names to values or a sequence of values, "
        "not int"),
    ("out", "the inputs must be a mapping from argument names to values or a sequence of "
            "values, not str"),
    ({0: np.zeros(3, np.float32), "x": 1}, "no kernel argument named 0, x (arguments: out, i, "
                                           "n, f)"),
])
def test_inputs_that_are_neither_a_mapping_nor_a_sequence_are_errors(inputs: object,
                                                                     message: str) -> None:
    assert error_of(lambda: simulate(SCALARS, inputs, source_name=NAME)) == (
        f"{KERNEL}: error: {message}")


def test_an_unwritable_trace_is_an_error(tmp_path: Path) -> None:
    trace = tmp_path / "no-such-directory" / "trace.json"
    assert error_of(lambda: simulate(SCALARS, [np.zeros(3, np.float32), 1, 2, 3.0],
                                     trace=trace)) == (
        f"error: cannot write the trace {trace}: No such file or directory")


VADD_ARGS = ["--arg", "x=zeros:8xf32", "--arg", "y=zeros:8xf32", "--arg", "z=zeros:8xf32"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--arg", "n=2.5"], f"{VADD_KERNEL}: error: argument %n (index) needs an integer, not 2.5"),
    (["--arg", "n=-1e30"], f"{VADD_KERNEL}: error: argument %n (index) needs an integer in "
                           f"[-9223372036854775808, 9223372036854775807], not "
                           f"{int(-1e30)}"),
    (["--arg", "n=1e400"], "tile-sim: error: argument %n (index): 1e400 is out of the range "
                           "of a 64-bit float"),
    (["--arg", "n=8", "--seed", "-1"], "tile-sim: error: argument --seed: must be at least 0, "
                                       "not -1"),
])
def test_tile_sim_number_errors(argv: list[str], message: str, capsys) -> None:
    assert main([str(VADD_PATH), *VADD_ARGS, *argv]) == 1
    assert capsys.readouterr().err.splitlines()[0] == message


def test_tile_sim_reads_a_number_with_an_exponent_as_a_whole_number(capsys) -> None:
    assert main([str(VADD_PATH), "--arg", "x=ones:1000xf32", "--arg", "y=ones:1000xf32",
                 "--arg", "z=zeros:1000xf32", "--arg", "n=1e3", "--print-outputs"]) == 0
    out = capsys.readouterr().out
    assert "%z = [2. 2. 2." in out and "0." not in out.split("%z = ")[1]


def test_tile_sim_file_errors(tmp_path: Path, capsys) -> None:
    empty = tmp_path / "empty.npy"
    empty.write_bytes(b"")
    assert main([str(VADD_PATH), "--arg", f"x={empty}", *VADD_ARGS[2:], "--arg", "n=8"]) == 1
    assert capsys.readouterr().err == (f"tile-sim: error: cannot load {empty} for argument %x: "
                                       f"No data left in file\n")
    trace = tmp_path / "no-such-directory" / "trace.json"
    assert main([str(VADD_PATH), *VADD_ARGS, "--arg", "n=8", "--trace", str(trace)]) == 1
    assert capsys.readouterr().err == (f"error: cannot write the trace {trace}: "
                                       f"No such file or directory\n")


@pytest.mark.parametrize("entry", ["simulate", "load_program"])
def test_an_unknown_profile_is_a_sim_error(entry: str) -> None:
    from tilec.sim import api

    text = "func.func @k() attributes {ascend.kernel = #ascend.core<aiv>} { return }"
    call = (lambda: simulate(text, [], profile="a100")) if entry == "simulate" else (
        lambda: api.load_program(text, profile="a100"))
    with pytest.raises(SimError, match=r"unknown architecture profile 'a100' \(known: 910b, "
                                       r"950\)"):
        call()
