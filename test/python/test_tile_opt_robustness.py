"""Malformed and random inputs never make tile-opt print a traceback or
abort: each gets diagnostics and exit code 1 (or is valid and gets 0).

All inputs run in one child process, so an abort shows up as a signal exit
naming the input that caused it, without killing the test runner.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import textwrap

_DRIVER = textwrap.dedent(
    """
    import contextlib, io, sys
    from tilec.tools.tile_opt import main

    paths = sys.argv[1:]
    for i, path in enumerate(paths):
        print("INPUT", i, path, flush=True)
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = main([path, "--tile-cleanup"])
        text = err.getvalue()
        if code not in (0, 1) or "Traceback" in text or (code == 1 and "error" not in text):
            print("BAD", i, path, code, text[-2000:], flush=True)
    print("DONE", flush=True)
    """
)


def _run_driver(paths: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, "-c", _DRIVER, *paths], capture_output=True, text=True, timeout=600
    )
    lines = result.stdout.splitlines()
    last_input = next((line for line in reversed(lines) if line.startswith("INPUT")), "none")
    assert result.returncode == 0, (
        f"driver died ({result.returncode}) on {last_input}\n{result.stderr[-3000:]}"
    )
    assert lines[-1] == "DONE"
    bad = [line for line in lines if line.startswith("BAD")]
    assert not bad, "\n".join(bad[:5])


def _mutations(seed_texts: list[str], count: int, rng: random.Random) -> list[bytes]:
    out: list[bytes] = []
    for _ in range(count):
        text = rng.choice(seed_texts)
        kind = rng.randrange(6)
        if kind == 0:  # truncated
            out.append(text[: rng.randrange(len(text) + 1)].encode())
        elif kind == 1:  # a character replaced by punctuation
            i = rng.randrange(len(text))
            out.append((text[:i] + rng.choice("{}()<>[]%@#:,=\"'!^") + text[i + 1 :]).encode())
        elif kind == 2:  # a line dropped
            lines = text.split("\n")
            del lines[rng.randrange(len(lines))]
            out.append("\n".join(lines).encode())
        elif kind == 3:  # a span duplicated
            i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
            out.append((text[:j] + text[i:j] + text[j:]).encode())
        elif kind == 4:  # random bytes
            out.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))))
        else:  # a token swapped for a number or type
            words = text.split(" ")
            words[rng.randrange(len(words))] = rng.choice(["0", "-1", "i1", "f16", "index", "?"])
            out.append(" ".join(words).encode())
    return out


def test_malformed_inputs_get_diagnostics_not_crashes(repo, tmp_path):
    seeds = [
        p.read_text()
        for p in sorted((repo / "test").rglob("*.mlir"))
        if "Simulator" not in p.parts
    ]
    seeds = [s for s in seeds if s.strip()]
    rng = random.Random(1234)
    paths = []
    for i, data in enumerate(_mutations(seeds, 300, rng)):
        path = tmp_path / f"input{i}.mlir"
        path.write_bytes(data)
        paths.append(str(path))
    _run_driver(paths)


_OP_NAME = re.compile(r'def \w+ : (Tile|Ascend)_\w*Op<"(?P<name>[a-z_0-9]+)"')
_VALUES = {
    "%g": "memref<?x?xf16>",
    "%s": "memref<16x16xf16, #tile.scope<shared>>",
    "%f": "memref<16x16xf32, #tile.scope<fragment>>",
    "%u": "memref<256xf32, #ascend.mem<ub>>",
    "%l": "memref<1x1x16x16xf16, #ascend.mem<l1>>",
    "%i": "index",
    "%x": "f32",
}
_ATTRS = [
    "threads = 128 : i64",
    "threads = -1 : i64",
    "num_stages = 0 : i64",
    "extents = array<i64: 4, 0>",
    "dim = 7 : i64",
    "event = 9 : i64",
    "id = 11 : i64",
    "mode = 3 : i64",
    "sizes = array<i64: 16, 16>",
    "sizes = array<i64>",
    "src = 3 : i32",
    "dst = 3 : i32",
    "kind = 99 : i32",
    "transpose_a",
    "operandSegmentSizes = array<i32: 1, 0, 1, 0, 0>",
    "operandSegmentSizes = array<i32: 0, 1, 1, 1, 0>",
    "operandSegmentSizes = array<i32: 1, 1, 0, 0>",
    "operandSegmentSizes = array<i32: 1, 0, 1, 1>",
]


def _generic_ops(repo, rng: random.Random, count: int) -> list[bytes]:
    """Generic-form ops of both dialects with random operands, attributes and
    regions: the shapes of IR that custom parsers never produce."""
    names = sorted(
        {
            f"{m.group(1).lower()}.{m['name']}"
            for td in (repo / "dialects").rglob("*Ops.td")
            for m in _OP_NAME.finditer(td.read_text())
        }
    )
    args = ", ".join(f"{v}: {t}" for v, t in _VALUES.items())
    out = []
    for _ in range(count):
        name = rng.choice(names)
        operands = rng.sample(list(_VALUES), rng.randrange(0, 5))
        attrs = ", ".join(rng.sample(_ATTRS, rng.randrange(0, 4)))
        results = rng.choice(["", "index", "memref<16x16xf16, #tile.scope<shared>>"])
        region = rng.choice(
            [
                "",
                " ({\n})",
                ' ({\n^bb0(%b: index):\n  "tile.yield"() : () -> ()\n})',
                ' ({\n^bb0(%b: index, %c: f32):\n  "func.return"() : () -> ()\n})',
            ]
        )
        op = (
            f'"{name}"({", ".join(operands)}) <{{{attrs}}}>{region} : '
            f'({", ".join(_VALUES[v] for v in operands)}) -> ({results})'
        )
        if results:
            op = "%r = " + op
        out.append(f"func.func @f({args}) {{\n  {op}\n  return\n}}\n".encode())
    return out


def test_generic_form_ops_get_diagnostics_not_crashes(repo, tmp_path):
    rng = random.Random(99)
    paths = []
    for i, data in enumerate(_generic_ops(repo, rng, 400)):
        path = tmp_path / f"generic{i}.mlir"
        path.write_bytes(data)
        paths.append(str(path))
    _run_driver(paths)
