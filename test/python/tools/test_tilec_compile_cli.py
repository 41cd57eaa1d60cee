"""tilec-compile: a DSL file's IR at any stage, and errors without tracebacks."""

from __future__ import annotations

import textwrap

import pytest

from tilec.tools.tilec_compile import main

KERNELS = textwrap.dedent(
    """
    import tilec.language as T

    def scale(n, factor):
        @T.prim_func
        def scale(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32")):
            with T.Kernel(T.ceildiv(n, 64), threads=64) as bx:
                t = T.alloc_fragment((64,), "float32")
                T.copy(X[bx * 64], t)
                for i in T.Parallel(64):
                    t[i] = t[i] * factor
                T.copy(t, Y[bx * 64])

        return scale

    doubled = scale(100, 2.0)

    if __name__ == "__main__":
        raise SystemExit("main must not run")
    """
)


@pytest.fixture
def kernels(tmp_path):
    path = tmp_path / "kernels.py"
    path.write_text(KERNELS)
    return path


def test_tile_stage_of_the_only_kernel_has_user_locations(kernels, capsys):
    assert main([str(kernels)]) == 0
    out = capsys.readouterr().out
    assert "tile.kernel" in out and "tile.parallel" in out
    assert f'loc("{kernels}":9:' in out  # the T.copy line


def test_stages_are_listed_and_printed(kernels, capsys, cpu_stage):
    assert main([str(kernels), "--kernel", "scale(256, 3.0)", "--list-stages"]) == 0
    stages = capsys.readouterr().out.splitlines()
    assert stages[0] == "tile" and stages[-1] == "llvm"
    parallel = cpu_stage("tile.parallel")
    assert parallel in stages
    assert main([str(kernels), "--kernel", "doubled", "--stage", parallel]) == 0
    out = capsys.readouterr().out
    assert "tile.parallel" not in out and "scf.for" in out
    assert main([str(kernels), "--kernel", "doubled", "--stage", "llvm"]) == 0
    assert "llvm.func @scale" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--kernel", "nothing_here"], "--kernel 'nothing_here' failed: NameError"),
        (["--kernel", "scale"], "is a function, not a tilec kernel"),
        (["--kernel", "doubled", "--stage", "nope"], "no stage 'nope'; stages: tile, "),
        (["--target", "bogus"],
         "tilec-compile: error: unknown target 'bogus'; targets: ascend, cpu, cuda"),
        (["--target", "cuda:sm_70", "--kernel", "doubled"], "unknown cuda variant 'sm_70'"),
    ],
)
def test_bad_requests_are_errors(kernels, capsys, args, message):
    assert main([str(kernels), *args]) == 1
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_missing_file_and_bad_python_are_errors(tmp_path, capsys):
    assert main([str(tmp_path / "none.py")]) == 1
    assert "cannot open input file" in capsys.readouterr().err
    bad = tmp_path / "bad.py"
    bad.write_text("def f(:\n")
    assert main([str(bad)]) == 1
    assert f"{bad}:1:7: error: invalid Python" in capsys.readouterr().err


def test_dsl_errors_point_at_the_users_line(tmp_path, capsys):
    path = tmp_path / "wrong.py"
    path.write_text(KERNELS.replace("t[i] * factor", "t[i] * X"))
    assert main([str(path), "--kernel", "doubled"]) == 1
    err = capsys.readouterr().err
    assert f"{path}:11:24: error:" in err
    assert "t[i] = t[i] * X" in err  # the source line, with a caret under it


def test_usage_mistakes_are_errors_with_exit_code_1(kernels, capsys):
    assert main([str(kernels), "--bogus"]) == 1
    assert capsys.readouterr().err == (
        "tilec-compile: error: unrecognized arguments: --bogus; see 'tilec-compile --help'\n"
    )
    assert main([]) == 1
    assert "tilec-compile: error: the following arguments are required: file" in (
        capsys.readouterr().err
    )


@pytest.mark.parametrize(
    ("source", "args", "where", "message"),
    [
        ('import tilec\n\nraise ValueError("x")\n', [], "3:1", "ValueError: x"),
        ("import sys\nsys.exit(3)\n", [], "2:1", "SystemExit: 3 (the file is loaded as a module"),
        (
            'def helper():\n    return {}["k"]\n\n\ndef factory():\n    return helper()\n',
            ["--kernel", "factory()"],
            "2:12",
            "--kernel 'factory()' failed: KeyError: 'k'",
        ),
    ],
)
def test_the_users_own_exceptions_are_located_at_the_users_line(
    tmp_path, capsys, source, args, where, message
):
    path = tmp_path / "user.py"
    path.write_text(source)
    assert main([str(path), *args]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:{where}: error: {message}")
    assert "internal error" not in err and "Traceback" not in err
