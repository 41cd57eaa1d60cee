"""tilec.jit: shape specialization, the in-memory and on-disk caches, and
rebuilding corrupt or stale disk entries."""

from __future__ import annotations

import json
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import cpu_tile_ir as tile_ir
import numpy as np
import pytest

import tilec
from tilec.backends.base import CodegenOptions
from tilec.backends.cpu import native
from tilec.runtime import cache, compiler
from tilec.runtime.signature import ArgumentError
from tilec.targets import get_target

pytestmark = pytest.mark.e2e

SOURCE = tile_ir.copy_through_tile(8, 8, "f32", "f16")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _run(kernel, shape=(10, 13)):
    a = np.arange(np.prod(shape), dtype=np.float32).reshape(shape)
    b = np.zeros(shape, np.float16)
    kernel(a, b)
    np.testing.assert_array_equal(b, a.astype(np.float16))


def _entries(cache_dir):
    return sorted(p for p in cache_dir.iterdir() if not p.name.startswith("."))


def test_specializes_per_shape_and_caches_in_memory(cache_dir):
    kernel = tilec.jit(SOURCE)
    _run(kernel)
    first = kernel.compiled(np.zeros((10, 13), np.float32), np.zeros((10, 13), np.float16))
    _run(kernel)
    _run(kernel, (3, 30))
    assert len(_entries(cache_dir)) == 2
    again = kernel.compiled(np.zeros((10, 13), np.float32), np.zeros((10, 13), np.float16))
    assert again is first
    # The dims are static in the specialized kernel.
    assert "memref<10x13xf32>" in first.ir("tile")


def test_disk_cache_is_used_by_a_new_jit_kernel(cache_dir, cpu_stage):
    _run(tilec.jit(SOURCE))
    loaded = tilec.jit(SOURCE)
    _run(loaded)
    compiled = loaded.compiled(np.zeros((10, 13), np.float32), np.zeros((10, 13), np.float16))
    assert compiled.from_cache
    # A loaded kernel still shows every pass stage: they are replayed from the entry's input.
    assert cpu_stage("tile.copy") in compiled.stages()
    assert "tile.copy" not in compiled.ir(cpu_stage("tile.copy"))
    assert compiled.ir("llvm") == compiled.source()


@pytest.mark.parametrize(
    "damage",
    [
        lambda entry: (entry / "meta.json").write_text("{not json"),
        lambda entry: (entry / "kernel.llvm.mlir").write_text("garbage"),
        lambda entry: [p.write_bytes(p.read_bytes()[:100]) for p in entry.glob("*.so")],
        lambda entry: (entry / "meta.json").unlink(),
    ],
)
def test_corrupt_entries_are_rebuilt(cache_dir, damage):
    _run(tilec.jit(SOURCE))
    [entry] = _entries(cache_dir)
    damage(entry)
    rebuilt = tilec.jit(SOURCE)
    _run(rebuilt)
    compiled = rebuilt.compiled(np.zeros((10, 13), np.float32), np.zeros((10, 13), np.float16))
    assert not compiled.from_cache
    assert json.loads((entry / "meta.json").read_text())["entry"] == "copy"


def test_stale_entry_from_another_version_is_rebuilt(cache_dir):
    _run(tilec.jit(SOURCE))
    [entry] = _entries(cache_dir)
    meta = json.loads((entry / "meta.json").read_text())
    meta["tilec"] = "0.0.0-old"
    (entry / "meta.json").write_text(json.dumps(meta))
    rebuilt = tilec.jit(SOURCE)
    _run(rebuilt)
    assert json.loads((entry / "meta.json").read_text())["tilec"] == tilec.__version__


def test_llvm_ir_entry_without_a_linker(cache_dir, monkeypatch):
    monkeypatch.setattr(native, "linker", lambda: None)
    _run(tilec.jit(SOURCE))
    [entry] = _entries(cache_dir)
    assert not list(entry.glob("*.so"))
    loaded = tilec.jit(SOURCE)
    _run(loaded)
    compiled = loaded.compiled(np.zeros((10, 13), np.float32), np.zeros((10, 13), np.float16))
    assert compiled.from_cache


def test_key_covers_ir_target_and_options():
    cpu = get_target("cpu")
    base = cache.cache_key(SOURCE, cpu, CodegenOptions())
    assert base != cache.cache_key(SOURCE + " ", cpu, CodegenOptions())
    assert base != cache.cache_key(SOURCE, cpu, CodegenOptions(opt_level=2))
    assert base != cache.cache_key(SOURCE, get_target("cpu:avx512"), CodegenOptions())
    assert base == cache.cache_key(SOURCE, cpu, CodegenOptions(timing=True))


def test_jit_checks_arguments_before_compiling(cache_dir):
    kernel = tilec.jit(opt_level=2)(SOURCE)
    with pytest.raises(ArgumentError, match="argument 'arg1' expects float16 but got float32"):
        kernel(np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32))
    assert not cache_dir.exists() or not _entries(cache_dir)


def test_dsl_kernel_specializes_its_symbolic_dims(cache_dir):
    import tilec.language as T

    n = T.symbolic("N")

    @T.prim_func
    def double(X: T.Tensor((n,), "float32"), Y: T.Tensor((n,), "float32")):
        with T.Kernel(T.ceildiv(X.shape[0], 16), threads=1) as bx:
            x = T.alloc_fragment((16,), "float32")
            T.copy(X[bx * 16], x)
            for i in T.Parallel(16):
                x[i] = x[i] * 2.0
            T.copy(x, Y[bx * 16])

    kernel = tilec.jit(double)
    for size in (5, 40):
        x = np.arange(size, dtype=np.float32)
        y = np.zeros(size, np.float32)
        kernel(x, y)
        np.testing.assert_array_equal(y, 2 * x)
    compiled = kernel.compiled(np.zeros(40, np.float32), np.zeros(40, np.float32))
    assert "memref<40xf32>" in compiled.ir("tile")
    with pytest.raises(ArgumentError, match="argument 'Y' has N = 4 but argument 'X' has N = 5"):
        kernel(np.zeros(5, np.float32), np.zeros(4, np.float32))


def test_hand_edited_meta_is_detected_and_rebuilt(cache_dir):
    _run(tilec.jit(SOURCE))
    [entry] = _entries(cache_dir)
    meta = json.loads((entry / "meta.json").read_text())
    original = [dict(p) for p in meta["params"]]
    meta["params"][0]["shape"] = [3, 3]
    (entry / "meta.json").write_text(json.dumps(meta, indent=1))
    rebuilt = tilec.jit(SOURCE)
    _run(rebuilt)
    compiled = rebuilt.compiled(np.zeros((10, 13), np.float32), np.zeros((10, 13), np.float16))
    assert not compiled.from_cache
    assert [p.shape for p in compiled.params] == [(10, 13), (10, 13)]
    assert json.loads((entry / "meta.json").read_text())["params"] == original


def test_first_calls_from_many_threads_compile_once(tmp_path, monkeypatch):
    builds = []
    compile_module = compiler.compile_module

    def counting(*args, **kwargs):
        builds.append(threading.get_ident())
        return compile_module(*args, **kwargs)

    monkeypatch.setattr(compiler, "compile_module", counting)
    threads = 8
    for repetition in range(20):
        # A fresh cache each time, so that every repetition compiles.
        monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / str(repetition)))
        builds.clear()
        kernel = tilec.jit(SOURCE)
        start = threading.Barrier(threads)

        def first_call(kernel=kernel, start=start):
            start.wait()
            _run(kernel)

        with ThreadPoolExecutor(threads) as pool:
            for future in [pool.submit(first_call) for _ in range(threads)]:
                future.result()
        assert len(builds) == 1


@pytest.mark.parametrize("replace", ["fifo", "link to /dev/zero", "directory link"])
def test_an_entry_file_that_is_not_a_regular_file_is_rebuilt(cache_dir, replace):
    """A FIFO would block the read forever and /dev/zero never end: the cache opens
    regular files of bounded size only, and rebuilds the entry."""
    _run(tilec.jit(SOURCE))
    [entry] = _entries(cache_dir)
    if replace == "directory link":
        moved = entry.with_name("elsewhere")
        entry.rename(moved)
        entry.symlink_to(moved)
    else:
        target = entry / "kernel.tile.mlir"
        target.unlink()
        if replace == "fifo":
            os.mkfifo(target)
        else:
            target.symlink_to("/dev/zero")
    rebuilt = tilec.jit(SOURCE)
    _run(rebuilt)
    compiled = rebuilt.compiled(np.zeros((10, 13), np.float32), np.zeros((10, 13), np.float16))
    assert not compiled.from_cache


@pytest.mark.parametrize("where", ["a regular file", "under /proc"])
def test_an_unwritable_cache_folder_is_skipped_with_one_warning(tmp_path, monkeypatch, where):
    """Kernels compile and run without the cache, and the user hears of it once."""
    root = tmp_path / "file" if where == "a regular file" else Path("/proc/tilec-cache")
    if where == "a regular file":
        root.write_text("not a folder")
    monkeypatch.setenv("TILEC_CACHE_DIR", str(root))
    monkeypatch.setattr(cache, "_UNWRITABLE", set())
    with pytest.warns(UserWarning, match=r"the kernel cache .* cannot be written") as caught:
        _run(tilec.jit(SOURCE))
        _run(tilec.jit(tile_ir.copy_through_tile(4, 4, "f32", "f16")))
    assert len([w for w in caught if "kernel cache" in str(w.message)]) == 1
