"""The TileLang ports of this directory on tilec's other targets: ascend:910b and ascend:950 (in
tilec's Ascend simulator, which fails on any race, deadlock or unbalanced flag), cuda:sm_80
and cuda:sm_90a (assembled by ptxas where one is installed, and the IR after
convert-tile-to-cuda run thread by thread in test/python/cuda/simt.py, simt_hopper.py for
wgmma, TMA and mbarriers).

Each case runs a port's own test function (its kernels, inputs, numpy reference and tolerances)
on one small shape, ragged where the port allows it, with every call of a `tilec.jit` kernel
(and the `tilec.compile` of rms_norm_splitk) sent to the target instead of the cpu: for ascend
the kernel is jitted for that target and called, for cuda it is compiled for sm_80 and its
launches are emulated. Nothing of a port is copied.

Status, 46 cases (43 test functions of 38 ports; two Ascend-only variants have rows of whole
32-byte blocks): all 46 run on each of ascend:910b and ascend:950. 44 of 44 cases (38 ports)
run in the sm_80 emulator, float8 ones too (their gemm operands f16 on sm_80), 11 of them marked
slow, and 44 of 44 pass ptxas for sm_90a and run in its emulator (wgmma where the gemm allows),
34 of them marked slow (HOPPER_DEFAULT). The marks are the status: a strict xfail turns red
when its target learns the feature; a reason starting "finding:" is a problem rather than a gap.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

import tilec
from tilec import ir
from tilec.runtime.calls import call_arguments, returned
from tilec.runtime.jit import JitKernel

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the ports, by module name
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cuda"))
import simt
import simt_hopper

from tilec.backends.cuda.binary import find_ptxas

HOPPER = "cuda-sm_90a-emulator"
TARGETS = ["ascend:910b", "ascend:950", "cuda-emulator", HOPPER]
ASCEND = ("ascend:910b", "ascend:950")
EMULATED = {"cuda-emulator": ("cuda:sm_80", simt.run_launches),
            HOPPER: ("cuda:sm_90a", simt_hopper.run_launches)}
"""The cuda columns: the arch each compiles for and the emulator that runs its launches."""

# name: (port module, its test function, the arguments of one small case)
CASES = {
    "gemm": ("test_tl_gemm", "test_matmul", (70, 40, 40)),
    "quickstart": ("test_tl_quickstart", "test_quickstart_compile", (70, 40, 40)),
    "quickstart_eager": ("test_tl_quickstart", "test_quickstart_eager_call", (70, 40, 40)),
    "dynamic_shape": ("test_tl_dynamic_shape", "test_dynamic_matmul", (70, 40, 40, True, True)),
    "gemm_non_persistent": ("test_tl_gemm_persistent", "test_matmul_non_persistent",
                            (50, 100, 40)),
    "gemm_persistent_waves": ("test_tl_gemm_persistent", "test_matmul_persistent_waves",
                              (50, 100, 40)),
    "gemm_persistent_primitive": ("test_tl_gemm_persistent", "test_matmul_persistent_primitive",
                                  (50, 100, 40)),
    "elementwise_add": ("test_tl_elementwise_add", "test_elementwise_add", (70, 45)),
    "rms_norm": ("test_tl_rms_norm", "test_rms_norm", (10, 100)),
    "rms_norm_rows_of_32_bytes": ("test_tl_rms_norm", "test_rms_norm", (10, 104)),
    "rms_norm_splitk": ("test_tl_rms_norm", "test_rms_norm_splitk", (10, 100)),
    "layernorm": ("test_tl_layernorm", "test_layernorm_fwd", (9, 100, 4)),
    "layernorm_rows_of_32_bytes": ("test_tl_layernorm", "test_layernorm_fwd", (9, 112, 4)),
    "online_softmax": ("test_tl_online_softmax", "test_online_softmax", (5, 256)),
    "chunk_local_cumsum": ("test_tl_chunk_local_cumsum", "test_chunk_local_cumsum",
                           (1, 70, 2, True, False, False)),
    "topk": ("test_tl_topk", "test_topk", (20, 48, 6)),
    "gemv_alloc_reducer": ("test_tl_gemv", "test_gemv_alloc_reducer", (70, 100)),
    "naive_gemv": ("test_tl_gemv", "test_naive_gemv", (70, 100)),
    "mha_fwd_bhsd": ("test_tl_mha_fwd_bhsd", "test_mha_fwd_bhsd", (1, 1, 40, 70, 32, True)),
    "mha_fwd_varlen": ("test_tl_mha_fwd_varlen", "test_mha_fwd_varlen",
                       ([37, 5], [20, 45], False)),
    "gqa_fwd_bshd": ("test_tl_gqa_fwd_bshd", "test_gqa_fwd_bshd", (1, 2, 2, 40, 32, True)),
    "gqa_decode": ("test_tl_gqa_decode", "test_gqa_decode_split", (1, 16, 2, 100, 64)),
    "mha_inference": ("test_tl_mha_inference", "test_mha_inference", (1, 1, 40, 256, 64)),
    "mla_decode": ("test_tl_mla_decode", "test_mla_decode_no_split", (1, 16, 128, 64, 32)),
    "mha_bwd_bhsd": ("test_tl_mha_bwd_bhsd", "test_mha_bwd_bhsd", (1, 1, 40, 32, True)),
    "block_sparse_attn": ("test_tl_block_sparse_attn", "test_block_sparse_attn",
                          (1, 1, 100, 32, 2)),
    "sparse_mla_fwd": ("test_tl_sparse_mla_fwd", "test_sparse_mla_fwd", (1, 10, 40, 12, 1)),
    "nsa_fwd": ("test_tl_nsa_fwd", "test_nsa_fwd", (1, 20, 1, 16, 32, 2, 16, 0.1)),
    "linear_attn_fwd": ("test_tl_linear_attn_fwd", "test_linear_attn_fwd", (1, 40, 1, 64)),
    "retention_fwd": ("test_tl_retention_fwd", "test_retention_fwd", (1, 40, 1, 64)),
    "mamba_chunk_state": ("test_tl_mamba_chunk_state", "test_mamba_chunk_state",
                          (1, 150, 128, 1, 1, 40, 32)),
    "mamba_chunk_scan": ("test_tl_mamba_chunk_scan", "test_mamba_chunk_scan",
                         (1, 150, 128, 1, 1, 40, 32)),
    "gemm_splitk": ("test_tl_gemm_splitk", "test_gemm_splitk", (70, 40, 128)),
    "gemm_splitk_atomicadd": ("test_tl_gemm_splitk_atomicadd",
                              "test_gemm_splitk_vectorize_atomicadd", (70, 40, 128)),
    "gemm_streamk": ("test_tl_gemm_streamk", "test_gemm_streamk", (40, 200, 64)),
    "grouped_gemm_fwd": ("test_tl_grouped_gemm_fwd", "test_grouped_gemm_fwd",
                         ((20, 37), 40, 40)),
    "blocksparse_gemm": ("test_tl_blocksparse_gemm", "test_blocksparse_gemm",
                         (100, 70, 70, 32, 32, 32)),
    "convolution": ("test_tl_convolution", "test_convolution",
                    ("convolution", 1, 4, 6, 5, 20, 3, 1, 1, 1)),
    "convolution_im2col": ("test_tl_convolution", "test_convolution",
                           ("convolution_im2col", 1, 4, 6, 5, 20, 3, 1, 1, 1)),
    "gemm_fp8": ("test_tl_gemm_fp8", "test_gemm_fp8", (70, 40, 64, "float8_e4m3fn")),
    "gemm_fp8_2xacc": ("test_tl_gemm_fp8_2xacc", "test_gemm_fp8_2xacc",
                       (40, 40, 200, "float8_e4m3fn")),
    "deepgemm_fp8_2xacc": ("test_tl_deepgemm_fp8_2xacc", "test_deepgemm_fp8_2xacc",
                           (40, 70, 256, "float32")),
    "per_token_cast_to_fp8": ("test_tl_per_token_cast_to_fp8", "test_per_token_cast_to_fp8",
                              (10, 300)),
    "dequant_gemm": ("test_tl_dequant_gemm", "test_dequant_gemm_w4a8", (40, 40, 128)),
    "fusedmoe": ("test_tl_fusedmoe", "test_fusedmoe", (64, 32, 1, 20)),
    "topk_selector": ("test_tl_topk_selector", "test_topk_selector", (300, 10, [(0, 300)])),
}

# the variants with rows of whole 32-byte blocks, for the Ascend vector units
ONLY = {"rms_norm_rows_of_32_bytes": ASCEND, "layernorm_rows_of_32_bytes": ASCEND}

# (case, targets): (the exception, the gist of its message)
XFAILS: dict[tuple[str, tuple[str, ...]], tuple[type[Exception], str]] = {}

HOPPER_DEFAULT = {"gemm", "gemm_fp8", "deepgemm_fp8_2xacc", "mha_fwd_bhsd", "topk_selector",
                  "elementwise_add", "rms_norm", "online_softmax", "chunk_local_cumsum",
                  "per_token_cast_to_fp8"}
"""The cases the sm_90a column runs by default (wgmma with f16 and fp8 operands, attention,
per-thread code, reductions, casts: 15 s of its 270 s); the rest are marked slow."""

# (case, targets) the simulators take long over (seconds here, 2 cores)
SLOW = {
    ("gemm_streamk", ("cuda-emulator",)),  # 74 s: 108 programs
    ("fusedmoe", ("cuda-emulator",)),  # 176 s: 8 experts' padded groups
    ("sparse_mla_fwd", ("cuda-emulator",)),  # 23 s: two gemms per key block in every thread
    ("gqa_decode", ("cuda-emulator",)),  # 34 s
    ("mamba_chunk_scan", ("cuda-emulator",)),  # 22 s
    ("mha_inference", ("cuda-emulator",)),  # 16 s
    # in the emulator, gemms that others cover
    ("gemm_non_persistent", ("cuda-emulator",)),
    ("gemm_persistent_waves", ("cuda-emulator",)),
    ("quickstart", ("cuda-emulator",)),
    ("quickstart_eager", ("cuda-emulator",)),
    ("retention_fwd", ("cuda-emulator",)),  # linear_attn_fwd's pattern
}


def _marks(name: str, target: str) -> list[pytest.MarkDecorator]:
    marks = []
    for (case, targets), (error, reason) in XFAILS.items():
        if case == name and target in targets:
            marks.append(pytest.mark.xfail(reason=reason, raises=error, strict=True))
    if any(case == name and target in targets for case, targets in SLOW) or (
            target == HOPPER and name not in HOPPER_DEFAULT):
        marks.append(pytest.mark.slow)
    return marks


_jit_call = JitKernel.__call__
_compile = tilec.compile


def _emulate(column: str, kernel: object, out_idx: object, args: tuple[object, ...]) -> object:
    """Compiles `kernel` for the cuda column's arch, assembles it with ptxas where one is
    installed, and runs its launches in the column's SIMT emulator."""
    target, run_launches = EMULATED[column]
    compiled = _compile(kernel, target=target, out_idx=out_idx)
    if find_ptxas():
        compiled.binary()
    full, outputs = call_arguments(compiled.name, compiled.params, compiled.out_positions, args)
    with ir.make_context() as context:
        run_launches(ir.parse_module(compiled.ir("cse"), "<cuda>", context), compiled.name, full)
    return returned(outputs)


def _send_to(target: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Makes every JitKernel call (and tilec.compile) of the ports run on `target`."""
    moved: dict[int, tuple[JitKernel, JitKernel]] = {}

    def call(self: JitKernel, *args: object) -> object:
        kernel, out_idx = self._kernel, self._out_idx
        if target in EMULATED:
            return _emulate(target, kernel, out_idx, args)
        if id(self) not in moved:  # keeps `self` alive, so its id is not reused
            moved[id(self)] = self, tilec.jit(kernel, target=target, out_idx=out_idx)
        return _jit_call(moved[id(self)][1], *args)

    monkeypatch.setattr(JitKernel, "__call__", call)
    monkeypatch.setattr(tilec, "compile", lambda kernel, **options: tilec.jit(kernel, **options))


@pytest.mark.filterwarnings("ignore:multi-buffering reduced")
@pytest.mark.parametrize(
    ("name", "target"),
    [pytest.param(name, target, marks=_marks(name, target), id=f"{name}-{target}")
     for name in CASES for target in ONLY.get(name, TARGETS)],
)
def test_port_on_target(name, target, monkeypatch):
    module, function, args = CASES[name]
    port = importlib.import_module(module)
    if isinstance(args[0], str) and hasattr(port, args[0]):  # a factory of the port
        args = (getattr(port, args[0]), *args[1:])
    _send_to(target, monkeypatch)
    getattr(port, function)(*args)
