"""The on-disk cache of compiled kernels (`$TILEC_CACHE_DIR` or ~/.cache/tilec).

An entry is a directory named by the cache key (a hash of the tile IR, the
target and its parameters, the options, the tilec version, tilec's own code
and the MLIR version) holding `meta.json`, the kernel's tile IR and whatever the
target's driver writes for its binary (on cpu a linked `kernel.so` and the
LLVM dialect it came from).

Entries are written to a temporary directory and renamed into place. Every
file is checked against the sha256 recorded in `meta.json`, and `meta.json`
itself against a digest of its own content, before anything is used; an
entry that fails any check (corrupt, truncated, hand-edited, from another
version) is deleted and the kernel rebuilt.

`set_enabled(False)` (`tilec.disable_cache()`, as TileLang's) makes this
process compile every new specialization without reading or writing entries;
`clear()` (`tilec.cache.clear_cache()`) deletes every entry of the folder.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import stat
import subprocess
import tempfile
import time
import warnings
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from mlir import ir

import tilec
import tilec.passes
from tilec import __version__
from tilec.backends.base import Backend, Options
from tilec.runtime.cache_folder import cache_dir
from tilec.runtime.compiler import TILE_STAGE, CompiledKernel
from tilec.runtime.signature import Param
from tilec.runtime.stages import Replay, Stages
from tilec.targets import TargetDescription

FORMAT = 5
_TILE = "kernel.tile.mlir"
_REPLAY = "replay.mlir"
_META = "meta.json"


_enabled = True


def enabled() -> bool:
    """Whether kernels are read from and written to the disk cache (process-wide)."""
    return _enabled


def set_enabled(on: bool) -> None:
    global _enabled
    _enabled = bool(on)


_ENTRY_NAME = re.compile(r"[0-9a-f]{64}|\.[0-9a-f]{16}-.+")
"""An entry (its key) or an entry being written (`store`'s staging folder): clearing
deletes only these, so a cache folder shared with other files keeps them."""


def clear(root: Path | None = None) -> int:
    """Deletes every entry of the cache folder (default: `cache_dir()`) and returns how
    many; the kernels compiled in memory stay usable, later processes rebuild."""
    root = cache_dir() if root is None else root
    if not root.is_dir():
        return 0
    removed = 0
    for path in root.iterdir():
        if _ENTRY_NAME.fullmatch(path.name) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
            removed += 1
    return removed


def mlir_version() -> str:
    try:
        return metadata.version("xtc-mlir-python-bindings")
    except metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def compiler_digest() -> str:
    """A hash of the compiler's own code (tilec's modules, its passes, its
    native library): a kernel compiled by other code is another entry, even
    at the same version number, as in a checkout between two commits."""
    digest = hashlib.sha256()
    roots = [Path(tilec.__file__).parent, Path(tilec.passes.__file__).parent]
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix in (".py", ".so") and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def cache_key(text: str, target: TargetDescription, options: Options) -> str:
    return _digest_of(
        {
            "format": FORMAT,
            "ir": text,
            "target": target.parameters(),
            "options": options.key(),
            "tilec": __version__,
            "compiler": compiler_digest(),
            "mlir": mlir_version(),
        }
    )


def _digest_of(data: dict) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()


_MAX_FILE_BYTES = 1 << 30
"""No file of an entry is larger (a linked kernel is a few MiB): a bigger one is damage."""


def _regular(path: Path) -> Path:
    """`path` if it is a regular file (not a link, a FIFO or a device) of at most
    `_MAX_FILE_BYTES`, so reading it ends; a ValueError (an unusable entry) otherwise."""
    info = path.lstat()
    if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_FILE_BYTES:
        raise ValueError(f"{path.name} is not a regular file of a cache entry")
    return path


def _file_digest(path: Path) -> str:
    return hashlib.sha256(_regular(path).read_bytes()).hexdigest()


_UNWRITABLE: set[Path] = set()
"""Cache folders already reported as unwritable (one warning each per process)."""


@dataclass(frozen=True)
class DiskCache:
    root: Path
    target: TargetDescription
    backend: Backend

    def entry(self, key: str) -> Path:
        return self.root / key

    def load(self, key: str, options: Options) -> CompiledKernel | None:
        """The cached kernel, or None (after deleting the entry) when it is
        missing or unusable."""
        path = self.entry(key)
        if path.is_symlink() or not path.is_dir():
            return None
        start = time.perf_counter()
        try:
            meta = json.loads(_regular(path / _META).read_text())
            recorded = meta.pop("digest")
            if _digest_of(meta) != recorded or meta["key"] != key:
                raise ValueError("meta.json does not match its digest")
            if meta["format"] != FORMAT or meta["tilec"] != __version__:
                raise ValueError("stale cache entry")
            for name, digest in meta["sha256"].items():
                if _file_digest(path / name) != digest:
                    raise ValueError(f"{name} does not match its checksum")
            # the drivers read only the files the entry lists, each checked above
            if {p.name for p in path.iterdir()} - set(meta["sha256"]) - {_META}:
                raise ValueError("the entry has files it does not list")
            params = [Param.from_json(p) for p in meta["params"]]
            binary = self.backend.driver.load(path, meta["entry"], options)
            replay = None
            if meta["pipeline"] is not None:
                replay = Replay((path / _REPLAY).read_text(), meta["pipeline"])
            stages = Stages((path / _TILE).read_text(), self.backend.final_stage,
                            binary.final_ir, replay)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, ir.MLIRError):
            shutil.rmtree(path, ignore_errors=True)
            return None
        return CompiledKernel(
            meta["entry"],
            params,
            self.target.spec,
            binary,
            self.backend.driver.launcher(binary, params),
            stages,
            None,
            time.perf_counter() - start,
            self.backend.driver.takes_device_tensors,
            from_cache=True,
        )

    def store(self, key: str, kernel: CompiledKernel) -> None:
        """Writes an entry for `kernel`; a failure leaves no entry behind, and a cache
        folder that cannot be written at all is skipped with one warning."""
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            staging = Path(tempfile.mkdtemp(prefix=f".{key[:16]}-", dir=self.root))
        except OSError as exc:
            if self.root not in _UNWRITABLE:
                _UNWRITABLE.add(self.root)
                warnings.warn(f"tilec: the kernel cache {self.root} cannot be written "
                              f"({exc.strerror or exc}); kernels are compiled without it "
                              f"(set TILEC_CACHE_DIR to a writable folder)", stacklevel=4)
            return
        try:
            (staging / _TILE).write_text(kernel.ir(TILE_STAGE))
            replay = kernel.replay
            if replay is not None:
                (staging / _REPLAY).write_text(replay.source)
            self.backend.driver.save(kernel.binary, staging)
            files = sorted(p.name for p in staging.iterdir())
            meta = {
                "format": FORMAT,
                "key": key,
                "tilec": __version__,
                "mlir": mlir_version(),
                "target": self.target.spec,
                "entry": kernel.name,
                "params": [p.to_json() for p in kernel.params],
                "pipeline": None if replay is None else replay.pipeline,
                "sha256": {name: _file_digest(staging / name) for name in files},
            }
            meta["digest"] = _digest_of(meta)
            (staging / _META).write_text(json.dumps(meta, indent=1))
            os.replace(staging, self.entry(key))
        except (OSError, subprocess.SubprocessError):
            # Another process stored the same key first, the disk is full or
            # read-only, or linking failed: the kernel works without an entry.
            pass
        finally:
            shutil.rmtree(staging, ignore_errors=True)
