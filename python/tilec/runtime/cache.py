"""The on-disk cache of compiled kernels (`$TILEC_CACHE_DIR` or ~/.cache/tilec).

An entry is a directory named by the cache key (a hash of the tile IR, the
options, the tilec version and the MLIR version) holding `meta.json`, the
kernel's tile IR and LLVM-dialect IR, and, where a C compiler driver is
installed, `kernel.so`: the JIT's own object code linked as a shared
library, loaded with no compilation at all. Without a C compiler the entry
keeps only the LLVM-dialect IR, which skips the tile lowering but still
goes through LLVM's code generation when loaded.

Entries are written to a temporary directory and renamed into place, and
every file is checked against the sha256 recorded in `meta.json` before it
is used; an entry that fails any check (corrupt, truncated, from another
version) is deleted and the kernel rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from mlir import ir

from tilec import __version__
from tilec import ir as tilec_ir
from tilec.runtime import native
from tilec.runtime.compiler import CompiledKernel, Options
from tilec.runtime.signature import Param

FORMAT = 1
_LIBRARY = "kernel.so"
_TILE = "kernel.tile.mlir"
_LLVM = "kernel.llvm.mlir"


def cache_dir() -> Path:
    configured = os.environ.get("TILEC_CACHE_DIR")
    return Path(configured) if configured else Path.home() / ".cache" / "tilec"


def mlir_version() -> str:
    try:
        return metadata.version("xtc-mlir-python-bindings")
    except metadata.PackageNotFoundError:
        return "unknown"


def cache_key(text: str, options: Options) -> str:
    material = json.dumps(
        {
            "format": FORMAT,
            "ir": text,
            "options": options.key(),
            "tilec": __version__,
            "mlir": mlir_version(),
        },
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@dataclass(frozen=True)
class DiskCache:
    root: Path

    def entry(self, key: str) -> Path:
        return self.root / key

    def load(self, key: str, opt_level: int) -> CompiledKernel | None:
        """The cached kernel, or None (after deleting the entry) when it is
        missing or unusable."""
        path = self.entry(key)
        if not path.is_dir():
            return None
        start = time.perf_counter()
        try:
            meta = json.loads((path / "meta.json").read_text())
            if meta["format"] != FORMAT or meta["tilec"] != __version__:
                raise ValueError("stale cache entry")
            for name, digest in meta["sha256"].items():
                if _digest(path / name) != digest:
                    raise ValueError(f"{name} does not match its checksum")
            params = [Param.from_json(p) for p in meta["params"]]
            stages = {"tile": (path / _TILE).read_text(), "llvm": (path / _LLVM).read_text()}
            function = self._function(path, meta, stages["llvm"], opt_level)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, ir.MLIRError):
            shutil.rmtree(path, ignore_errors=True)
            return None
        return CompiledKernel(
            meta["entry"], params, function, stages, None, time.perf_counter() - start
        )

    @staticmethod
    def _function(path: Path, meta: dict, llvm_text: str, opt_level: int) -> native.NativeKernel:
        if _LIBRARY in meta["sha256"]:
            return native.load_shared_library(path / _LIBRARY, meta["entry"])
        context = tilec_ir.make_context()
        with context, ir.Location.unknown(context):
            module = ir.Module.parse(llvm_text)
            return native.jit(module, meta["entry"], opt_level)[0]

    def store(self, key: str, kernel: CompiledKernel, engine: object) -> None:
        """Writes an entry for `kernel`; a failure leaves no entry behind."""
        self.root.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=self.root))
        try:
            (staging / _TILE).write_text(kernel.ir("tile"))
            (staging / _LLVM).write_text(kernel.ir("llvm"))
            if native.linker() is not None:
                native.link_shared_library(engine, staging / _LIBRARY)
            files = sorted(p.name for p in staging.iterdir())
            meta = {
                "format": FORMAT,
                "tilec": __version__,
                "mlir": mlir_version(),
                "entry": kernel.name,
                "params": [p.to_json() for p in kernel.params],
                "sha256": {name: _digest(staging / name) for name in files},
            }
            (staging / "meta.json").write_text(json.dumps(meta, indent=1))
            os.replace(staging, self.entry(key))
        except (OSError, subprocess.SubprocessError):
            # Another process stored the same key first, the disk is full or
            # read-only, or linking failed: the kernel works without an entry.
            pass
        finally:
            shutil.rmtree(staging, ignore_errors=True)
