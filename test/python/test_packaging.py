"""The wheel holds every Python package of the tree: a package missing there
works in the editable checkout of `make build` but not in an installed tilec.

pyproject.toml maps whole folders into the wheel (`wheel.packages` of
scikit-build-core), subpackages included, so what can go wrong is a package
outside the mapped folders or two folders mapped onto one name. CMake
installs the dialect library and the generated builders; the slow test
builds the real wheel and installs it into a venv that never saw the build.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path, PurePosixPath

import pytest

# Top-level folders of the repository that are not part of the tilec package.
NOT_INSTALLED = {"test", "examples", "benchmarks"}
# What CMake installs into the wheel, next to the mapped folders.
BUILT = {
    "tilec/_lib/libTilecDialects.so",
    "tilec/dialects/_tile_ops_gen.py",
    "tilec/dialects/_tile_enum_gen.py",
    "tilec/dialects/_ascend_ops_gen.py",
    "tilec/dialects/_ascend_enum_gen.py",
}


def pyproject(repo: Path) -> dict:
    return tomllib.loads((repo / "pyproject.toml").read_text())


def wheel_packages(repo: Path) -> dict[str, Path]:
    """Package name -> its source folder, as the wheel's mapping lays them out."""
    mapping = pyproject(repo)["tool"]["scikit-build"]["wheel"]["packages"]
    packages: dict[str, Path] = {}
    for target, source in mapping.items():
        for init in sorted((repo / source).rglob("__init__.py")):
            parts = init.parent.relative_to(repo / source).parts
            name = ".".join((*PurePosixPath(target).parts, *parts))
            assert name not in packages, f"{name} comes from {packages[name]} and {init.parent}"
            packages[name] = init.parent
    return packages


def tree_packages(repo: Path) -> set[Path]:
    """Package folders of the checkout, tracked or new, that git does not ignore."""
    inits = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "--", "*__init__.py"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return {
        (repo / init).parent
        for init in inits
        if Path(init).parts[0] not in NOT_INSTALLED and (repo / init).exists()
    }


def test_every_package_is_in_the_wheel(repo):
    packages = wheel_packages(repo)
    assert {"tilec", "tilec.passes", "tilec.tools"} <= packages.keys()
    missing = tree_packages(repo) - set(packages.values())
    assert not missing, f"not mapped into the wheel by pyproject.toml: {sorted(missing)}"


def test_console_scripts_are_in_the_wheel(repo):
    packages = wheel_packages(repo)
    for script, entry in pyproject(repo)["project"]["scripts"].items():
        package, _, module = entry.partition(":")[0].rpartition(".")
        assert (packages[package] / f"{module}.py").is_file(), f"{script} -> {entry}"


def run(args: list, **kwargs) -> str:
    # A PYTHONPATH would let the fresh venv see the checkout.
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    result = subprocess.run(
        [str(a) for a in args], capture_output=True, text=True, env=env, **kwargs
    )
    assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


KERNEL = """\
import numpy as np

import tilec
import tilec.language as T

N = T.symbolic("N")


@tilec.kernel
def double(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 16), threads=1) as bx:
        x = T.alloc_fragment((16,), "float32")
        T.copy(X[bx * 16], x)
        for i in T.Parallel(16):
            x[i] = x[i] * 2.0
        T.copy(x, Y[bx * 16])


x = np.arange(40, dtype=np.float32)
y = np.zeros_like(x)
tilec.compile(double)(x, y)
assert (y == 2 * x).all(), y
print(tilec.__file__)
"""


@pytest.mark.slow
def test_wheel_installs_into_a_fresh_venv(repo, tmp_path):
    """`pip wheel .` runs the CMake build; the wheel runs a kernel in a new venv."""
    dist = tmp_path / "dist"
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", dist, repo], timeout=1800)
    [wheel] = dist.glob("tilec-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        archive.extract("tilec/_lib/libTilecDialects.so", tmp_path / "unpacked")
    sources = {
        "/".join((*name.split("."), path.name))
        for name, folder in wheel_packages(repo).items()
        for path in folder.glob("*.py")
    }
    assert sources | BUILT <= names, sorted((sources | BUILT) - names)
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]

    # The library finds MLIR relative to itself, wherever site-packages is.
    dynamic = run(["readelf", "-d", tmp_path / "unpacked/tilec/_lib/libTilecDialects.so"])
    [runpath] = [line for line in dynamic.splitlines() if "RUNPATH" in line]
    assert "[$ORIGIN/../../mlir/_mlir_libs:$ORIGIN/../../llvm/lib]" in runpath

    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv])
    run([venv / "bin/python", "-m", "pip", "install", wheel], timeout=1800)
    assert "USAGE: tile-opt" in run([venv / "bin/tile-opt", "--help"], cwd=tmp_path)
    assert "tile-to-cpu" in run([venv / "bin/tile-opt", "--list-passes"], cwd=tmp_path)
    for tool in ("tile-sim", "tilec-compile"):
        run([venv / "bin" / tool, "--help"], cwd=tmp_path)
    lowered = run([venv / "bin/tile-opt", repo / "examples/gemm.mlir", "--tile-to-cpu"])
    assert "llvm.func" in lowered
    script = tmp_path / "double.py"
    script.write_text(KERNEL)
    where = run([venv / "bin/python", script], cwd=tmp_path, timeout=600)
    assert where.strip().startswith(str(venv))
