"""tile-sim: run an `ascend` kernel in the simulator and print what happened.

    tile-sim kernel.mlir --kernel vadd --arg x=random:1024xf32 --arg y=y.npy \\
        --arg z=zeros:1024xf32 --arg n=1024 --block-dim 8 --profile 910b \\
        --trace timeline.json --print-outputs

Prints the report (cycles, pipe busy time, utilization, traffic per path) on
stdout. Races, deadlocks and flag misuse are printed as
`file:line:col: error: ...` on stderr and make the exit code 1, as does any
bad input or going over a budget (--max-steps, --max-cycles, --max-memory,
--max-blocks); a Python traceback reaching the user is a bug.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import numpy as np

from tilec.diagnostics import print_all
from tilec.sim import Budget, SimError, SimResult, load_program, simulate
from tilec.sim.dtypes import ELEMENT_TYPES
from tilec.sim.interpreter import Argument, Program
from tilec.sim.scheduler import FLAG_IDENTITIES
from tilec.targets.ascend.profiles import PROFILES, get_profile
from tilec.tools.generated_arrays import GENERATED, generated_array
from tilec.tools.guard import UsageError, run_guarded

USAGE_EPILOG = """\
argument values (--arg [NAME=]VALUE, in order or by name):
  random[:SHAPExTYPE]   normal floats / small integers (seeded by --seed)
  zeros[:SHAPExTYPE]    ones[:SHAPExTYPE]    arange[:SHAPExTYPE]
  FILE.npy              an array saved by numpy
  NUMBER                a scalar argument (index, integer or float); with a '.'
                        or an exponent it is read as a 64-bit float
  SHAPE is like 64x128 and TYPE an element type (f16, bf16, f32, i8, i32, ...);
  both default to the argument's memref type when it is static. GM arguments
  of static shape that are not given start as zeros. An index or integer
  argument must be a whole number in the range of its type (1e3 is 1000).
"""

_SIZE = re.compile(r"^(\d+)([KMG]?)$", re.IGNORECASE)


def _count(minimum: int) -> Callable[[str], int]:
    """An argparse type: an integer of at least `minimum`."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid integer '{text}'") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, not {value}")
        return value

    return parse


def _size(text: str) -> int:
    """An argparse type: a number of bytes, with an optional K/M/G (KiB/MiB/GiB) suffix."""
    match = _SIZE.match(text)
    if match is None:
        raise argparse.ArgumentTypeError(f"invalid size '{text}' (expected like 8G or 512M)")
    return _count(1)(match.group(1)) * 1024 ** " KMG".index(match.group(2).upper() or " ")


_BUDGETS = (
    ("max_steps", _count(1), "interpreted steps, all cores together"),
    ("max_cycles", _count(1), "simulated cycles"),
    ("max_memory", _size, "bytes of GM arguments and on-chip memories; K, M, G suffixes"),
    ("max_blocks", _count(1), "blocks (--block-dim)"),
)
"""The budget options: going over one is an error that names it."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="tile-sim", description="Simulate an ascend kernel on numpy data.",
                     epilog=USAGE_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", help="the .mlir file ('-' reads stdin)")
    parser.add_argument("--kernel", help="the kernel function (default: the only one)")
    parser.add_argument("--arg", action="append", default=[], metavar="[NAME=]VALUE",
                        help="a kernel argument (see below)")
    parser.add_argument("--block-dim", type=int, default=1, help="number of blocks (default 1)")
    parser.add_argument("--profile", default=next(iter(PROFILES)),
                        help=f"architecture profile: {' or '.join(PROFILES)}")
    parser.add_argument("--flag-identity", choices=FLAG_IDENTITIES, default="pair",
                        help="how the hardware names a flag: pair = (source pipe, destination "
                             "pipe, event), source = (source pipe, event): sets to two pipes "
                             "with one id collide (default pair)")
    parser.add_argument("--trace", metavar="FILE", help="write a Chrome-trace/Perfetto timeline")
    parser.add_argument("--print-outputs", action="store_true",
                        help="print every GM argument after the run")
    parser.add_argument("--save-outputs", metavar="DIR",
                        help="save every GM argument as DIR/NAME.npy")
    parser.add_argument("--seed", type=_count(0), default=0,
                        help="seed of random inputs (default 0)")
    for name, kind, what in _BUDGETS:
        default = getattr(Budget, name)
        parser.add_argument("--" + name.replace("_", "-"), type=kind, default=default,
                            metavar="N", help=f"budget: the most {what} (default {default})")
    return parser


_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$")


def _shape_and_type(spec: str | None, argument: Argument) -> tuple[tuple[int, ...], str]:
    if spec is None:
        if not argument.type.has_static_shape:
            raise UsageError(f"argument %{argument.name} has dynamic shape {argument.type}: "
                             f"give it as {argument.name}=random:SHAPExTYPE")
        return tuple(argument.type.shape), str(argument.type.element_type)
    *dims, last = spec.split("x")
    if re.fullmatch(r"\d+", last):
        dims.append(last)
        last = str(argument.type.element_type)
    if not all(re.fullmatch(r"\d+", d) for d in dims):
        raise UsageError(f"bad shape '{spec}' for argument %{argument.name} (expected like "
                         f"64x128xf16)")
    return tuple(int(d) for d in dims), last


def _generated(kind: str, spec: str | None, argument: Argument, rng: np.random.Generator,
               budget: Budget, where: str) -> np.ndarray:
    shape, type_name = _shape_and_type(spec, argument)
    element = ELEMENT_TYPES.get(type_name)
    if element is None:
        raise UsageError(f"unknown element type '{type_name}' for argument %{argument.name}")
    # Refused before numpy tries: 10^11 elements would be an OOM, 10^20 a numpy error.
    budget.charge_memory(math.prod(shape) * element.itemsize, f"argument %{argument.name}",
                         where)
    if any(d >= 2**62 for d in shape):  # past what numpy can index, with a 0 dim
        raise UsageError(f"shape '{spec}' of argument %{argument.name} has a dimension "
                         f"past 2**62")
    return generated_array(kind, shape, element, rng)


def _number(text: str, argument: Argument) -> int | float:
    """The number `text` as written (simulate checks that it suits the argument's type)."""
    if not re.search(r"[.eE]", text):
        return int(text)
    value = float(text)
    if math.isinf(value):
        raise UsageError(f"argument %{argument.name} ({argument.type}): {text} is out of the "
                         f"range of a 64-bit float")
    return value


def _value(text: str, argument: Argument, rng: np.random.Generator, budget: Budget,
           where: str) -> object:
    generated = GENERATED.match(text)
    if generated and argument.is_memref:
        return _generated(generated.group(1), generated.group(2), argument, rng, budget, where)
    if _NUMBER.match(text) and not argument.is_memref:
        return _number(text, argument)
    if text.endswith(".npy") and argument.is_memref:
        try:
            # Mapped, not read: simulate checks the size against the memory budget first.
            return np.load(text, mmap_mode="r", allow_pickle=False)
        except (OSError, ValueError, EOFError, OverflowError) as exc:
            raise UsageError(f"cannot load {text} for argument %{argument.name}: {exc}") from None
    kind = "an array (random/zeros/ones/arange/FILE.npy)" if argument.is_memref else "a number"
    raise UsageError(f"argument %{argument.name} ({argument.type}) needs {kind}, not '{text}'")


def _inputs(program: Program, specs: list[str], seed: int,
            budget: Budget) -> dict[str, object]:
    rng = np.random.default_rng(seed)
    arguments = {a.name: a for a in program.arguments}
    given: dict[str, str] = {}
    position = 0
    for spec in specs:
        name, sep, text = spec.partition("=")
        if sep and name in arguments:
            given[name] = text
            continue
        if sep and re.fullmatch(r"[\w$.-]+", name):
            raise UsageError(f"no kernel argument named '{name}' "
                             f"(arguments: {', '.join(arguments)})")
        while position < len(program.arguments) and program.arguments[position].name in given:
            position += 1
        if position >= len(program.arguments):
            raise UsageError(f"too many --arg values: the kernel has {len(arguments)} arguments")
        given[program.arguments[position].name] = spec
    values = {}
    for argument in program.arguments:
        text = given.get(argument.name)
        if text is None:
            if not (argument.is_memref and argument.type.has_static_shape):
                raise UsageError(f"missing --arg for %{argument.name} ({argument.type})")
            text = "zeros"
        values[argument.name] = _value(text, argument, rng, budget, program.site.location)
    return values


def _print_outputs(result: SimResult) -> None:
    for name, array in result.outputs.items():
        text = np.array2string(array, threshold=256, precision=4, suppress_small=True,
                               max_line_width=100)
        print(f"%{name} = {text}")


def run(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    try:
        profile = get_profile(options.profile)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    try:
        if options.input == "-":
            program = load_program(sys.stdin.read(), kernel=options.kernel, profile=profile,
                                   source_name="<stdin>")
        else:
            program = load_program(Path(options.input), kernel=options.kernel, profile=profile)
        limits = {name: getattr(options, name) for name, _, _ in _BUDGETS}
        inputs = _inputs(program, options.arg, options.seed, Budget(**limits))
        result = simulate(program, inputs, profile=profile, block_dim=options.block_dim,
                          trace=options.trace, flag_identity=options.flag_identity, **limits)
    except SimError as exc:
        print_all(exc.diagnostics)
        return 1
    print(result.report())
    if options.print_outputs:
        _print_outputs(result)
    if options.save_outputs:
        directory = Path(options.save_outputs)
        directory.mkdir(parents=True, exist_ok=True)
        for name, array in result.outputs.items():
            np.save(directory / f"{name}.npy", array)
    # The report comes first also when both streams go to one pipe.
    sys.stdout.flush()
    print_all(result.diagnostics)
    return 0 if result.ok else 1


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return run_guarded("tile-sim", lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
