"""`tilec-run-ascendc`: an emitted AscendC file run on the CPU model from the command line,
with its arrays from .npy files or generated, outputs saved; its mistakes and the kernel's
hazards as one error line and exit code 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import test_ascend_vector_kernels as vector_tests
from vendor_headers import needs_devkit

import tilec
from tilec.tools.run_ascendc import main

pytestmark = pytest.mark.e2e


def _source(tmp_path: Path, body=lambda a, b: a + b) -> tuple[Path, list[str]]:
    kernel = tilec.compile(vector_tests.elementwise(37, 70, body, "float32"),
                           target="ascend:910b")
    path = tmp_path / "kernel.cpp"
    path.write_text(kernel.source())
    return path, [param.name for param in kernel.params]


@needs_devkit
def test_a_file_runs_on_npy_inputs_and_saves_its_outputs(tmp_path, capsys):
    path, params = _source(tmp_path)
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((37, 70)).astype(np.float32) for _ in range(2))
    np.save(tmp_path / "a.npy", a)
    np.save(tmp_path / "b.npy", b)
    code = main([str(path), "--arg", str(tmp_path / "a.npy"), "--arg", str(tmp_path / "b.npy"),
                 "--arg", "zeros:37x70xf32", "--save-outputs", str(tmp_path / "out")])
    assert code == 0, capsys.readouterr().err
    assert len(list((tmp_path / "out").glob("*.npy"))) == 3
    np.testing.assert_array_equal(np.load(tmp_path / "out" / f"{params[-1]}.npy"), a + b)
    np.testing.assert_array_equal(np.load(tmp_path / "out" / f"{params[0]}.npy"), a)
    assert "ran on 1 AI cores of the 910b model" in capsys.readouterr().out


@needs_devkit
def test_a_hazard_in_the_file_is_an_error_at_its_line(tmp_path, capsys):
    # Muls, then Add and Mul each reading the one before: a PipeBarrier<PIPE_V> between
    path, _ = _source(tmp_path, lambda a, b: (a * 0.75 + b) * a)
    text = path.read_text()
    assert "PipeBarrier<PIPE_V>();" in text
    path.write_text(text.replace("PipeBarrier<PIPE_V>();", "", 1))
    code = main([str(path), "--arg", "random:37x70xf32", "--arg", "random:37x70xf32",
                 "--arg", "zeros:37x70xf32"])
    err = capsys.readouterr().err
    assert code == 1
    assert f"{path}: error: " in err and "kernel.cpp:" in err


@pytest.mark.parametrize(("args", "message"), [
    (["--arg", "3"], "needs an array"),
    (["--arg", "random:37x70"], "needs a shape and an element type"),
    (["--arg", "zeros:37x70xf32"], "missing --arg for"),
    (["--arg", "nope=1"], "has no parameter 'nope'"),
])
def test_usage_mistakes_are_one_error_line(tmp_path, capsys, args, message):
    path, _ = _source(tmp_path)
    assert main([str(path), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tilec-run-ascendc: error: ") and message in err, err
    assert "Traceback" not in err
