"""tile-sim in-process: inputs from .npy files, saved outputs, the trace, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sim_helpers import INPUTS

from tilec.tools.tile_sim import main

VADD = str(INPUTS / "vadd_double_buffer.mlir")


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
    text = (INPUTS / "vadd_double_buffer.mlir").read_text()
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
