"""Lint of the lit tests: a check directive without its colon checks
nothing, silently."""

from __future__ import annotations

import re

_PREFIX_FLAG = re.compile(r"--check-prefix(?:es)?[= ](\S+)")


def _prefixes(text: str) -> set[str]:
    found = {"CHECK"}
    for match in _PREFIX_FLAG.finditer(text):
        found.update(match.group(1).split(","))
    return found


def test_check_directives_have_colons(repo):
    problems = []
    for path in sorted((repo / "test").rglob("*.mlir")):
        text = path.read_text()
        prefixes = "|".join(sorted(_prefixes(text), key=len, reverse=True))
        directive = re.compile(
            rf"//\s*({prefixes})(-(NEXT|SAME|NOT|DAG|LABEL|EMPTY|COUNT-\d+))?(?P<colon>:?)"
            rf"(?=\s|$)"
        )
        for number, line in enumerate(text.splitlines(), 1):
            match = directive.search(line)
            if match and not match["colon"]:
                problems.append(f"{path.relative_to(repo)}:{number}: {line.strip()}")
    assert not problems, "check directives without ':'\n" + "\n".join(problems)


def test_every_lit_test_has_a_run_line(repo):
    missing = [
        str(p.relative_to(repo))
        for p in (repo / "test").rglob("*.mlir")
        if "Inputs" not in p.parts and "RUN:" not in p.read_text()
    ]
    assert not missing
