"""pyproject.toml lists every Python package of the tree: a package missing
there works in an editable checkout but not in an installed tilec."""

from __future__ import annotations

import tomllib


def test_every_package_is_listed(repo):
    config = tomllib.loads((repo / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    found = {"tilec.passes", "tilec.tools"}
    for init in (repo / "python" / "tilec").rglob("__init__.py"):
        found.add(".".join(init.parent.relative_to(repo / "python").parts))
    for top in ("passes", "tools"):
        for init in (repo / top).rglob("__init__.py"):
            parts = init.parent.relative_to(repo / top).parts
            found.add(".".join(("tilec", top, *parts)))
    assert listed == found
