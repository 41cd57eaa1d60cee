"""What a new user runs first: the README's first kernel and the demo."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys

import pytest

pytestmark = pytest.mark.e2e


def test_first_kernel_runs_as_written(repo, tmp_path, cpu_stage):
    readme = (repo / "README.md").read_text()
    [code] = re.findall(r"```python\n(# first_kernel\.py\n.*?)```", readme, re.S)
    script = tmp_path / "first_kernel.py"
    script.write_text(code)
    result = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert float(result.stdout.split()[0]) < 1e-4
    stages = subprocess.run(
        [sys.executable, "-m", "tilec.tools.tilec_compile", str(script), "--list-stages"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert cpu_stage("tile.gemm") in stages.stdout.splitlines()


def test_make_demo_script_succeeds(repo):
    """`make demo` runs examples/demo.py; it checks its own numbers."""
    result = subprocess.run(
        [sys.executable, str(repo / "examples" / "demo.py")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert "races: 0" in result.stdout and "max |z - (x + y)| = 0" in result.stdout


def test_the_expert_parallel_example_runs(repo):
    """The README's EP example: two gloo ranks dispatch and combine, checked in the script."""
    pytest.importorskip("torch")
    result = subprocess.run(
        [sys.executable, str(repo / "examples" / "ep_dispatch.py")],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MASTER_PORT": str(_free_port())},
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    assert result.stdout.count("combined exactly") == 2


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
