"""lit configuration: tile-opt, tile-sim and the Python FileCheck on PATH."""

import os
import shutil
import sys

import lit.formats

config.name = "tilec"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir"]
config.excludes = ["Inputs", "python", "lit.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.test_source_root, "..", "build", "lit")

# The tools come from the environment lit runs in (the project's venv).
bin_dir = os.path.dirname(sys.executable)
config.environment["PATH"] = os.pathsep.join([bin_dir, config.environment.get("PATH", "")])
for var in ("HOME", "TMPDIR"):
    if var in os.environ:
        config.environment[var] = os.environ[var]


def tool(name):
    path = shutil.which(name, path=bin_dir) or shutil.which(name)
    if path is None:
        lit_config.fatal(f"'{name}' not found next to {sys.executable}; install tilec first")
    return path


import mlir

mlir_bin = os.path.join(next(iter(mlir.__path__)), "bin")
repo = os.path.abspath(os.path.join(config.test_source_root, ".."))
tilec_lib = os.path.join(repo, "python", "tilec", "_lib", "libTilecDialects.so")
config.substitutions.append(("%tilec_lib", tilec_lib))
config.substitutions.append(("%python", sys.executable))
for name in ("tile-opt", "tile-sim", "filecheck"):
    config.substitutions.append((rf"(?<![\w-]){name}(?![\w-])", tool(name)))
config.substitutions.append((r"(?<![\w-])mlir-opt(?![\w-])", os.path.join(mlir_bin, "mlir-opt")))
