"""What a lit test of this repository is called, and which lit tests a pass has: the
convention test_lit_lint.py states and checks, shared with `make test-pass`
(pass_tests.py)."""

from __future__ import annotations

import difflib
import inspect
import re
import tomllib
from functools import cached_property
from pathlib import Path, PurePath

from tilec import passes
from tilec.passes.conversion.lowering import lowerings

WORDS = r"[a-z0-9]+(?:-[a-z0-9]+)*"


def lit_files(repo: Path) -> list[Path]:
    return sorted(p for p in (repo / "test").rglob("*.mlir") if "python" not in p.parts)


def _hyphenated(stem: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", stem.lower()).strip("-") or "name"


def _run_lines(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "RUN:" in line)


def runs(argument: str, run: str) -> bool:
    """Whether RUN lines run a pass or pipeline: as a flag or in a --pass-pipeline."""
    flag = r"(?:(?<![\w-])--?|(?<=[(,'\"]))"
    return re.search(flag + re.escape(argument) + r"(?![\w-])", run) is not None


def _checks_diagnostics(text: str) -> bool:
    return "expected-error" in text or re.search(r"RUN:.*(^|[\s|])not\s", text, re.M) is not None


class LitNames:
    """What a lit file of this repository should be called, from where it sits."""

    def __init__(self, repo: Path):
        self.repo = repo
        self.targets = {
            p.name.removeprefix("tile_to_")
            for p in (repo / "passes" / "conversion").glob("tile_to_*")
            if p.is_dir()
        }
        scripts = tomllib.loads((repo / "pyproject.toml").read_text())["project"]["scripts"]
        self.tools = set(scripts)
        # The module of each pass, and of each op lowering (by the lowering's name).
        self.modules = {p.argument: inspect.getmodule(p).__name__ for p in passes.passes()}
        self.modules |= {
            lowering.name: inspect.getmodule(type(lowering)).__name__
            for target in self.targets
            for found in lowerings(target).values()
            for lowering in found
        }
        self.arguments = [p.argument for p in passes.passes()]
        self.arguments += [p.argument for p in passes.pipelines()]
        self.pipelines = {
            p.argument: set(passes.parse_pipeline(p.argument).arguments())
            for p in passes.pipelines()
        }
        test = repo / "test"
        # A pass's layer is the folder of its `<argument>.mlir`.
        self.home = {
            p.stem: p.parent.relative_to(test)
            for p in lit_files(repo)
            if p.stem in set(self.arguments)
        }

    @cached_property
    def _read(self) -> str:
        """What the tests read: every lit file and Python test, but the lint's examples."""
        return "\n".join(
            p.read_text()
            for p in (self.repo / "test").rglob("*")
            if p.suffix in {".mlir", ".py"} and p.name != "test_lit_lint.py"
        )

    def lit_tests(self, name: str) -> list[Path] | None:
        """The lit tests of a pass or pipeline (those named for it, and those whose RUN lines
        run it) or of an op lowering (its `ops/<stem>[-<variant>].mlir`); None if `name` is
        neither."""
        tests = [p for p in lit_files(self.repo) if "Inputs" not in p.parts]
        if name in self.arguments:
            return [
                p
                for p in tests
                if self._named_for(p.stem, self.arguments) == name
                or runs(name, _run_lines(p.read_text()))
            ]
        if name not in self.modules:
            return None
        _, target, _, stem = self.modules[name].rsplit(".", 3)
        target = target.removeprefix("tile_to_")
        ops = self.repo / "test" / "Conversion" / f"TileTo{target.capitalize()}" / "ops"
        return [
            p
            for p in tests
            if p.parent == ops and self._named_for(p.stem, self._ops(target)) == stem
        ]

    def _ops(self, target: str) -> list[str]:
        """The modules of a target's ops/."""
        ops = self.repo / "passes" / "conversion" / f"tile_to_{target}" / "ops"
        return [p.stem for p in ops.glob("*.py") if p.stem != "__init__"]

    def problem(self, path: PurePath, text: str) -> str | None:
        """Why a file at `path` (under test/) breaks the convention, naming what it should
        be; None if it follows it."""
        folder, name = path.parent, path.stem
        parts = folder.parts
        if parts and parts[-1] == "Inputs":
            return self._input(path)
        if parts == ("Transforms",) or self._conversion(parts):
            found = self._named_for(name, self.arguments)
            if found is None:
                return self._unnamed_pass_test(path, text)
            home = self.home.get(found, folder)
            if home != folder:
                return f"a test of {found} belongs in {home / path.name}"
            if not self._tests(found, _run_lines(text)):
                return f"named for {found}, which no RUN line runs (alone or in a pipeline)"
        elif len(parts) == 3 and self._conversion(parts[:2]) and parts[2] == "ops":
            stems = self._ops(parts[1].removeprefix("TileTo").lower())
            if self._named_for(name, stems) is None:
                [close] = difflib.get_close_matches(name, stems, n=1, cutoff=0) or ["<module>"]
                return f"should be {close}.mlir or {close}-<variant>.mlir (a module of its ops/)"
        elif len(parts) == 2 and parts[0] == "Target":
            emitter = f"emit-{parts[1].lower()}"
            if self._named_for(name, [emitter]) is None:
                return f"should be {emitter}-{_hyphenated(name)}.mlir"
        elif len(parts) == 2 and parts[0] == "Dialect":
            if self._named_for(name, ["ops", "invalid"]) is None:
                kind = "invalid" if _checks_diagnostics(text) else "ops"
                return f"should be {kind}-{_hyphenated(name)}.mlir"
        elif parts == ("Simulator",) or (len(parts) == 1 and parts[0] in self.tools):
            if not re.fullmatch(WORDS, name):
                return f"should be {_hyphenated(name)}.mlir"
        else:
            return (
                "lit tests live in Transforms/, Conversion/TileTo<Target>[/ops]/, "
                "Target/<Format>/, Dialect/<Dialect>/, Simulator/ or a tool's folder "
                f"({', '.join(sorted(self.tools))})"
            )
        if re.search(r"(^|-)invalid(-|$)", name) and not _checks_diagnostics(text):
            return "named invalid but checks no diagnostic (expected-error or a `not` RUN line)"
        return None

    def _tests(self, argument: str, run: str) -> bool:
        """Whether RUN lines run `argument`, alone or in a pipeline that holds it."""
        return runs(argument, run) or any(
            argument in held and runs(pipeline, run) for pipeline, held in self.pipelines.items()
        )

    def _conversion(self, parts: tuple[str, ...]) -> bool:
        return (
            len(parts) == 2
            and parts[0] == "Conversion"
            and parts[1] in {f"TileTo{t.capitalize()}" for t in self.targets}
        )

    @staticmethod
    def _named_for(name: str, bases: list[str]) -> str | None:
        """The longest base that `name` is, or is followed by `-<variant>`."""
        for base in sorted(bases, key=len, reverse=True):
            if name == base or re.fullmatch(re.escape(base) + "-" + WORDS, name):
                return base
        return None

    def _unnamed_pass_test(self, path: PurePath, text: str) -> str:
        ran = [a for a in self.arguments if runs(a, _run_lines(text))]
        if not ran:
            return "should be <pass-argument>[-<variant>].mlir, and run that pass"
        found = max(ran, key=len)
        home = self.home.get(found, path.parent)
        return f"should be {home}/{found}-{_hyphenated(path.stem)}.mlir"

    def _input(self, path: PurePath) -> str | None:
        if not re.fullmatch(WORDS, path.stem):
            return f"should be {_hyphenated(path.stem)}.mlir"
        if path.name not in self._read:
            return "no test reads it"
        return None
