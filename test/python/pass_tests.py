"""`make test-pass PASS=<name>`: the tests of one pass, pipeline or op lowering, for the
loop of whoever changes it (seconds to a few minutes, where the suite takes most of an hour).

Lit: the files named for it, and for a pass those whose RUN lines run it (lit_names.py).
Pytest: the test modules that name it (its argument or lowering name, or its module), as
CI runs them (without the slow sweeps): e2e tests included, for a module that names the
pass tests it. Extra pytest flags come from PYTEST_ADDOPTS (`-n auto`, `-x`)."""

from __future__ import annotations

import difflib
import os
import re
import subprocess
import sys
from pathlib import Path

from lit_names import LitNames

REPO = Path(__file__).resolve().parents[2]


def _mentions(names: LitNames, name: str) -> re.Pattern[str]:
    """What a Python test that exercises `name` says: the name, or its module's."""
    words = [re.escape(name)]
    if name in names.modules:
        parent, stem = map(re.escape, names.modules[name].rsplit(".", 2)[1:])
        words += [rf"\b{stem}\.py", rf"\b{parent}[./]{stem}\b", rf"\b{parent} import {stem}\b"]
    # not inside a longer name (convert-tile-to-cpu for tile-to-cpu); --flags are fine
    return re.compile(rf"(?<!\w)(?<!\w-)(?:{'|'.join(words)})(?![\w-])")


def main(argv: list[str]) -> int:
    name = argv[0] if argv else ""
    names = LitNames(REPO)
    lit = names.lit_tests(name)
    if lit is None:
        known = sorted({*names.arguments, *names.modules})
        close = difflib.get_close_matches(name, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        print(
            f"make test-pass: PASS={name!r} names no registered pass, pipeline or op lowering"
            f"{hint} (tile-opt --list-passes lists the passes; an op lowering is named by its "
            "`name`, e.g. ascend-cube-gemm)",
            file=sys.stderr,
        )
        return 2
    mentions = _mentions(names, name)
    modules = sorted(
        p
        for p in (REPO / "test" / "python").rglob("test_*.py")
        if p.name != "test_lit_lint.py" and mentions.search(p.read_text())
    )
    bin_dir = Path(sys.executable).parent
    flags = os.environ.get("LIT_FLAGS", "-sv").split()
    print(f"{name}: {len(lit)} lit tests, {len(modules)} pytest modules", flush=True)
    failed = bool(lit) and subprocess.run([bin_dir / "lit", *flags, *lit], cwd=REPO).returncode != 0
    if modules:
        pytest = [sys.executable, "-m", "pytest", "-q", *modules]
        # 5: every test of the modules is slow, so none ran
        failed |= subprocess.run(pytest, cwd=REPO).returncode not in (0, 5)
    return int(failed)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
