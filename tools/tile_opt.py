"""tile-opt: mlir-opt for tilec — parse, run passes, print, check diagnostics.

Every failure is reported as `file:line:col: error: message` (or a plain
`error:` line) on stderr with exit code 1; a Python traceback reaching the
user is a bug.
"""

from __future__ import annotations

import sys
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from tilec.tools.guard import UsageError, run_guarded

if TYPE_CHECKING:
    from tilec.targets import Emitter

USAGE = """\
OVERVIEW: tilec modular optimizer driver

USAGE: tile-opt [options] [input file]   (reads stdin when no file or '-')

OPTIONS:
  -o <file>                      write the output to <file> ('-' is stdout)
{emit}
  --pass-pipeline=<pipeline>     a textual pipeline, e.g.
                                 'builtin.module(tile-canonicalize-ops,func.func(cse))'
  --<pass>[=<options>]           append a pass or named pipeline (tilec or upstream),
                                 e.g. --tile-verify-kernels="target=cuda" --canonicalize
  --split-input-file             process each '// -----' chunk of the input separately
  --verify-diagnostics           check 'expected-error' (warning/note/remark) comments
  --verify-each=<bool>           verify the IR after each pass (default true)
  --allow-unregistered-dialect   accept ops of unknown dialects
  --mlir-print-ir-after-all      print the IR after every pass (stderr)
  --mlir-print-ir-before-all     print the IR before every pass (stderr)
  --mlir-timing                  print per-pass wall time (stderr)
  --mlir-print-op-generic        print ops in their generic form
  --mlir-print-debuginfo         print locations
  --list-passes                  list tilec and upstream passes and pipelines
  --version                      print the tilec version
  -h, --help                     show this help
"""

_BOOL_FLAGS = {
    "split-input-file": "split_input_file",
    "verify-diagnostics": "verify_diagnostics",
    "allow-unregistered-dialect": "allow_unregistered",
    "mlir-print-ir-after-all": "print_ir_after_all",
    "mlir-print-ir-before-all": "print_ir_before_all",
    "mlir-timing": "timing",
    "mlir-print-op-generic": "print_generic",
    "mlir-print-debuginfo": "print_debuginfo",
    "mlir-disable-threading": "disable_threading",
    "verify-each": "verify_each",
}
_SPLIT_MARKER = "// -----"


def _emit_choices() -> dict[str, tuple[Emitter, str]]:
    """Every `--emit` value but `mlir`, with its emitter and the target spec it emits
    for: the targets' manifests declare them."""
    from tilec.targets import manifests

    choices = {}
    for target in manifests():
        for emitter in target.emitters:
            choices[emitter.name] = (emitter, target.name)
            if emitter.variants:
                for variant in target.description.variants:
                    choices[f"{emitter.name}:{variant}"] = (emitter, f"{target.name}:{variant}")
    return choices


def usage() -> str:
    """The help text, with the `--emit` choices that the targets' manifests declare."""
    from tilec.targets import manifests

    emitters = [(target, emitter) for target in manifests() for emitter in target.emitters]
    flag = f"  --emit=<{'|'.join(['mlir', *(emitter.name for _, emitter in emitters)])}>"
    lines = [f"{flag:<33}print the IR (default), or a target's output format:"]
    for target, emitter in emitters:
        text = f"{emitter.name}: {emitter.help}"
        if emitter.variants:
            variants = target.description.variants
            text = (f"{emitter.name}[:{'|'.join(variants)}]: {emitter.help}, for one "
                    f"{target.name} variant ({emitter.name} = {emitter.name}:{variants[0]})")
        lines += textwrap.wrap(text, 100, initial_indent=" " * 33, subsequent_indent=" " * 35,
                               break_on_hyphens=False)
    return USAGE.replace("{emit}\n", "\n".join(lines) + "\n")


@dataclass
class Options:
    input: str = "-"
    output: str = "-"
    pipeline: str | None = None
    pass_flags: list[str] = field(default_factory=list)
    split_input_file: bool = False
    verify_diagnostics: bool = False
    allow_unregistered: bool = False
    print_ir_after_all: bool = False
    print_ir_before_all: bool = False
    timing: bool = False
    print_generic: bool = False
    print_debuginfo: bool = False
    disable_threading: bool = False
    verify_each: bool = True
    emit: str = "mlir"
    list_passes: bool = False
    help: bool = False
    version: bool = False

    def pipeline_text(self) -> str:
        return self.pipeline if self.pipeline is not None else ",".join(self.pass_flags)


def parse_args(argv: list[str]) -> Options:
    """mlir-opt style: one or two dashes, `--flag=value` or `-o value`."""
    opts = Options()
    positional: list[str] = []
    args = iter(argv)
    for arg in args:
        if arg == "-" or not arg.startswith("-"):
            positional.append(arg)
            continue
        name, has_value, value = arg.lstrip("-").partition("=")
        if name in ("h", "help", "help-hidden"):
            opts.help = True
        elif name == "version":
            opts.version = True
        elif name == "list-passes":
            opts.list_passes = True
        elif name == "o":
            opts.output = value if has_value else next(args, None) or _missing("-o")
        elif name == "emit":
            opts.emit = value if has_value else next(args, None) or _missing(arg)
            choices = ["mlir", *_emit_choices()]
            if opts.emit not in choices:
                raise UsageError(f"option '--emit' expects {', '.join(choices[:-1])} or "
                                 f"{choices[-1]} but got '{opts.emit}'")
        elif name == "pass-pipeline":
            opts.pipeline = value if has_value else next(args, None) or _missing(arg)
        elif name in _BOOL_FLAGS:
            setattr(opts, _BOOL_FLAGS[name], _parse_bool(name, value) if has_value else True)
        elif _is_pass(name):
            opts.pass_flags.append(f"{name}{{{value}}}" if value else name)
        else:
            raise UsageError(f"unknown option '{arg}'; see 'tile-opt --help'")
    if len(positional) > 1:
        raise UsageError(
            f"expected one input file but got {len(positional)}: {' '.join(positional)}"
        )
    if positional:
        opts.input = positional[0]
    if opts.pipeline is not None and opts.pass_flags:
        raise UsageError("--pass-pipeline cannot be combined with individual pass flags")
    return opts


def _missing(flag: str) -> str:
    raise UsageError(f"option '{flag}' needs a value")


def _parse_bool(name: str, value: str) -> bool:
    if value in ("true", "1"):
        return True
    if value in ("false", "0"):
        return False
    raise UsageError(f"option '--{name}' expects true or false but got '{value}'")


def _is_pass(name: str) -> bool:
    """A tilec pass or pipeline, or one MLIR's own pipeline parser knows."""
    from mlir.ir import Context
    from mlir.passmanager import PassManager

    from tilec.passes import lookup

    if lookup(name) is not None:
        return True
    try:
        PassManager.parse(f"builtin.module({name})", Context())
    except ValueError:
        return False
    return True


def list_passes(out: TextIO) -> None:
    from tilec.passes import passes, pipelines
    from tilec.passes.upstream import upstream_passes

    def row(argument: str, summary: str) -> str:
        return f"  --{argument:<40} {summary}"

    print("tilec passes:", file=out)
    for cls in passes():
        print(row(cls.argument, cls.summary), file=out)
        for opt in cls.options():
            print(
                f"      {opt.flag}=<{opt.describe_type()}> (default {opt.default}) {opt.help}",
                file=out,
            )
    print("tilec pipelines:", file=out)
    for pipeline in pipelines():
        print(row(pipeline.argument, pipeline.summary), file=out)
        for flag, help_text in pipeline.options.items():
            print(f"      {flag}=<str> {help_text}", file=out)
    print("upstream passes:", file=out)
    for up in upstream_passes():
        if not up.is_pipeline:
            print(row(up.argument, up.summary), file=out)
    print("upstream pipelines:", file=out)
    for up in upstream_passes():
        if up.is_pipeline:
            print(row(up.argument, up.summary), file=out)


def _read_input(path: str) -> bytes:
    from tilec.diagnostics import error

    if path == "-":
        return sys.stdin.buffer.read()
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as exc:
        raise error(f"cannot open input file '{path}': {exc.strerror}") from None


def _chunks(text: str, split: bool) -> list[str]:
    """The chunks to process, each padded so its line numbers stay those of
    the whole file."""
    if not split:
        return [text]
    chunks: list[str] = []
    lines_before = 0
    current: list[str] = []
    for line in text.split("\n"):
        if line.strip() == _SPLIT_MARKER:
            chunks.append("\n" * lines_before + "\n".join(current))
            lines_before += len(current) + 1
            current = []
        else:
            current.append(line)
    chunks.append("\n" * lines_before + "\n".join(current))
    return chunks


def _process_chunk(chunk: str, name: str, opts: Options, context) -> str:
    """Parses, runs the pipeline and prints one chunk; raises CompileError."""
    from tilec import ir
    from tilec.passes import run_pipeline

    module = ir.parse_module(chunk, name, context)
    pipeline = opts.pipeline_text()
    if pipeline:
        run_pipeline(
            module,
            pipeline,
            print_ir_after_all=opts.print_ir_after_all,
            print_ir_before_all=opts.print_ir_before_all,
            timing=opts.timing,
            verify_each=opts.verify_each,
        )
    if opts.emit != "mlir":
        from tilec.targets import get_target

        emitter, spec = _emit_choices()[opts.emit]
        with context:
            return emitter.emit(module, get_target(spec))
    return module.operation.get_asm(
        print_generic_op_form=opts.print_generic,
        enable_debug_info=opts.print_debuginfo,
        assume_verified=False,
    )


def run(opts: Options) -> int:
    from tilec import __version__, ir
    from tilec.diagnostics import CompileError, collect, error, print_all
    from tilec.verify_diagnostics import check

    if opts.help:
        sys.stdout.write(usage())
        return 0
    if opts.version:
        print(f"tilec {__version__} (MLIR 22.1.8)")
        return 0
    if opts.list_passes:
        list_passes(sys.stdout)
        return 0

    name = "<stdin>" if opts.input == "-" else opts.input
    data = _read_input(opts.input)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start
        raise error(f"{name}: input is not UTF-8 text (invalid byte at offset {offset})") from None
    if "\0" in text:
        raise error(f"{name}: input contains a NUL byte; expected MLIR text")

    context = ir.make_context(allow_unregistered=opts.allow_unregistered)
    if opts.disable_threading:
        context.enable_multithreading(False)
    outputs: list[str] = []
    failed = False
    for chunk in _chunks(text, opts.split_input_file):
        with collect(context) as emitted:
            try:
                outputs.append(_process_chunk(chunk, name, opts, context))
            except CompileError as exc:
                emitted.extend(d for d in exc.diagnostics if d not in emitted)
                failed_chunk = True
            else:
                failed_chunk = False
        if opts.verify_diagnostics:
            problems = check(chunk, name, emitted)
            print_all(problems)
            failed |= bool(problems)
        else:
            print_all(emitted)
            failed |= failed_chunk
    if failed:
        return 1
    _write_output(opts.output, f"\n{_SPLIT_MARKER}\n".join(outputs))
    return 0


def _write_output(path: str, text: str) -> None:
    from tilec.diagnostics import error

    if path == "-":
        sys.stdout.write(text)
        return
    try:
        with open(path, "w") as f:
            f.write(text)
    except OSError as exc:
        raise error(f"cannot write output file '{path}': {exc.strerror}") from None


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return run_guarded("tile-opt", lambda: run(parse_args(args)))


if __name__ == "__main__":
    sys.exit(main())
