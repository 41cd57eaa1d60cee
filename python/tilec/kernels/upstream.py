"""Drop-in registration: code that imports DeepSeek's package names gets tilec's.

`install_as_upstream()` puts `tilec.kernels.deep_gemm` and `tilec.kernels.tile_kernels`
(and their submodules) in `sys.modules` as `deep_gemm` and `tile_kernels`, so a
framework's imports and the upstream projects' own test files run against tilec,
unless the real package is importable, which is then left to win.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys

# upstream name -> tilec's package
PACKAGES = {"deep_gemm": "tilec.kernels.deep_gemm", "tile_kernels": "tilec.kernels.tile_kernels"}


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
        package = importlib.import_module(ours)
        modules = {upstream: package}
        for info in pkgutil.walk_packages(package.__path__, f"{ours}."):
            modules[upstream + info.name.removeprefix(ours)] = importlib.import_module(info.name)
        for name, module in modules.items():
            sys.modules[name] = module
            registered[name] = module.__name__
    return registered
