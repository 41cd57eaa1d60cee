"""tile-sim in-process: inputs from .npy files, saved outputs, the trace, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sim_helpers import INPUTS

from tilec.tools.tile_sim import main

VADD = str(INPUTS / "vadd-double-buffer.mlir")


def test_npy_inputs_saved_outputs_and_trace(tmp_path: Path, capsys) -> None:
    x = np.linspace(-1, 1, 600, dtype=np.float32)
    np.save(tmp_path / "x.npy", x)
    trace = tmp_path / "trace.json"
    code = main([VADD, "--arg", f"x={tmp_path / 'x.npy'}", "--arg", "y=ones:600xf32",
                 "--arg", "z=zeros:600xf32", "--arg", "n=600", "--block-dim", "2",
                 "--trace", str(trace), "--save-outputs", str(tmp_path / "out")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert captured.err == ""
    assert "races: 0" in captured.out
    np.testing.assert_array_equal(np.load(tmp_path / "out" / "z.npy"), x + 1)

    events = json.loads(trace.read_text())["traceEvents"]
    cores = {e["args"]["name"] for e in events if e.get("name") == "process_name"}
    assert cores == {"block 0 aiv0", "block 1 aiv1"}
    pipes = {e["args"]["name"] for e in events if e.get("name") == "thread_name"}
    assert pipes == {"S", "V", "MTE2", "MTE3"}
    ops = [e for e in events if e.get("ph") == "X"]
    adds = [e for e in ops if e["name"] == "ascend.vbin add"]
    assert len(adds) == 3  # 600 elements: chunks of 256 over two cores
    assert all(e["args"]["location"].startswith(VADD + ":") for e in ops)
    assert max(e["args"]["start_cycle"] + e["args"]["cycles"] for e in ops) == max(
        int(line.split()[1]) for line in captured.out.splitlines() if line.startswith("cycles:"))


def test_races_make_exit_code_one(tmp_path: Path, capsys) -> None:
    text = (INPUTS / "vadd-double-buffer.mlir").read_text()
    broken = tmp_path / "broken.mlir"
    broken.write_text(text.replace("    ascend.wait_flag mte2 -> v, 0\n", "", 1).replace(
        "    ascend.set_flag mte2 -> v, 0\n", "", 1))
    code = main([str(broken), "--arg", "x=random:512", "--arg", "y=random:512",
                 "--arg", "z=zeros:512", "--arg", "n=512"])
    captured = capsys.readouterr()
    assert code == 1
    assert "races: 2" in captured.out
    assert captured.err.startswith(f"{broken}:")
    assert ": error: race (" in captured.err


@pytest.mark.parametrize(("argv", "message"), [
    ([VADD, "--block-dim", "x"], "tile-sim: error: argument --block-dim: invalid int value: 'x'"),
    ([VADD, "--arg", "x=random"], "tile-sim: error: argument %x has dynamic shape"),
    ([], "tile-sim: error: the following arguments are required: input"),
])
def test_usage_errors(argv: list[str], message: str, capsys) -> None:
    assert main(argv) == 1
    assert capsys.readouterr().err.startswith(message)


DIM_PAST_RANK = """func.func @k(%a: memref<?x?xf32, #ascend.mem<gm>>)
    attributes {ascend.kernel = #ascend.core<aiv>} {
  %c5 = arith.constant 5 : index
  %d = memref.dim %a, %c5 : memref<?x?xf32, #ascend.mem<gm>>
  return
}
"""


def _huge_npy(path: Path) -> Path:
    """A valid .npy header for shape (0, 10**20): no data, a shape numpy cannot hold."""
    np.save(path, np.zeros((0, 3), np.float32))
    path.write_bytes(path.read_bytes().replace(b"(0, 3)", b"(0, 100000000000000000000)"))
    return path


def test_edge_case_inputs_are_diagnostics_not_internal_errors(tmp_path: Path, capsys) -> None:
    """Issue 22: each of these once ended in an internal error, a MemoryError after
    half a minute, or numpy's warning on stderr."""
    kernel = tmp_path / "dim.mlir"
    kernel.write_text(DIM_PAST_RANK)
    cases = [
        (["--arg", "zeros:0x99999999999999999999xf32"], "has a dimension past 2**62"),
        (["--arg", str(_huge_npy(tmp_path / "huge.npy"))], "cannot load"),
        (["--arg", "zeros:4x4xf32"], "dim.mlir:4:8: error: memref.dim of dimension 5 of a "
                                     "rank-2 memref"),
        (["--arg", "zeros:4x4xf32", "--block-dim", "100000000", "--max-blocks", "1000000000"],
         "error: race detection over 100000000 blocks needs"),
    ]
    for extra, message in cases:
        assert main([str(kernel), *extra]) == 1
        err = capsys.readouterr().err
        assert message in err and "internal error" not in err, err
    # arange past f16's range is inf, without numpy's overflow warning
    kernel.write_text(DIM_PAST_RANK.replace("%c5 = arith.constant 5", "%c5 = arith.constant 1"))
    assert main([str(kernel), "--arg", "arange:300x300xf16"]) == 0
    assert "Warning" not in capsys.readouterr().err
