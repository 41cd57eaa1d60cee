"""AscendNPU-IR's own memory planner and auto-sync on three hivm kernels, as a peer to tilec's.

    python benchmarks/peer_hivm.py [--solver inject-sync|graph-sync-solver|barrier-all]
                                   [--target Ascend910B1] [--json] [--show KERNEL]

Runs `bishengir-opt --hacc-append-device-spec=target=T --hivm-infer-func-core-type
--hivm-plan-memory --hivm-inject-sync` (or `--hivm-graph-sync-solver`, or InjectSync's
`sync-mode=barrier-all`) on each kernel of benchmarks/peer_hivm/ (a double-buffered
vector add, a row softmax, a double-buffered GEMM K loop; see its README.md) and
counts what the passes emit:
set_flag, wait_flag, pipe_barrier and the PIPE_ALL barriers among them, in the
whole function and inside loops, and the same ops weighted by the trip counts
of their loops (what one core executes; a branch counts as taken). The event ids
that mmadL1 receives in `sync_related_args` are syncs the op's library template
performs itself, so they are counted apart. Planned bytes are the end of the
highest buffer hivm-plan-memory placed in each address space.

`bishengir-opt` is an optional dependency (the `ascendnpu-ir` wheel, not in
requirements.txt; see peer_hivm/README.md). Without it this prints how to get it
and exits 0. Benchmarks are not tests: nothing here is asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

KERNEL_DIR = Path(__file__).resolve().parent / "peer_hivm"
TOOL = "bishengir-opt"
DEFAULT_TARGET = "Ascend910B1"
SOLVERS = {
    "inject-sync": "--hivm-inject-sync",
    "graph-sync-solver": "--hivm-graph-sync-solver",
    # InjectSync's debug mode: a PIPE_ALL barrier around every op, the over-synchronized bound.
    "barrier-all": "--hivm-inject-sync=sync-mode=barrier-all",
}
INSTALL_HINT = (
    "pip install ascendnpu_ir-1.2.0-cp311-cp311-manylinux_2_28_x86_64.whl "
    "(or set $BISHENGIR_OPT to the binary)"
)

_SSA = r"%[\w$.-]+"
_CONST = re.compile(rf"^({_SSA}) = arith\.constant (-?\d+) : (?:index|i\d+)$")
_FOR = re.compile(rf"scf\.for {_SSA} = ({_SSA}) to ({_SSA}) step ({_SSA})")
_SYNC = re.compile(r"hivm\.hir\.(set_flag|wait_flag|pipe_barrier)\s*\[([^\]]*)\]")
_MMAD_ARGS = re.compile(r"hivm\.hir\.mmadL1\b.*\bsync_related_args\(([^:)]*)")
_POINTER_CAST = re.compile(
    r"hivm\.hir\.pointer_cast\(([^)]*)\).*: memref<([^,]*?)(?:, [^#]*)?, "
    r"#hivm\.address_space<(\w+)>>$"
)
# mmadL1's sync_related_args: the first four are the events it waits on
# (MTE2->MTE1, for A and B) and sets (MTE1->MTE2, for A and B); -1 = none.
_MMAD_EVENT_ARGS = 4
_KINDS = ["set_flag", "wait_flag", "pipe_barrier", "pipe_all", "mmad_sync_args"]


def find_bishengir_opt() -> Path | None:
    """$BISHENGIR_OPT, else PATH, else the `ascendnpuir` package of this interpreter.

    The wheel puts the binary in its package (ascendnpuir/bin/), not on PATH.
    """
    explicit = os.environ.get("BISHENGIR_OPT")
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    on_path = shutil.which(TOOL)
    if on_path:
        return Path(on_path)
    candidates = [Path(sys.prefix) / "bin" / TOOL]
    spec = importlib.util.find_spec("ascendnpuir")
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(loc) / "bin" / TOOL for loc in spec.submodule_search_locations]
    return next((c for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


def kernels() -> dict[str, Path]:
    """The peer kernels, by file stem."""
    return {path.stem: path for path in sorted(KERNEL_DIR.glob("*.mlir"))}


def pass_arguments(target: str = DEFAULT_TARGET, solver: str = "inject-sync") -> list[str]:
    """The bishengir-opt pass flags: device spec, core type, plan memory, then the sync solver.

    The device spec gives the planner the buffer capacities and alignments of
    `target`; the core type (AIV/AIC) tells the sync pass which pipes exist.
    """
    return [
        f"--hacc-append-device-spec=target={target}",
        "--hivm-infer-func-core-type",
        "--hivm-plan-memory",
        SOLVERS[solver],
    ]


def synchronize(kernel: Path, tool: Path, target: str = DEFAULT_TARGET,
                solver: str = "inject-sync") -> str:
    """The kernel after the passes, as text; RuntimeError with the tool's diagnostics on failure."""
    cmd = [str(tool), str(kernel), *pass_arguments(target, solver)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr.strip()}")
    return done.stdout


def _trip_count(line: str, constants: dict[str, int]) -> int | None:
    match = _FOR.search(line)
    if match is None:
        return None
    lb, ub, step = (constants.get(name) for name in match.groups())
    if lb is None or ub is None or not step:
        return None
    return max(0, math.ceil((ub - lb) / step))


def _element_bytes(shape_and_type: str) -> int:
    *dims, element = shape_and_type.split("x")
    bits = int(re.sub(r"\D", "", element) or 8)
    return math.prod(int(d) for d in dims) * max(1, bits // 8)


def count_syncs(ir: str) -> dict[str, int]:
    """Sync ops in synchronized hivm IR: static, inside loops, and executed (trip-count weighted).

    The printed IR has one op per line and regions open with a trailing `{` and
    close with a leading `}`, so the loop nest is a stack over lines. `*_exec`
    keys are absent when a loop's trip count is not a constant.
    """
    counts = dict.fromkeys(_KINDS, 0)
    counts.update(dict.fromkeys((f"{kind}_in_loop" for kind in _KINDS), 0))
    counts["dynamic_event"] = 0
    executed = dict.fromkeys((f"{kind}_exec" for kind in _KINDS), 0)
    exact = True
    constants: dict[str, int] = {}
    stack: list[tuple[bool, int | None]] = []  # (is a loop, trip count) per open region
    planned: dict[str, int] = {}

    for raw in ir.splitlines():
        line = raw.strip()
        if line.startswith("func.func"):
            constants = {}
        if line.startswith("}"):
            closed = stack.pop() if stack else (False, 1)
            if line.endswith("{"):  # `} else {`, `} do {`: the sibling region
                stack.append(closed)
            continue
        if line.endswith("{"):
            is_loop = "scf.for " in line or "scf.while" in line
            stack.append((is_loop, _trip_count(line, constants) if is_loop else 1))
            continue
        if match := _CONST.match(line):
            constants[match[1]] = int(match[2])
            continue
        in_loop = any(is_loop for is_loop, _ in stack)
        trips = [trip for _, trip in stack]
        weight = None if None in trips else math.prod(t for t in trips if t is not None)
        ops: list[str] = []
        if match := _SYNC.search(line):
            kind, operands = match.groups()
            ops.append(kind)
            if kind == "pipe_barrier" and "PIPE_ALL" in operands:
                ops.append("pipe_all")
            if kind != "pipe_barrier" and "EVENT_ID" not in operands.split(",")[-1]:
                counts["dynamic_event"] += 1
        elif match := _MMAD_ARGS.search(line):
            names = [name.strip() for name in match[1].split(",")][:_MMAD_EVENT_ARGS]
            ops += ["mmad_sync_args"] * sum(constants.get(name, 0) != -1 for name in names)
        elif match := _POINTER_CAST.search(line):
            offsets, shape, space = match.groups()
            ends = [constants.get(name.strip(), 0) for name in offsets.split(",")]
            planned[space] = max(planned.get(space, 0), max(ends) + _element_bytes(shape))
        for op in ops:
            counts[op] += 1
            if in_loop:
                counts[f"{op}_in_loop"] += 1
            if weight is None:
                exact = False
            else:
                executed[f"{op}_exec"] += weight
    if exact:
        counts.update(executed)
    counts.update({f"{space}_bytes": end for space, end in sorted(planned.items())})
    return counts


def hivm_sync_counts(solver: str = "inject-sync", target: str = DEFAULT_TARGET,
                     tool: Path | None = None) -> dict[str, dict[str, int]]:
    """Kernel name -> count_syncs of its synchronized IR; empty when bishengir-opt is absent."""
    tool = tool or find_bishengir_opt()
    if tool is None:
        return {}
    return {name: count_syncs(synchronize(path, tool, target, solver))
            for name, path in kernels().items()}


_COLUMNS = [
    ("set", "set_flag"), ("wait", "wait_flag"), ("barrier", "pipe_barrier"),
    ("PIPE_ALL", "pipe_all"), ("set@loop", "set_flag_in_loop"),
    ("wait@loop", "wait_flag_in_loop"), ("bar@loop", "pipe_barrier_in_loop"),
    ("set x", "set_flag_exec"), ("wait x", "wait_flag_exec"),
    ("bar x", "pipe_barrier_exec"), ("ALL x", "pipe_all_exec"),
    ("mmad ev", "mmad_sync_args"), ("mmad ev x", "mmad_sync_args_exec"),
]


def format_table(counts: dict[str, dict[str, int]]) -> str:
    """One row per kernel; `x` columns are executed counts, `@loop` static ops inside loops."""
    header = ["kernel", *(title for title, _ in _COLUMNS), "planned bytes"]
    rows = [header]
    for name, c in counts.items():
        memory = " ".join(f"{k[:-6]}={v}" for k, v in c.items() if k.endswith("_bytes"))
        rows.append([name, *(str(c.get(key, "-")) for _, key in _COLUMNS), memory])
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(cell.rjust(w) if i else cell.ljust(w)
                       for i, (cell, w) in enumerate(zip(row, widths, strict=True)))
             for row in rows]
    return "\n".join([lines[0], "-" * len(lines[0]), *lines[1:]])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--solver", choices=sorted(SOLVERS), default="inject-sync")
    parser.add_argument("--target", default=DEFAULT_TARGET, help="hacc device, e.g. Ascend910B1")
    parser.add_argument("--json", action="store_true", help="print the counts as JSON")
    parser.add_argument("--show", choices=sorted(kernels()), help="print this kernel's output IR")
    args = parser.parse_args()
    tool = find_bishengir_opt()
    if tool is None:
        print(f"{TOOL} not found ($BISHENGIR_OPT, PATH, the ascendnpuir package); "
              f"skipping the AscendNPU-IR peer. To run it: {INSTALL_HINT}")
        return 0
    try:
        if args.show:
            print(synchronize(kernels()[args.show], tool, args.target, args.solver), end="")
            return 0
        counts = hivm_sync_counts(args.solver, args.target, tool)
    except (RuntimeError, subprocess.TimeoutExpired) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(counts, indent=2))
        return 0
    print(f"{tool} {' '.join(pass_arguments(args.target, args.solver))}")
    print("per core, one launch; x = executed (ops in loops times trip counts)\n")
    print(format_table(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
