"""tilec-compile: compile a DSL kernel from a Python file and print its IR at
one stage of the target pipeline.

    tilec-compile examples/gemm.py --kernel 'matmul(256, 256, 256)' \
        --stage 'convert-tile-to-cpu{ops=tile.gemm}'
    tilec-compile examples/softmax.py --list-stages

The file is loaded as a module (its `if __name__ == "__main__"` block does
not run). `--kernel` is a kernel defined at the top of the file or a Python
expression evaluated in the file's namespace, such as a call of a kernel
factory; without it, the file must define exactly one kernel.
"""

from __future__ import annotations

import argparse
import runpy
import sys
import time
import traceback
from pathlib import Path

from tilec.diagnostics import CompileError, Diagnostic
from tilec.tools.guard import ArgumentParser, UsageError, run_guarded


def _is_kernel(value: object) -> bool:
    return callable(getattr(value, "build", None)) and hasattr(value, "name")


def _fail(message: str) -> CompileError:
    return CompileError(Diagnostic("error", message))


_MAIN_HINT = ' (the file is loaded as a module: put script code under `if __name__ == "__main__":`)'


def _user_error(exc: BaseException, path: Path, prefix: str = "", suffix: str = "") -> CompileError:
    """`exc`, raised by the user's code, at the innermost line of `path` in
    its traceback (without a location when the file is not in it)."""
    message = f"{prefix}{type(exc).__name__}: {exc}{suffix}"
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if f.filename == str(path)]
    if not frames:
        return _fail(message)
    frame = frames[-1]
    return CompileError(
        Diagnostic("error", message, str(path), frame.lineno or 0, (frame.colno or 0) + 1)
    )


def load_kernel(path: Path, expression: str | None) -> object:
    """The kernel object the user named in `path`."""
    if not path.is_file():
        raise _fail(f"cannot open input file '{path}'")
    try:
        namespace = runpy.run_path(str(path), run_name="__tilec_compile__")
    except SyntaxError as exc:
        raise CompileError(
            Diagnostic("error", f"invalid Python: {exc.msg}", str(path), exc.lineno or 0,
                       exc.offset or 0)
        ) from None
    except CompileError:
        raise
    except SystemExit as exc:  # a script's own exit, run because it has no __main__ guard
        raise _user_error(exc, path, suffix=_MAIN_HINT) from None
    except Exception as exc:  # the user's module failed, not tilec
        raise _user_error(exc, path) from None
    if expression is None:
        kernels = sorted(name for name, value in namespace.items() if _is_kernel(value))
        if len(kernels) != 1:
            found = ", ".join(kernels) if kernels else "none"
            raise _fail(
                f"{path} defines {len(kernels)} kernels at the top level ({found}); "
                "choose one with --kernel NAME or --kernel 'factory(args)'"
            )
        return namespace[kernels[0]]
    try:
        value = eval(expression, namespace)  # the user's own file and expression
    except CompileError:
        raise
    except Exception as exc:
        raise _user_error(exc, path, f"--kernel '{expression}' failed: ") from None
    if not _is_kernel(value):
        raise _fail(f"--kernel '{expression}' is a {type(value).__name__}, not a tilec kernel")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(
        prog="tilec-compile", description=__doc__.splitlines()[0].split(": ", 1)[1]
    )
    parser.add_argument("file", type=Path, help="a Python file with tilec kernels")
    parser.add_argument("--kernel", help="a kernel name or an expression giving one")
    parser.add_argument(
        "--target",
        help="cpu, cuda:sm_90a, ascend:910b, ... (default: $TILEC_TARGET, else the best one here)",
    )
    parser.add_argument(
        "--stage", default="tile", help="'tile', a pipeline element (see --list-stages), or 'llvm'"
    )
    parser.add_argument("--list-stages", action="store_true", help="list the stages and exit")
    parser.add_argument("--timing", action="store_true", help="print per-pass wall time")
    parser.add_argument("-o", dest="output", type=Path, help="write the IR to this file")
    args = sys.argv[1:] if argv is None else argv
    return run_guarded("tilec-compile", lambda: _run(parser.parse_args(args)))


def _run(args: argparse.Namespace) -> int:
    import tilec
    from tilec.backends import resolve
    from tilec.targets import TargetError

    try:
        # Checked even when only the tile IR is printed: a typo is an error.
        target = resolve(args.target)[0].spec
    except TargetError as exc:
        raise UsageError(str(exc)) from None
    kernel = load_kernel(args.file, args.kernel)
    if args.stage == "tile" and not (args.list_stages or args.timing):
        text = kernel.ir()
    else:
        start = time.perf_counter()
        compiled = tilec.compile(kernel, target=target, timing=args.timing)
        if args.list_stages:
            print("\n".join(compiled.stages()))
            return 0
        if args.stage not in compiled.stages():
            raise _fail(f"no stage '{args.stage}'; stages: {', '.join(compiled.stages())}")
        text = compiled.ir(args.stage)
        if args.timing:
            for name, seconds in compiled.timings().items():
                print(f"{seconds * 1e3:10.2f} ms  {name}", file=sys.stderr)
            print(f"{(time.perf_counter() - start) * 1e3:10.2f} ms  total", file=sys.stderr)
    if args.output is None:
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
    else:
        args.output.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
