"""The README's first kernel runs as written and prints a small error."""

from __future__ import annotations

import re
import subprocess
import sys


def test_first_kernel_runs_as_written(repo, tmp_path):
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
    assert "tile-lower-gemm" in stages.stdout.split()
