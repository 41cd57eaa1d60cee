"""A target is its folders and nothing else: one manifest per target, found, not listed.

Every built-in target's manifest names a description, a backend with its driver, a
passes package, a pipeline and its emitters that all load and agree with each other,
and lives in the target's own folders; `tile-opt --help` and `--emit` offer exactly
the manifests' emitters. A toy target written outside the tree (a package and a
`tilec.targets` entry point, as a distribution installs them) registers itself with
no edit to tilec: tile-opt runs a kernel through its pipeline and emitter, and
`tilec.compile` runs one through its backend.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from tilec.backends.base import Backend, Driver, Options
from tilec.passes import NamedPipeline, lookup
from tilec.targets import TargetDescription, get_target, manifests
from tilec.tools import tile_opt

REPO = Path(__file__).resolve().parents[2]
TOOLS = Path(sys.executable).parent


@pytest.mark.parametrize("target", manifests(), ids=lambda t: t.name)
def test_every_manifest_is_complete(target):
    description = target.description
    assert issubclass(description, TargetDescription)
    for variant in description.variants:
        spec = f"{target.name}:{variant}"
        assert get_target(spec).spec == spec
    backend = target.backend_instance
    assert isinstance(backend, Backend)
    assert backend.name == target.name
    assert issubclass(backend.options_type, Options)
    assert isinstance(target.driver, Driver)
    pipeline = lookup(target.pipeline)
    assert isinstance(pipeline, NamedPipeline)
    assert pipeline.argument == f"tile-to-{target.name}"
    for variant in description.variants:
        text = pipeline.pipeline_text(f"target={target.name}:{variant}")
        assert f"tile-verify-kernels{{target={target.name}:{variant}}}" in text
    for emitter in target.emitters:
        assert callable(emitter.emit)
        assert emitter.help
    assert target.preference >= 0


@pytest.mark.parametrize("target", manifests(), ids=lambda t: t.name)
def test_a_built_in_target_is_its_three_folders(target):
    name = target.name
    assert (REPO / "python" / "tilec" / "targets" / name / "__init__.py").is_file()
    assert target.backend.startswith(f"tilec.backends.{name}.")
    assert target.passes == f"tilec.passes.conversion.tile_to_{name}"
    for emitter in target.emitters:
        assert emitter.function.startswith(f"tilec.backends.{name}.")


def _emit_choices(help_text: str) -> list[str]:
    return re.search(r"--emit=<([^>]*)>", help_text).group(1).split("|")


def test_help_lists_exactly_the_emitters_of_the_manifests(capsys):
    assert tile_opt.main(["--help"]) == 0
    emitters = [emitter.name for target in manifests() for emitter in target.emitters]
    assert _emit_choices(capsys.readouterr().out) == ["mlir", *emitters]
    assert sorted(emitters) == ["ascendc", "ptx"]


def test_preference_picks_a_gpu_before_the_host_and_never_the_simulator():
    ranked = sorted((t for t in manifests() if t.preference), key=lambda t: -t.preference)
    assert [t.name for t in ranked] == ["cuda", "cpu"]


TOY_PACKAGE = {
    "__init__.py": '''
        """A toy target: the host's code, with a block of at most 64 threads."""
        from dataclasses import dataclass

        from tilec.targets import Emitter, Target, TargetDescription


        @dataclass(frozen=True)
        class ToyTarget(TargetDescription):
            name = "toy"
            variants = ("v1", "v2")
            max_threads: int = 64


        TARGET = Target(
            description=ToyTarget,
            backend="toy_target.backend:ToyBackend",
            passes="toy_target.passes",
            pipeline="tile-to-toy",
            emitters=(Emitter("toy-ops", "toy_target.emit:op_names",
                              "the names of the module's ops, one a line", variants=True),),
        )
    ''',
    "passes.py": '''
        from tilec.passes import register_pipeline
        from tilec.targets import target_of
        from toy_target import ToyTarget


        def tile_to_toy(target: ToyTarget) -> str:
            return f"tile-verify-kernels{{target={target.spec}}},tile-canonicalize-ops,cse"


        register_pipeline("tile-to-toy", "Check tile kernels for the toy target",
                          lambda target="toy": tile_to_toy(target_of(ToyTarget, target)),
                          {"target": "the toy target: toy:v1 (default) or toy:v2"})
    ''',
    "emit.py": '''
        def op_names(module, target) -> str:
            names = []
            module.operation.walk(lambda op: names.append(op.name) or 0)
            return "\\n".join([f"// {target.spec}", *names]) + "\\n"
    ''',
    "backend.py": '''
        from tilec.backends.cpu.compiler import CpuBackend
        from tilec.passes.conversion.tile_to_cpu.pipelines import tile_to_cpu
        from tilec.targets import get_target


        class ToyBackend(CpuBackend):
            """The host's JIT, after the toy's own checks."""

            name = "toy"

            def pipeline(self, target, options):
                checks = f"tile-verify-kernels{{target={target.spec}}}"
                return f"{checks},{tile_to_cpu(get_target('cpu'))}"
    ''',
}

KERNEL = """
func.func @copy(%X: memref<?xf32>, %Y: memref<?xf32>, %nb: index) attributes {tile.entry} {
  tile.kernel blocks(%bx) in (%nb) threads = THREADS {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %base = arith.muli %bx, %c64 : index
    %t = tile.alloc : memref<64xf32, #tile.scope<fragment>>
    tile.copy %X[%base], %t[%c0] : memref<?xf32>, memref<64xf32, #tile.scope<fragment>>
    tile.copy %t[%c0], %Y[%base] : memref<64xf32, #tile.scope<fragment>>, memref<?xf32>
  }
  return
}
"""

COMPILE = """
import numpy as np
import tilec
import tilec.language as T

N = T.symbolic("N")

@T.prim_func
def double(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32")):
    with T.Kernel(T.ceildiv(N, 64), threads=THREADS) as bx:
        t = T.alloc_fragment((64,), "float32")
        T.copy(X[bx * 64], t)
        for i in T.Parallel(64):
            t[i] = t[i] * 2.0
        T.copy(t, Y[bx * 64])

kernel = tilec.compile(double, target="toy")
x = np.arange(100, dtype=np.float32)
y = np.zeros_like(x)
kernel(x, y)
print(kernel.target, *y[[0, 1, 63, 64, 99]])
"""


@pytest.fixture(scope="module")
def toy(tmp_path_factory) -> Path:
    """A directory on PYTHONPATH holding the toy target's package and the entry point
    that an installed distribution of it would have."""
    root = tmp_path_factory.mktemp("toy")
    package = root / "toy_target"
    package.mkdir()
    for name, text in TOY_PACKAGE.items():
        (package / name).write_text(textwrap.dedent(text).lstrip())
    info = root / "toy_target-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: toy-target\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[tilec.targets]\ntoy = toy_target:TARGET\n")
    return root


def _run(toy: Path, command: list[str], stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(command, input=stdin, capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": str(toy), "PATH": str(TOOLS)}, check=False)


def test_a_toy_target_runs_through_tile_opt_and_its_emitter(toy):
    help_text = _run(toy, [str(TOOLS / "tile-opt"), "--help"]).stdout
    assert _emit_choices(help_text)[-1] == "toy-ops"
    assert "toy-ops[:v1|v2]: the names of the module's ops" in help_text

    tile_opt_run = [str(TOOLS / "tile-opt"), "-", "--tile-to-toy=target=toy:v2",
                    "--emit=toy-ops:v2"]
    done = _run(toy, tile_opt_run, KERNEL.replace("THREADS", "32"))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.split()
    assert lines[:2] == ["//", "toy:v2"]
    assert lines.count("tile.copy") == 2 and "tile.kernel" in lines and "func.func" in lines

    # the toy's own rule, from its description, checked by the pass every target shares
    done = _run(toy, tile_opt_run, KERNEL.replace("THREADS", "128"))
    assert done.returncode == 1
    assert "<stdin>:3:3: error: expected a thread count that is at least 1 and at most 64 on " \
           "toy:v2 but got 128" in done.stderr

    done = _run(toy, [str(TOOLS / "tile-opt"), "-", "--tile-to-toy=target=cpu"],
                KERNEL.replace("THREADS", "32"))
    assert "'cpu' is not a toy target (toy:v1, toy:v2)" in done.stderr


def test_a_toy_target_compiles_and_runs_a_kernel_through_its_backend(toy):
    done = _run(toy, [sys.executable, "-c", COMPILE.replace("THREADS", "32")])
    assert done.returncode == 0, done.stderr
    target, *values = done.stdout.split()
    assert target == "toy:v1"
    np.testing.assert_array_equal(np.array(values, dtype=np.float32), [0, 2, 126, 128, 198])

    done = _run(toy, [sys.executable, "-c", COMPILE.replace("THREADS", "128")])
    assert done.returncode == 1
    assert "at most 64 on toy:v1 but got 128" in done.stderr
