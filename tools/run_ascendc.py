"""tilec-run-ascendc: run an AscendC source on the CPU, over tilec's model of the intrinsics.

    ASCEND_DEVKIT=/path/to/asc-devkit tilec-run-ascendc kernel.cpp --profile 950 \\
        --block-dim 8 --arg x=x.npy --arg y=random:1024xf32 --arg z=zeros:1024xf32 \\
        --arg n=1024 --save-outputs out/

The source is what `kernel.source()` emits (or an edit of it): it is compiled against the
vendor's class-API headers in their CPU-debug mode and run with every AIC and AIV of the
grid a thread (`tilec.backends.ascend.cpu_model`). Its `GM_ADDR` parameters take arrays
(their element type is not in the C++, so a generated one names it), its scalars numbers.
A hazard, a deadlock or a flag misuse stops the run with the line of the C++, exit code 1.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from pathlib import Path

import numpy as np

from tilec.backends.ascend.ascendc.tables import ARCH
from tilec.backends.ascend.cpu_model import AscendCRunError, BuildError, run_source
from tilec.backends.ascend.cpu_model.runner import SCALAR_TYPES, Entry
from tilec.sim.dtypes import ELEMENT_TYPES
from tilec.tools.generated_arrays import GENERATED, generated_array
from tilec.tools.guard import ArgumentParser, UsageError, run_guarded

EPILOG = """\
argument values (--arg [NAME=]VALUE, in the entry's order or by name):
  random:SHAPExTYPE   normal floats / small integers (seeded by --seed)
  zeros:SHAPExTYPE    ones:SHAPExTYPE    arange:SHAPExTYPE
  FILE.npy            an array saved by numpy
  NUMBER              a scalar parameter
  SHAPE is like 64x128 and TYPE an element type (f16, bf16, f32, i8, i32, ...).
"""


def _parser() -> ArgumentParser:
    parser = ArgumentParser(prog="tilec-run-ascendc", epilog=EPILOG,
                            description="Run an AscendC kernel on the CPU model.",
                            formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="the .cpp/.asc file")
    parser.add_argument("--profile", default="910b", choices=sorted(ARCH),
                        help="the NPU whose intrinsics the model runs (default 910b)")
    parser.add_argument("--block-dim", type=int, default=1, help="AI cores (default 1)")
    parser.add_argument("--arg", action="append", default=[], metavar="[NAME=]VALUE")
    parser.add_argument("--seed", type=int, default=0, help="seed of random inputs")
    parser.add_argument("--print-outputs", action="store_true",
                        help="print every array after the run")
    parser.add_argument("--save-outputs", metavar="DIR", help="save every array as DIR/NAME.npy")
    return parser


def _array(name: str, text: str, rng: np.random.Generator) -> np.ndarray:
    generated = GENERATED.match(text)
    if generated:
        *dims, type_name = (generated.group(2) or "").split("x")
        element = ELEMENT_TYPES.get(type_name)
        if not dims or not all(re.fullmatch(r"\d+", d) for d in dims) or element is None:
            raise UsageError(f"{name}: '{text}' needs a shape and an element type, like "
                             f"{generated.group(1)}:64x128xf16 (the C++ has neither)")
        return generated_array(generated.group(1), tuple(map(int, dims)), element, rng)
    if text.endswith(".npy"):
        try:
            return np.ascontiguousarray(np.load(text, allow_pickle=False))
        except (OSError, ValueError, EOFError) as exc:
            raise UsageError(f"cannot load {text} for {name}: {exc}") from None
    raise UsageError(f"{name} is a GM_ADDR: it needs an array (random/zeros/ones/arange:"
                     f"SHAPExTYPE or FILE.npy), not '{text}'")


def _scalar(name: str, ctype: str, text: str) -> object:
    try:
        value = float(text) if SCALAR_TYPES[ctype] in (np.float16, np.float32, np.float64) \
            else int(text)
    except ValueError:
        raise UsageError(f"{name} ({ctype}) needs a number, not '{text}'") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise UsageError(f"{name} ({ctype}): {text} is not a finite number")
    return value


def _values(entry: Entry, specs: list[str], seed: int) -> list[object]:
    names = [name for _, name in entry.params]
    given: dict[str, str] = {}
    for spec in specs:
        name, sep, text = spec.partition("=")
        if sep and name in names:
            given[name] = text
            continue
        if sep and re.fullmatch(r"\w+", name):
            raise UsageError(f"{entry.name} has no parameter '{name}' ({', '.join(names)})")
        free = [n for n in names if n not in given]
        if not free:
            raise UsageError(f"too many --arg values: {entry.name} has {len(names)} parameters")
        given[free[0]] = spec
    rng = np.random.default_rng(seed)
    values: list[object] = []
    for ctype, name in entry.params:
        if name not in given:
            raise UsageError(f"missing --arg for {name} ({ctype})")
        if ctype == "GM_ADDR":
            values.append(_array(name, given[name], rng))
        elif ctype in SCALAR_TYPES:
            values.append(_scalar(name, ctype, given[name]))
        else:
            raise UsageError(f"{name}: a parameter of C type {ctype} is not one the runner "
                             f"passes (GM_ADDR or {', '.join(SCALAR_TYPES)})")
    return values


def run(argv: list[str]) -> int:
    options = _parser().parse_args(argv)
    source = Path(options.source).read_text()
    try:
        entry = Entry.of(source)
        values = _values(entry, options.arg, options.seed)
        run_source(source, ARCH[options.profile], options.block_dim, values)
    except (AscendCRunError, BuildError) as exc:
        print(f"{options.source}: error: {exc}", file=sys.stderr)
        return 1
    arrays = {name: value for (_, name), value in zip(entry.params, values, strict=True)
              if isinstance(value, np.ndarray)}
    print(f"{entry.name} ({entry.kind}) ran on {options.block_dim} AI cores of the "
          f"{options.profile} model")
    for name, array in arrays.items():
        if options.print_outputs:
            print(f"{name} = " + np.array2string(array, threshold=256, precision=4,
                                                 suppress_small=True, max_line_width=100))
        if options.save_outputs:
            Path(options.save_outputs).mkdir(parents=True, exist_ok=True)
            np.save(Path(options.save_outputs) / f"{name}.npy", array)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    return run_guarded("tilec-run-ascendc", lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
