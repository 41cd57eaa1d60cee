"""Drop-in registration: code that imports DeepSeek's package names gets tilec's.

`install_as_upstream()` puts `tilec.kernels.deep_gemm`, `tile_kernels`, `flash_mla`,
`deep_select` and `deep_ep` (and their submodules) in `sys.modules` under the upstream
names, so a framework's imports and the upstream projects' own test files run against
tilec, unless the real package is importable, which is then left to win. Packages that
need torch (deep_ep, deep_select) are skipped where torch is not installed.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys

# upstream name -> tilec's package
PACKAGES = {name: f"tilec.kernels.{name}"
            for name in ("deep_gemm", "tile_kernels", "flash_mla", "deep_select", "deep_ep")}


def install_as_upstream() -> dict[str, str]:
    """Registers tilec's packages under the upstream names not installed for real;
    returns what it registered (upstream name -> tilec module)."""
    registered: dict[str, str] = {}
    for upstream, ours in PACKAGES.items():
        present = sys.modules.get(upstream)
        if present is not None and not present.__name__.startswith("tilec."):
            continue
        if present is None and importlib.util.find_spec(upstream) is not None:
            continue
        try:
            package = importlib.import_module(ours)
        except ModuleNotFoundError as missing:
            if missing.name != "torch":
                raise
            continue
        modules = {upstream: package}
        for info in pkgutil.walk_packages(package.__path__, f"{ours}."):
            modules[upstream + info.name.removeprefix(ours)] = importlib.import_module(info.name)
        for name, module in modules.items():
            sys.modules[name] = module
            registered[name] = module.__name__
    return registered
