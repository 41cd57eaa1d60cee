"""tilelang-ascend's expert-mode examples (its Programming Guide §4.2), one module each,
with only the imports changed (`import tilec as tilelang`, `import tilec.language as T`)
and the argparse/torch main left out; test_tla_expert_*.py drive them.

`load` executes a port afresh for one NPU profile (its `@tilelang.jit` factories
resolve the target when they are made), optionally with lines of its source
deleted or replaced first, as a user's edit would be: the copy is written to a
file of its own so that diagnostics point at its lines.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent


def load(name: str, profile: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
         edits: tuple[tuple[str, int, str], ...] = ()) -> tuple[ModuleType, Path]:
    """The port `name` compiled for `ascend:<profile>` (`cpu`: for the cpu, which runs a
    kernel of one kind of scope as sequential code). Each edit (pattern, n,
    replacement) replaces the n-th line that matches the regular expression
    `pattern` by `replacement` ("" deletes it)."""
    monkeypatch.setenv("TILEC_TARGET", "cpu" if profile == "cpu" else f"ascend:{profile}")
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    lines = (HERE / f"{name}.py").read_text().splitlines(keepends=True)
    replaced = {}
    for pattern, nth, replacement in edits:  # numbered in the original source
        hits = [i for i, line in enumerate(lines) if re.search(pattern, line)]
        assert len(hits) > nth, f"{pattern!r} matches {len(hits)} lines of {name}.py"
        indent = re.match(r"\s*", lines[hits[nth]]).group(0)
        replaced[hits[nth]] = indent + replacement + "\n" if replacement else "\n"
    lines = [replaced.get(i, line) for i, line in enumerate(lines)]
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"{name}_{profile}.py"
    path.write_text("".join(lines))
    spec = importlib.util.spec_from_file_location(f"tla_expert_{name}_{profile}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, path


def line_of(path: Path, pattern: str, nth: int = 0) -> int:
    """The 1-based number of the `nth` line of `path` that matches `pattern`."""
    hits = [i + 1 for i, line in enumerate(path.read_text().splitlines())
            if re.search(pattern, line)]
    return hits[nth]


def compiled(jit_kernel: object) -> object:
    """The CompiledKernel a JitKernel built at its (only) call so far."""
    kernels = list(jit_kernel._compiled.values())
    assert len(kernels) == 1
    return kernels[0]


def f32(*arrays: np.ndarray) -> list[np.ndarray]:
    return [a.astype(np.float32) for a in arrays]


def after(name: str, anchor: str, pattern: str) -> tuple[str, int]:
    """(pattern, n) for `load`'s edits: the first line matching `pattern` after the
    line of port `name` that matches `anchor`."""
    lines = (HERE / f"{name}.py").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if re.search(anchor, line))
    return pattern, sum(1 for line in lines[:start] if re.search(pattern, line))
