"""Fuzzing tile-opt: mutated test inputs through every pass and pipeline.

    python -m tilec.tools.fuzz_tile_opt --cases 20000 --seed 1 --out fuzz-out

Each case is one input — a `// -----` chunk of a test/**/*.mlir file with a
few random mutations, or a generated generic-form op of the `tile` or
`ascend` dialect — and one tile-opt command line: a tilec pass or
pipeline (the ascend and cuda ones for each profile and arch, down to the
PTX and the AscendC), or one of a few upstream passes, sometimes with a
printing or verification flag. With `--inputs lowered` (or `all`, the
default) cases also start from lowered IR: the test chunks with a kernel
taken through `tile-to-ascend` for each profile, mutated, then emitted as
AscendC by tile-opt or run by tile-sim. A case runs in a forked child, so
an abort, a segfault or a hang (the child's alarm) is a result rather than
the end of the campaign. A result is fine when the tool exits 0 without
printing an error, or 1 with one; anything else is a finding, named by a signature
(the signal and its assertion, the internal error's exception class, a
traceback's last frame and class, ...). For each signature the first
input is reduced by deleting lines while the signature persists and
written to the output folder with the command that reproduces it.
"""

from __future__ import annotations

import gc
import json
import os
import random
import re
import resource
import shlex
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from tilec.targets.ascend import AscendTarget
from tilec.tools import tile_opt, tile_sim
from tilec.tools.guard import ArgumentParser, run_guarded

REPO = Path(__file__).resolve().parents[1]
"""The checkout this module runs from (its test/ and dialects/ are the corpus)."""

_SPLIT = re.compile(r"^// -----$", re.M)
_LIT_LINE = re.compile(r"^\s*// *(RUN|[A-Z][A-Z0-9-]*):.*$\n?", re.M)
_OP_NAME = re.compile(r'def \w+ : (Tile|Ascend)_\w*Op<"(?P<name>[a-z_0-9]+)"')

# Upstream passes that tilec pipelines use or that users run on tile IR.
_UPSTREAM = (
    "canonicalize",
    "cse",
    "inline",
    "symbol-dce",
    "sccp",
    "loop-invariant-code-motion",
    "convert-scf-to-cf",
    "finalize-memref-to-llvm",
    "convert-func-to-llvm",
)
# Pass options and nests that the defaults of the registry do not cover.
_VARIANTS = (
    ("--tile-verify-kernels=target=cuda:sm_90a",),
    ("--tile-verify-kernels=target=ascend:910b",),
    ("--convert-tile-to-cpu=target=cpu:avx512",),
    ("--convert-tile-to-cpu=ops=tile.copy",),
    ("--pass-pipeline=builtin.module(func.func(cse,tile-verify-kernels),tile-cleanup)",),
    ("--tile-to-ascend=target=ascend:950",),
    ("--tile-to-cuda=target=cuda:sm_90a",),
    ("--tile-to-cuda", "--emit=ptx"),
    ("--tile-to-cuda=target=cuda:sm_90a", "--emit=ptx"),
    ("--tile-to-ascend", "--emit=ascendc:910b"),
    ("--tile-to-ascend=target=ascend:950", "--emit=ascendc:950"),
)
PROFILES = AscendTarget.variants
_SIM_BUDGET = ("--max-steps", "20000", "--max-cycles", "100000000", "--max-memory", "1G")
"""tile-sim's budgets in a case: enough for the corpus's kernels, short of the alarm."""
# Occasionally added to a command line: each takes its own path through tile-opt.
_MODIFIERS = (
    ("--mlir-print-op-generic",),
    ("--mlir-print-debuginfo",),
    ("--mlir-print-ir-after-all",),
    ("--verify-each=false",),
    ("--split-input-file",),
    ("--split-input-file", "--verify-diagnostics"),
    ("--allow-unregistered-dialect",),
    ("--mlir-disable-threading",),
)

_TOKENS = ("0", "-1", "i1", "f16", "index", "?")
_TYPES = ("f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "index")
_NUMBERS = ("0", "1", "-1", "3", "7", "64", "4096", "2147483648", "-9223372036854775808")
_SPACES = (
    "#tile.scope<global>",
    "#tile.scope<shared>",
    "#tile.scope<fragment>",
    "#tile.scope<local>",
    "#ascend.mem<gm>",
    "#ascend.mem<ub>",
    "#ascend.mem<l1>",
    "#ascend.mem<l0c>",
    "3",
)
_TYPE = re.compile(r"\b(?:b?f16|f32|f64|i1|i8|i32|i64|index)\b")
_NUMBER = re.compile(r"(?<![\w%#@])-?\d+\b")
_SPACE = re.compile(r"#(?:tile\.scope|ascend\.mem)<\w+>")
_SHAPE = re.compile(r"(?<=<)(?:[\d?]+x)+")
_SHAPES = ("1x", "?x", "3x", "16x", "16x16x", "?x?x", "0x", "1x1x16x16x", "2x64x")
_STATIC_DIM = re.compile(r"(?<=[<x])\d+(?=x)")

# A generic-form op gets operands and attributes from these.
_VALUES = {
    "%g": "memref<?x?xf16>",
    "%s": "memref<16x16xf16, #tile.scope<shared>>",
    "%f": "memref<16x16xf32, #tile.scope<fragment>>",
    "%u": "memref<256xf32, #ascend.mem<ub>>",
    "%l": "memref<1x1x16x16xf16, #ascend.mem<l1>>",
    "%i": "index",
    "%x": "f32",
}
_ATTRS = (
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
)
_REGIONS = (
    "",
    " ({\n})",
    ' ({\n^bb0(%b: index):\n  "tile.yield"() : () -> ()\n})',
    ' ({\n^bb0(%b: index, %c: f32):\n  "func.return"() : () -> ()\n})',
)


# ---- inputs -----------------------------------------------------------------


def corpus(root: Path = REPO) -> list[str]:
    """The `// -----` chunks of root/test/**/*.mlir without their lit lines."""
    chunks = {
        _LIT_LINE.sub("", chunk).strip("\n") + "\n"
        for path in sorted((root / "test").rglob("*.mlir"))
        for chunk in _SPLIT.split(path.read_text())
    }
    return sorted(chunk for chunk in chunks if chunk.strip())


def op_names(root: Path = REPO) -> list[str]:
    """Every op of the `tile` and `ascend` dialects, from their ODS."""
    return sorted(
        {
            f"{m.group(1).lower()}.{m['name']}"
            for td in (root / "dialects").rglob("*Ops.td")
            for m in _OP_NAME.finditer(td.read_text())
        }
    )


def _replace_one(text: str, pattern: re.Pattern[str], rng: random.Random, choices) -> str:
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    m = rng.choice(matches)
    return text[: m.start()] + rng.choice(choices) + text[m.end() :]


def _replace_all(text: str, pattern: re.Pattern[str], rng: random.Random, choices) -> str:
    """Every occurrence of one match replaced alike, so that the values of
    a type stay consistent and the IR often still parses."""
    matches = pattern.findall(text)
    if not matches:
        return text
    old, new = rng.choice(matches), rng.choice(choices)
    return pattern.sub(lambda m: new if m.group() == old else m.group(), text)


def _mutations(seeds: list[str]) -> list[Callable[[str, random.Random], str]]:
    """Text-to-text mutations; the last ones keep the IR parseable more
    often, which is what reaches the passes."""

    def truncate(text: str, rng: random.Random) -> str:
        return text[: rng.randrange(len(text) + 1)]

    def punctuate(text: str, rng: random.Random) -> str:
        i = rng.randrange(max(len(text), 1))
        return text[:i] + rng.choice("{}()<>[]%@#:,=\"'!^") + text[i + 1 :]

    def drop_line(text: str, rng: random.Random) -> str:
        lines = text.split("\n")
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)

    def duplicate_span(text: str, rng: random.Random) -> str:
        i, j = sorted(rng.randrange(len(text) + 1) for _ in range(2))
        return text[:j] + text[i:j] + text[j:]

    def swap_word(text: str, rng: random.Random) -> str:
        words = text.split(" ")
        words[rng.randrange(len(words))] = rng.choice(_TOKENS)
        return " ".join(words)

    def splice_line(text: str, rng: random.Random) -> str:
        lines = text.split("\n")
        donor = rng.choice(seeds).split("\n")
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(donor))
        return "\n".join(lines)

    def swap_type(text: str, rng: random.Random) -> str:
        return _replace_all(text, _TYPE, rng, _TYPES)

    def swap_number(text: str, rng: random.Random) -> str:
        return _replace_one(text, _NUMBER, rng, _NUMBERS)

    def swap_space(text: str, rng: random.Random) -> str:
        return _replace_all(text, _SPACE, rng, _SPACES)

    def dynamic_dim(text: str, rng: random.Random) -> str:
        return _replace_one(text, _STATIC_DIM, rng, ("?",))

    def swap_shape(text: str, rng: random.Random) -> str:
        return _replace_all(text, _SHAPE, rng, _SHAPES)

    return [
        truncate,
        punctuate,
        drop_line,
        duplicate_span,
        swap_word,
        splice_line,
        swap_type,
        swap_number,
        swap_space,
        dynamic_dim,
        swap_shape,
    ]


def mutate(text: str, rng: random.Random, seeds: list[str], rounds: int = 1) -> bytes:
    """`text` after `rounds` random mutations (or, rarely, random bytes)."""
    if rng.randrange(20) == 0:
        return bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200)))
    mutations = _mutations(seeds)
    for _ in range(rounds):
        text = rng.choice(mutations)(text, rng)
    return text.encode()


def generic_op(rng: random.Random, names: list[str]) -> bytes:
    """A function holding one generic-form op with random operands,
    attributes and region: IR that the custom parsers never produce."""
    args = ", ".join(f"{v}: {t}" for v, t in _VALUES.items())
    operands = rng.sample(list(_VALUES), rng.randrange(0, 5))
    attrs = ", ".join(rng.sample(_ATTRS, rng.randrange(0, 4)))
    results = rng.choice(["", "index", "memref<16x16xf16, #tile.scope<shared>>"])
    op = (
        f'"{rng.choice(names)}"({", ".join(operands)}) <{{{attrs}}}>{rng.choice(_REGIONS)} : '
        f'({", ".join(_VALUES[v] for v in operands)}) -> ({results})'
    )
    if results:
        op = "%r = " + op
    return f"func.func @f({args}) {{\n  {op}\n  return\n}}\n".encode()


def command_lines() -> list[tuple[str, ...]]:
    """One tile-opt command line (without the input) per registered tilec
    pass and pipeline, upstream pass of _UPSTREAM and variant."""
    from tilec.passes import passes, pipelines

    names = [cls.argument for cls in passes()] + [p.argument for p in pipelines()]
    return [(f"--{name}",) for name in [*names, *_UPSTREAM]] + list(_VARIANTS)


@dataclass(frozen=True)
class Case:
    data: bytes
    flags: tuple[str, ...]
    tool: str = "tile-opt"
    """tile-opt or tile-sim."""

    def command(self, path: str) -> str:
        return shlex.join([self.tool, path, *self.flags])


def _kernel_chunks(root: Path) -> list[str]:
    return [s for s in corpus(root) if "tile.kernel" in s and "expected-" not in s]


def lowered_corpus(runner: Runner, root: Path = REPO) -> list[tuple[str, str]]:
    """(profile, IR) for each test chunk with a kernel that `tile-to-ascend`
    lowers for the profile, and the ascend IR chunks of the tests as they are."""
    directory = runner.workdir / "lowered"
    directory.mkdir(parents=True, exist_ok=True)
    jobs = []
    for number, chunk in enumerate(_kernel_chunks(root)):
        for profile in PROFILES:
            out = directory / f"{number}-{profile}.mlir"
            flags = (f"--tile-to-ascend=target=ascend:{profile}", "-o", str(out))
            jobs.append((Case(chunk.encode(), flags), profile, out))
    by_case = {case: (profile, out) for case, profile, out in jobs}
    lowered = []
    for case, outcome in runner.run(case for case, _, _ in jobs):
        profile, out = by_case[case]
        if os.waitstatus_to_exitcode(outcome.status) == 0 and out.exists():
            lowered.append((profile, out.read_text()))
    native = [s for s in corpus(root) if "ascend.kernel" in s and "expected-" not in s]
    lowered += [(profile, chunk) for chunk in native for profile in PROFILES]
    return sorted(lowered)


def _lowered_case(rng: random.Random, lowered: list[tuple[str, str]], seeds: list[str]) -> Case:
    """Mutated lowered IR through the AscendC emitter or the simulator of its profile."""
    profile, text = rng.choice(lowered)
    data = mutate(text, rng, seeds, rounds=rng.choice((0, 1, 1, 2)))
    if rng.randrange(2):
        return Case(data, (f"--emit=ascendc:{profile}",))
    return Case(data, ("--profile", profile, *_SIM_BUDGET), "tile-sim")


def cases(count: int, seed: int, root: Path = REPO,
          lowered: list[tuple[str, str]] | None = None,
          tile: bool = True) -> Iterator[Case]:
    """`count` cases, the same ones for the same seed, corpus and lowered corpus:
    from tile IR (`tile`), from `lowered` IR (a third of them when both), or both."""
    rng = random.Random(seed)
    seeds, names, commands = corpus(root), op_names(root), command_lines()
    # Chunks that expect no error are mostly valid IR: mutated a little,
    # they reach the passes, where the parser and verifier stop the others.
    valid = [s for s in seeds if "expected-" not in s] or seeds
    singles = [line for line in commands if not line[0].startswith("--pass-pipeline")]
    for _ in range(count):
        if lowered and (not tile or rng.randrange(3) == 0):
            yield _lowered_case(rng, lowered, seeds)
            continue
        if rng.randrange(8) == 0:
            data = generic_op(rng, names)
        else:
            text = rng.choice(valid if rng.randrange(4) else seeds)
            data = mutate(text, rng, seeds, rounds=rng.choice((0, 0, 1, 1, 2, 3)))
        flags = rng.choice(commands)
        if rng.randrange(4) == 0:  # a few passes in a row: IR that one pass leaves to the next
            flags = sum(rng.sample(singles, rng.randrange(2, 4)), ())
        if rng.randrange(6) == 0:
            flags = flags + rng.choice(_MODIFIERS)
        yield Case(data, flags)


# ---- running ----------------------------------------------------------------


@dataclass(frozen=True)
class Outcome:
    status: int
    """The child's wait status (os.waitstatus_to_exitcode: -signal or exit code)."""
    stderr: str
    """What tile-opt printed on stderr (its end, for long output)."""

    def signature(self) -> str | None:
        """None when the result is fine, else `<kind>: <what>`, the kind one
        of KINDS."""
        code, err = os.waitstatus_to_exitcode(self.status), self.stderr
        if code == -signal.SIGALRM:
            return "crash: timeout"
        if code < 0:
            found = _ABORT.search(err)
            reason = f": {_normalize(found.group())}" if found else ""
            return f"crash: signal {signal.Signals(-code).name}{reason}"
        if "Traceback (most recent call last)" in err:
            return f"traceback: {_last_frame(err)}"
        if found := _INTERNAL.search(err):
            return f"internal error: {found['exception']}{found['where']}"
        if code not in (0, 1):
            return f"crash: exit {code}"
        if code == 1 and "error" not in err:
            return "wrong exit: 1 without an error message"
        if code == 0 and (found := _ERROR_LINE.search(err)):
            return f"wrong exit: 0 after {_normalize(found.group())}"
        return None


KINDS = ("crash", "internal error", "traceback", "wrong exit")
_INTERNAL = re.compile(r"internal error(?P<where>[^:\n]*): (?P<exception>[\w.]+)")
_ERROR_LINE = re.compile(r"^(?:[^\n]*:\d+:\d+: )?error: [^\n]*", re.M)
_ABORT = re.compile(r"(Assertion .*failed|LLVM ERROR: .*|UNREACHABLE.*|terminate called.*)")
_FRAME = re.compile(r'File "(?P<file>[^"]+)", line \d+, in (?P<func>\S+)')


def _normalize(text: str) -> str:
    """Without the numbers and quoted names that differ between inputs."""
    text = re.sub(r"'[^'\n]*'|\"[^\"\n]*\"", "'…'", text)
    return re.sub(r"\d+", "N", text)[:200]


def _last_frame(err: str) -> str:
    """`file:function ExceptionClass` of the last traceback in `err`."""
    tail = err[err.rindex("Traceback (most recent call last)") :]
    frames = list(_FRAME.finditer(tail))
    if not frames:
        return "?"
    after = [line for line in tail[frames[-1].end() :].splitlines() if line[:1].strip()]
    exception = after[0].split(":")[0] if after else "?"
    return f"{Path(frames[-1]['file']).name}:{frames[-1]['func']} {exception}"


_STDERR_LIMIT = 64 * 1024


def _child(case: Case, input_path: str, err_path: str, timeout: int, memory: int) -> None:
    """Runs tile-opt on the case in this (forked) process and never returns."""
    code = 70
    try:
        # The parent's objects (contexts with threads that this process does
        # not have) must never be collected here.
        gc.freeze()
        signal.alarm(timeout)
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        null = os.open(os.devnull, os.O_RDWR)
        err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        for fd, target in ((0, null), (1, null), (2, err)):
            os.dup2(target, fd)
        # The parent's stream objects may be a test runner's buffers.
        sys.stdin = open(0, closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False)  # noqa: SIM115
        tool = tile_sim if case.tool == "tile-sim" else tile_opt
        code = tool.main([input_path, *case.flags])
    except BaseException:  # whatever escapes main is itself a finding
        traceback.print_exc()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


@dataclass
class Runner:
    """Runs cases in forked children, `jobs` at a time, in `workdir`; a
    child still running after `timeout` seconds is ended by its alarm."""

    workdir: Path
    jobs: int = os.cpu_count() or 1
    timeout: int = 20
    memory: int = 8 << 30
    """The address-space limit of a child, so a huge allocation fails there."""

    def run(self, cases: Iterable[Case]) -> Iterator[tuple[Case, Outcome]]:
        """Each case with its outcome, in the order they finish."""
        self.workdir.mkdir(parents=True, exist_ok=True)
        running: dict[int, tuple[Case, int]] = {}
        free = list(range(self.jobs))
        for case in cases:
            if not free:
                yield self._reap(running, free)
            slot = free.pop()
            running[self._start(case, slot)] = (case, slot)
        while running:
            yield self._reap(running, free)

    def _reap(self, running: dict[int, tuple[Case, int]], free: list[int]) -> tuple[Case, Outcome]:
        """Waits for the next of the running children to end."""
        while True:
            pid, status = os.wait()
            if pid in running:
                case, slot = running.pop(pid)
                free.append(slot)
                return case, Outcome(status, self._stderr(slot))

    def outcome(self, case: Case) -> Outcome:
        return next(iter(self.run([case])))[1]

    def _paths(self, slot: int) -> tuple[Path, Path]:
        return self.workdir / f"slot{slot}.mlir", self.workdir / f"slot{slot}.err"

    def _start(self, case: Case, slot: int) -> int:
        input_path, err_path = self._paths(slot)
        input_path.write_bytes(case.data)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(case, str(input_path), str(err_path), self.timeout, self.memory)
        return pid

    def _stderr(self, slot: int) -> str:
        with open(self._paths(slot)[1], "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(f.tell() - _STDERR_LIMIT, 0))
            return f.read().decode(errors="replace")


# ---- reducing and reporting -------------------------------------------------


def reduce(case: Case, signature: str, runner: Runner, seconds: float = 120) -> Case:
    """`case` with as many lines deleted as keep its signature: chunks of
    lines, halving the chunk size down to single lines (ddmin-style), for
    at most about `seconds` (each try of a case that hangs takes its timeout)."""
    lines = case.data.split(b"\n")
    deadline = time.monotonic() + seconds

    def keeps(candidate: list[bytes]) -> bool:
        outcome = runner.outcome(Case(b"\n".join(candidate), case.flags, case.tool))
        return outcome.signature() == signature

    size = max(len(lines) // 2, 1)
    while time.monotonic() < deadline:
        start, removed = 0, False
        while start < len(lines) and time.monotonic() < deadline:
            candidate = lines[:start] + lines[start + size :]
            if candidate and keeps(candidate):
                lines, removed = candidate, True
            else:
                start += size
        if size == 1 and not removed:
            break
        size = max(size // 2, 1)
    return Case(b"\n".join(lines), case.flags, case.tool)


@dataclass
class Finding:
    signature: str
    case: Case
    count: int = 1


@dataclass
class Report:
    cases: int = 0
    clean: int = 0
    """Cases that tile-opt took through the whole command (exit code 0)."""
    findings: dict[str, Finding] = field(default_factory=dict)

    def add(self, case: Case, outcome: Outcome) -> None:
        self.cases += 1
        self.clean += os.waitstatus_to_exitcode(outcome.status) == 0
        signature = outcome.signature()
        if signature is None:
            return
        if signature in self.findings:
            self.findings[signature].count += 1
        else:
            self.findings[signature] = Finding(signature, case)

    def kinds(self) -> dict[str, int]:
        """Cases per kind of finding (KINDS)."""
        kinds = dict.fromkeys(KINDS, 0)
        for finding in self.findings.values():
            kinds[finding.signature.split(":")[0]] += finding.count
        return kinds

    def summary(self) -> str:
        kinds = ", ".join(f"{kind}: {count}" for kind, count in self.kinds().items())
        lines = [
            f"{self.cases} cases ({self.clean} with exit code 0): "
            f"{len(self.findings)} distinct findings ({kinds})"
        ]
        lines.extend(
            f"  {f.count:6d}  {f.signature}"
            for f in sorted(self.findings.values(), key=lambda f: -f.count)
        )
        return "\n".join(lines)


def write_findings(report: Report, runner: Runner, out: Path) -> None:
    """For each finding, out/finding-N.mlir (reduced) and out/finding-N.txt
    (signature, count, command, stderr); out/summary.json for all."""
    out.mkdir(parents=True, exist_ok=True)
    index = []
    for number, finding in enumerate(report.findings.values(), 1):
        reduced = reduce(finding.case, finding.signature, runner)
        stem = out / f"finding-{number}"
        stem.with_suffix(".mlir").write_bytes(reduced.data)
        command = reduced.command(str(stem.with_suffix(".mlir")))
        stderr = runner.outcome(reduced).stderr
        stem.with_suffix(".txt").write_text(
            f"signature: {finding.signature}\ncases: {finding.count}\ncommand: {command}\n"
            f"\n{stderr}"
        )
        index.append({"signature": finding.signature, "cases": finding.count,
                      "command": command})
    summary = {"cases": report.cases, "clean": report.clean, "kinds": report.kinds(),
               "findings": index}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


INPUTS = ("all", "tile", "lowered")


def campaign(count: int, seed: int, out: Path, runner: Runner, root: Path = REPO,
             inputs: str = "all") -> Report:
    """Runs `count` cases from `inputs` (INPUTS) and writes the findings; progress
    goes to stderr."""
    report = Report()
    lowered = lowered_corpus(runner, root) if inputs != "tile" else None
    if lowered is not None:
        print(f"{len(lowered)} lowered inputs", file=sys.stderr)
    for case, outcome in runner.run(cases(count, seed, root, lowered, inputs != "lowered")):
        report.add(case, outcome)
        if report.cases % 1000 == 0:
            print(f"{report.cases} cases, {len(report.findings)} findings", file=sys.stderr)
    write_findings(report, runner, out)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = ArgumentParser(prog="fuzz_tile_opt", description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=1000, help="how many cases (default 1000)")
    parser.add_argument("--seed", type=int, default=0, help="the random seed (default 0)")
    parser.add_argument("--out", type=Path, required=True, help="where findings are written")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="cases run at once (default: one per core)")
    parser.add_argument("--timeout", type=int, default=20, help="seconds per case (default 20)")
    parser.add_argument("--root", type=Path, default=REPO,
                        help="the checkout whose test/ and dialects/ are the corpus")
    parser.add_argument("--inputs", choices=INPUTS, default="all",
                        help="tile IR, lowered ascend IR, or both (default all)")
    args = sys.argv[1:] if argv is None else argv

    def body() -> int:
        options = parser.parse_args(args)
        runner = Runner(options.out / "work", options.jobs, options.timeout)
        report = campaign(options.cases, options.seed, options.out, runner, options.root,
                          options.inputs)
        print(report.summary())
        return 1 if report.findings else 0

    return run_guarded("fuzz_tile_opt", body)


if __name__ == "__main__":
    sys.exit(main())
