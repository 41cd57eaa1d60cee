"""Building an emitted AscendC source for the CPU: the vendor's headers in their CPU-debug
mode (`ASCENDC_CPU_DEBUG=1`) over tilec's stand-ins for the toolkit's CPU stubs
(`include/`), linked against the intrinsic model (`model/`, built once per model source).

What the headers' inline code calls and the model does not implement is declared, round
by round as g++ reports it (as test/python/ascend/vendor_headers.py finds them for the
syntax check), as a function that stops the run naming it: a kernel reaches only
intrinsics the model covers, or fails saying which one it does not.

Everything built lives under `$TILEC_CACHE_DIR/ascendc-cpu/`, keyed by what it is built
from: the model by its own sources, a kernel by its source, the headers' tree and the model.
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
INCLUDE = HERE / "include"
MODEL_SOURCES = sorted((HERE / "model").glob("*.cpp"))
ADVANCED_MATH = ("tanh", "sin", "cos", "erf")
"""The advanced API's math headers the emitter's calls need (the rest of the advanced API
is left out by its include guards)."""


class BuildError(Exception):
    """g++ rejected the kernel, the headers or the model: its error lines."""


def devkit_root() -> Path:
    """The asc-devkit checkout `ASCEND_DEVKIT` names."""
    root = os.environ.get("ASCEND_DEVKIT")
    if not root or not (Path(root) / "include" / "kernel_operator.h").is_file():
        raise BuildError(
            "run_ascendc compiles against the vendor's AscendC headers: set ASCEND_DEVKIT to a "
            "copy of https://github.com/mirror-cann/asc-devkit (git clone it, or extract an "
            "archive of it; the folder that holds include/kernel_operator.h)")
    return Path(root)


def _folder() -> Path:
    from tilec.runtime.cache_folder import cache_dir

    folder = cache_dir() / "ascendc-cpu"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _digest(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part.encode() if isinstance(part, str) else part)
        digest.update(b"\0")
    return digest.hexdigest()[:24]


@functools.cache
def _compiler() -> str:
    return subprocess.run(["g++", "--version"], capture_output=True, text=True).stdout


def _model_digest() -> str:
    files = [*sorted(INCLUDE.rglob("*.h")), *MODEL_SOURCES, Path(__file__)]
    return _digest(_compiler(), *(p.name.encode() + p.read_bytes() for p in files))


def headers_digest(root: Path) -> str:
    """The headers' tree, by every file's path, size and modification time."""
    entries = []
    for folder in ("include", "impl"):
        for path in sorted((root / folder).rglob("*")):
            if path.is_file():
                stat = path.stat()
                entries.append(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}")
    return _digest(str(root), *entries)


def _run(command: list[str], what: str) -> subprocess.CompletedProcess:
    result = subprocess.run(command, capture_output=True, text=True,
                            env={**os.environ, "LC_ALL": "C"})
    if result.returncode != 0:
        errors = "\n".join(line for line in result.stderr.splitlines()
                           if "error" in line or "undefined reference" in line)
        raise BuildError(f"{what} does not compile:\n{errors or result.stderr[-4000:]}")
    return result


def _publish(built: Path, target: Path) -> Path:
    """`built` moved to `target` atomically (another process may build the same)."""
    os.replace(built, target)
    return target


@functools.cache
def model_library() -> Path:
    """The intrinsic model's shared library, built once per model source."""
    folder = _folder()
    target = folder / f"model-{_model_digest()}.so"
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        (Path(tmp) / "tilec_unmodelled.h").write_text("")
        built = Path(tmp) / "model.so"
        _run(["g++", "-std=c++17", "-O2", "-fPIC", "-shared", "-pthread", f"-I{tmp}",
              f"-I{INCLUDE}", f"-I{HERE / 'model'}", *map(str, MODEL_SOURCES), "-o", str(built)],
             "the intrinsic model")
        return _publish(built, target)


def _guard(path: Path) -> str | None:
    match = re.search(r"#ifndef\s+(\w+)\s*\n\s*#define\s+\1\b", path.read_text(errors="replace"))
    return match.group(1) if match else None


@functools.cache
def _flags(root: Path, arch: int) -> tuple[str, ...]:
    """Preprocessor and include flags: CPU-debug mode for `arch`, with the advanced API's
    headers but the math ones left out by predefining their include guards."""
    # the 950's Sin and Cos share sincos_3510_impl.h, which takes SinCosConfig from sincos_utils.h
    kept = (*ADVANCED_MATH, "sincos") if arch == 3510 else ADVANCED_MATH
    math = re.compile(rf"include/adv_api/math/({'|'.join(kept)})(_utils)?\.h")
    guards = sorted({guard for path in root.glob("include/adv_api/**/*.h")
                     if not math.fullmatch(str(path.relative_to(root)))
                     and (guard := _guard(path)) is not None})
    includes = [INCLUDE, root, root / "include", root / "include" / "basic_api",
                root / "include" / "utils", root / "impl", root / "impl" / "basic_api",
                root / "impl" / "utils"]
    if arch == 3510:  # the 950's SIMT API (kernel_operator_intf.h): the emitter calls none
        guards.append("ASCENDC_MODULE_SIMT_INTERFACE_H")
    return ("-std=c++17", "-DASCENDC_CPU_DEBUG=1", f"-D__NPU_ARCH__={arch}",
            *(f"-D{g}" for g in guards), *(f"-I{p}" for p in includes))


def _unit(kernel: str) -> str:
    math = "".join(f'#include "adv_api/math/{m}.h"\n' for m in ADVANCED_MATH)
    return f'#include "kernel_operator.h"\n{math}{kernel}'


def _undeclared(stderr: str) -> set[str]:
    """The intrinsics g++ found called but undeclared in the headers' code."""
    found = set(re.findall(r"there are no arguments to '(\w+)'", stderr))
    # a name the model declares for one architecture that another calls in other forms
    # (the 950's register-level vadd, vsel ... beside the 910b's): its other forms
    # (the headers' calls only: one the kernel's own code makes is its error)
    found |= {n for line in stderr.splitlines() if not line.startswith("kernel.cpp:")
              for n in re.findall(r"no matching function for call to '(\w+)\(", line)}
    found |= {n for n in re.findall(r"'(\w+)' was not declared in this scope", stderr)
              if re.search(rf"\b{n}\s*\(", stderr)}
    return {n for n in found if re.fullmatch(r"[a-z_][a-z0-9_]*", n)}


def unmodelled(root: Path, arch: int, headers: str, unit: Path) -> str:
    """The declarations of every intrinsic the headers call for `unit` that the model
    leaves out, found as vendor_headers.py finds them (g++'s undeclared names in the
    headers' code, round by round as templates instantiate); the names found are kept per
    headers' tree and architecture, so later kernels start from them."""
    known = _folder() / f"unmodelled-{_digest(headers, str(arch), _model_digest())}.txt"
    names = set(known.read_text().split()) if known.is_file() else set()
    declarations = unit.parent / "tilec_unmodelled.h"
    for _ in range(8):
        declarations.write_text(_declarations(names))
        result = subprocess.run(
            ["g++", *_flags(root, arch), f"-I{unit.parent}", "-fsyntax-only",
             "-fmax-errors=100000", str(unit)],
            capture_output=True, text=True, env={**os.environ, "LC_ALL": "C"})
        found = _undeclared(result.stderr)
        if not found - names:
            break
        names |= found
        staged = known.with_suffix(f".{os.getpid()}.tmp")
        staged.write_text("\n".join(sorted(names)))
        _publish(staged, known)
    return declarations.read_text()


def _declarations(names: set[str]) -> str:
    return "".join(
        f"template <class... A> inline tilec_model::Any {name}(A&&...) "
        f"{{ tilec_model::unmodelled(\"{name}\"); }}\n" for name in sorted(names))


def kernel_library(kernel: str, wrapper: str, arch: int) -> Path:
    """The kernel (its AscendC without the host launcher, its markers calling
    `tilec_model::at`) and `wrapper` compiled with the headers against the model."""
    root = devkit_root()
    headers = headers_digest(root)
    folder = _folder()
    model = model_library()
    target = folder / f"kernel-{_digest(kernel, wrapper, str(arch), headers, model.name)}.so"
    if target.is_file():
        return target
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        source = Path(tmp) / "kernel.cpp"
        source.write_text(_unit(kernel) + wrapper)
        unmodelled(root, arch, headers, source)
        objects = [Path(tmp) / "kernel.o", Path(tmp) / "checks.o"]
        # every core runs its own copy of the library (the headers keep per-core state in
        # globals and function-local statics): nothing of it may bind to another copy
        _run(["g++", *_flags(root, arch), f"-I{tmp}", "-O1", "-fPIC", "-c", "-pthread",
              "-fvisibility=hidden", "-fvisibility-inlines-hidden", "-fno-gnu-unique",
              "-Wno-attributes", str(source), "-o", str(objects[0])],
             "the AscendC source with the vendor headers")
        checks = Path(tmp) / "checks.cpp"
        checks.write_text(_passing_checks(objects[0]))
        _run(["g++", "-O1", "-fPIC", "-c", str(checks), "-o", str(objects[1])], "the checks")
        built = Path(tmp) / "kernel.so"
        _run(["g++", "-shared", "-pthread", "-Wl,-z,defs", *map(str, objects), str(model),
              f"-Wl,-rpath,{model.parent}", "-o", str(built)], "the kernel library")
        return _publish(built, target)


def _passing_checks(obj: Path) -> str:
    """Definitions of what the toolkit's CPU library defines and the kernel calls: each
    parameter check (`AscendC::check::*`, declared by the headers' kernel_check_*_util.h)
    passes, as the model checks what it runs itself (the buffer sizes the advanced API's
    checks ask, `GetHardWarebufferSize`, exceed any tensor's); `AscendC::ProcessLock`, the lock its
    forked cores take around atomic GM writes, does nothing (the model's atomic writes
    take a lock of their own); its atomic-mode globals (`g_isAtomic`, `g_atomicType`,
    kernel_utils.h) stay zero: the model accumulates atomic writes itself."""
    symbols = subprocess.run(["nm", "-u", str(obj)], capture_output=True, text=True).stdout
    lines = []
    for i, name in enumerate(sorted(set(re.findall(r"\b(_ZN7AscendC(?:5check|11ProcessLock|10g_isAtomic|12g_atomicType)\w*)",
                                                   symbols)))):
        if name.endswith("E") and not name.startswith("_ZN7AscendC5check"):  # data
            lines.append(f'extern "C" {{ long tilec_{i} asm("{name}") = 0; }}')
            continue
        value = "tilec_lock_object" if "CreateLock" in name else \
            "1L << 30" if "GetHardWarebufferSize" in name else \
            "1" if "5check" in name else "0"
        lines.append(f'extern "C" long tilec_{i}() asm("{name}");\n'
                     f"long tilec_{i}() {{ return (long){value}; }}")
    return "static char tilec_lock_object[256];\n" + "\n".join(lines) + "\n"


def core_copies(library: Path, count: int) -> list[Path]:
    """`count` copies of a kernel library, one per core: the dynamic loader maps a file
    once, so each core's globals need a file of their own."""
    copies = []
    for index in range(count):
        copy = library.with_name(f"{library.stem}.core{index}.so")
        if not copy.is_file():
            staged = copy.with_suffix(f".{os.getpid()}.tmp")
            shutil.copyfile(library, staged)
            _publish(staged, copy)
        copies.append(copy)
    return copies
