"""Running one emitted AscendC source on numpy arrays: every AIC and AIV of the grid a thread
of the model (`model/runtime.cpp`), each running its own copy of the kernel library."""

from __future__ import annotations

import ctypes
import re
import threading
from dataclasses import dataclass

import numpy as np

from tilec.backends.ascend.cpu_model.build import core_copies, kernel_library, model_library

KERNEL_TYPES = {"KERNEL_TYPE_AIV_ONLY": "aiv", "KERNEL_TYPE_AIC_ONLY": "aic",
                "KERNEL_TYPE_MIX_AIC_1_2": "mix"}
SCALAR_TYPES = {"int64_t": np.int64, "int32_t": np.int32, "int16_t": np.int16, "int8_t": np.int8,
                "uint64_t": np.uint64, "uint32_t": np.uint32, "uint16_t": np.uint16,
                "uint8_t": np.uint8, "float": np.float32, "double": np.float64,
                "half": np.float16, "bool": np.bool_}
MODELLED_ARCHS = (2201, 3510)
"""The `__NPU_ARCH__`s the model implements the intrinsics of."""
_ENTRY = re.compile(r'extern "C" __global__ __aicore__ void (\w+)\(([^)]*)\)\s*\{')
_MARKER = re.compile(r"^(\s*)// \[\d+\] (ascend\.[^\n]*)$", re.M)


class AscendCRunError(Exception):
    """The run stopped: a hazard, a deadlock, a flag misuse or an intrinsic left out, with
    the line of the C++ (`kernel.cpp:<line>`, the emitted source's own numbering)."""


@dataclass(frozen=True)
class Entry:
    """The entry of an emitted source: its name, parameters (C type, name) and core kind."""

    name: str
    params: tuple[tuple[str, str], ...]
    kind: str

    @staticmethod
    def of(source: str) -> Entry:
        match = _ENTRY.search(source)
        if match is None:
            raise AscendCRunError("the source has no extern \"C\" __global__ __aicore__ entry")
        params = tuple(tuple(p.strip().rsplit(" ", 1)) for p in match.group(2).split(",")
                       if p.strip())
        kind = next((k for t, k in KERNEL_TYPES.items() if t in source), None)
        if kind is None:
            raise AscendCRunError("the source names none of the kernel types "
                                  f"{', '.join(KERNEL_TYPES)} in KERNEL_TASK_TYPE_DEFAULT")
        return Entry(match.group(1), params, kind)  # type: ignore[arg-type]


def kernel_part(source: str) -> str:
    """The kernel without its host launcher, each op's marker comment also telling the model
    the line it is at (on the same line, so the numbering is the source's)."""
    kernel = source.split("// ---- host launcher", 1)[0]

    def mark(match: re.Match) -> str:
        op = match.group(2).replace("\\", "\\\\").replace('"', '\\"')
        return f'{match.group(1)}tilec_model::at(__LINE__, "{op}"); // {match.group(2)}'

    return '#line 1 "kernel.cpp"\n' + _MARKER.sub(mark, kernel)


def _wrapper(entry: Entry) -> str:
    args = ", ".join(f"static_cast<GM_ADDR>(a[{i}])" if ctype == "GM_ADDR"
                     else f"*static_cast<{ctype}*>(a[{i}])"
                     for i, (ctype, _) in enumerate(entry.params))
    kind = {"aiv": "AIV_MODE", "aic": "AIC_MODE", "mix": "AIV_MODE"}[entry.kind]
    return f"""
extern "C" __attribute__((visibility("default")))
void tilec_setup(int type, int64_t block, int64_t dim, int64_t sub, int mix) {{
    g_coreType = type;
    block_idx = block;
    block_num = dim;
    sub_block_idx = sub;
    g_taskRation = mix ? 2 : 1;
    g_kernelMode = AscendC::KernelMode::{kind};
    tilec_model::set_local_buffers(AscendC::ConstDefiner::Instance().cpuUB,
                                   AscendC::ConstDefiner::Instance().cpuL1);
}}
extern "C" __attribute__((visibility("default"))) void tilec_entry(void** a) {{
    {entry.name}({args});
}}
"""


_SETUP = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                          ctypes.c_int)
_ENTRY_FN = ctypes.CFUNCTYPE(None, ctypes.POINTER(ctypes.c_void_p))
_loaded: dict[str, ctypes.CDLL] = {}
_lock = threading.Lock()


def _load(path: str) -> ctypes.CDLL:
    if path not in _loaded:
        _loaded[path] = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    return _loaded[path]


def run_source(source: str, arch: int, block_dim: int, values: list[object]) -> None:
    """Runs `source` (an emitted AscendC kernel) on a grid of `block_dim` AI cores, with
    `values` for its parameters in order: a C-contiguous numpy array for each GM_ADDR
    (written in place), a number for each scalar."""
    if arch not in MODELLED_ARCHS:
        raise AscendCRunError(f"the CPU model runs the AscendC of __NPU_ARCH__ "
                              f"{', '.join(map(str, MODELLED_ARCHS))}, not {arch}")
    entry = Entry.of(source)
    if len(values) != len(entry.params):
        raise AscendCRunError(f"{entry.name} takes {len(entry.params)} parameters "
                              f"({', '.join(n for _, n in entry.params)}), not {len(values)}")
    cores = block_dim * (3 if entry.kind == "mix" else 1)
    library = kernel_library(kernel_part(source), _wrapper(entry), arch)
    keep: list[object] = []
    pointers = (ctypes.c_void_p * len(values))()
    for index, ((ctype, name), value) in enumerate(zip(entry.params, values, strict=True)):
        if ctype == "GM_ADDR":
            if not isinstance(value, np.ndarray) or not value.flags.c_contiguous:
                raise AscendCRunError(f"{name}: a C-contiguous numpy array is needed")
            pointers[index] = value.ctypes.data
        else:
            scalar = np.array(value, dtype=SCALAR_TYPES[ctype])
            keep.append(scalar)
            pointers[index] = scalar.ctypes.data
    with _lock:
        model = _load(str(model_library()))
        copies = [_load(str(p)) for p in core_copies(library, cores)]
        setups = (_SETUP * cores)(*(_SETUP(("tilec_setup", c)) for c in copies))
        entries = (_ENTRY_FN * cores)(*(_ENTRY_FN(("tilec_entry", c)) for c in copies))
        message = ctypes.create_string_buffer(1 << 16)
        run = model.tilec_model_run
        run.restype = ctypes.c_int
        failed = run(ctypes.c_int(arch), ctypes.c_int64(block_dim),
                     ctypes.c_int(entry.kind == "mix"), ctypes.c_int(entry.kind == "aic"),
                     ctypes.c_int(cores), setups, entries, pointers, message,
                     ctypes.c_int(len(message)))
    if failed:
        raise AscendCRunError(message.value.decode(errors="replace"))
