"""The cuda target without a GPU: every example kernel compiles to PTX for sm_80,
the CUDA assembler accepts it, and the f16 GEMM uses the tensor cores.

ptxas is the checker (the tests that need it skip, saying so, where no CUDA
toolkit is installed); no test loads anything of CUDA's driver.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec import ir
from tilec.backends import default_target
from tilec.backends.cuda.binary import find_ptxas, parse_ptxas_report
from tilec.backends.cuda.driver import device_count
from tilec.backends.cuda.launch_plan import evaluate
from tilec.diagnostics import CompileError

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from example_kernels import example

needs_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="no CUDA assembler (ptxas) here")


def _gemm(**variant):
    return example("gemm").matmul(100, 72, 50, **variant)


def _attention(**variant):
    return example("flash_attention").flash_attention(1, 2, 100, 64, **variant)


KERNELS = {
    **{
        f"gemm {name}": (lambda v=v: _gemm(**{k: x for k, x in v.items() if k != "dynamic_M"}))
        for name, (v, _) in example("gemm").VARIANTS.items()
    },
    "gemm symbolic M": lambda: example("gemm").matmul(T.symbolic("M"), 72, 50),
    "flash attention": lambda: _attention(causal=False),
    "flash attention causal": lambda: _attention(causal=True),
    "flash attention f16 symbolic": lambda: example("flash_attention").flash_attention(
        2, 1, T.symbolic("S"), 32, causal=True, dtype="float16"
    ),
    "rmsnorm": lambda: example("rmsnorm").rmsnorm(T.symbolic("M"), 300),
    "softmax": lambda: example("softmax").softmax(100, 200, dtype="float16"),
    "topk gather": lambda: example("topk_gather").topk_gather(50, 5, 300, 72),
    "topk weighted sum": lambda: example("topk_gather").topk_weighted_sum(
        T.symbolic("tokens"), 4, 100, 96, dtype="float16"
    ),
}


def test_demo_local_tile_is_too_big_for_a_thread():
    """examples/demo.py uses a 256-element `local` tile: on cuda a local tile
    belongs to one thread, and 1 KiB exceeds its 255 registers."""
    with pytest.raises(CompileError, match="local tile of 1024 bytes does not fit on cuda:sm_80"):
        tilec.compile(_demo_scale(), target="cuda:sm_80")


def _demo_scale() -> str:
    """examples/demo.py's op-by-op kernel, as tile IR text with an entry."""
    with ir.make_context(), ir.Location.unknown():
        module = example("demo").build_scale_kernel()
        func = module.body.operations[0]
        func.attributes["tile.entry"] = ir.UnitAttr.get()
        return str(module)


@pytest.fixture(scope="module")
def compiled():
    cache: dict[str, tilec.CompiledKernel] = {}

    def get(name: str):
        if name not in cache:
            cache[name] = tilec.compile(KERNELS[name](), target="cuda", arch="sm_80")
        return cache[name]

    return get


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_example_compiles_to_ptx(compiled, name):
    kernel = compiled(name)
    ptx = kernel.source()
    assert kernel.target == "cuda:sm_80"
    assert ".target sm_80" in ptx and ".entry" in ptx
    # Every kernel is written for the block: at least one thread index is read.
    assert "%tid.x" in ptx


@needs_ptxas
@pytest.mark.parametrize("name", sorted(KERNELS))
def test_ptxas_accepts_example(compiled, name):
    kernel = compiled(name)
    cubin = kernel.binary()
    assert cubin[:4] == b"\x7fELF"
    resources = kernel.resources()
    assert 0 < resources.registers <= 255


F16_GEMM_128 = {"in_dtype": "float16", "block_M": 128, "block_N": 128, "block_K": 32,
                "num_stages": 3}


def test_f16_gemm_uses_mma_ldmatrix_and_cp_async():
    kernel = tilec.compile(example("gemm").matmul(256, 256, 256, **F16_GEMM_128), target="cuda")
    ptx = kernel.source()
    # 4 warps in a 2x2 grid of 64x64 warp tiles: 4 x 8 mma per k16 step, 2 steps.
    assert len(re.findall(r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.f16\.f16\.f32", ptx)) == 64
    # Per k step and warp: 4 A fragments (x4) and 4 pairs of B fragments (x4, .trans).
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.shared\.b16", ptx)) == 8
    assert len(re.findall(r"ldmatrix\.sync\.aligned\.m8n8\.x4\.trans\.shared\.b16", ptx)) == 8
    # (128x32 + 32x128) f16 in 16-byte chunks over 128 threads is 8 cp.async per
    # thread and stage: 2 stages in the prologue, 1 per iteration of the loop.
    assert len(re.findall(r"cp\.async\.cg\.shared\.global \[[^]]*\], \[[^]]*\], 16", ptx)) == 24
    # One group per stage; the loop waits until at most 2 are in flight, the epilogue for all.
    assert len(re.findall(r"cp\.async\.commit_group;", ptx)) == 3
    assert sorted(re.findall(r"cp\.async\.wait_group\s+(\d);", ptx)) == ["0", "2"]
    assert ".extern .shared .align 16 .b8" in ptx
    # Three slots of both tiles.
    assert kernel.binary.plan.shared_bytes == 3 * (128 * 32 + 32 * 128) * 2


@needs_ptxas
def test_f16_gemm_has_no_spills():
    kernel = tilec.compile(example("gemm").matmul(256, 256, 256, **F16_GEMM_128), target="cuda")
    resources = kernel.resources()
    assert resources.spill_stores == resources.spill_loads == 0
    assert resources.stack_bytes == 0
    # 128 f32 accumulators per thread live in registers.
    assert 128 < resources.registers <= 255


def test_bf16_gemm_uses_nvvm_mma_sync():
    kernel = tilec.compile(
        example("gemm").matmul(256, 256, 256, **{**F16_GEMM_128, "in_dtype": "bfloat16"}),
        target="cuda:sm_80",
    )
    ptx = kernel.source()
    bf16_mma = r"mma\.sync\.aligned\.m16n8k16\.row\.col\.f32\.bf16\.bf16\.f32"
    assert len(re.findall(bf16_mma, ptx)) == 64
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx


def test_f32_gemm_falls_back_to_fma():
    ptx = tilec.compile(_gemm(), target="cuda:sm_80").source()
    assert "mma.sync" not in ptx and "fma.rn.f32" in ptx


def test_transposed_f16_operands_use_ldmatrix_trans():
    ptx = tilec.compile(
        example("gemm").matmul(128, 128, 64, in_dtype="float16", trans_A=True, trans_B=True),
        target="cuda:sm_80",
    ).source()
    assert "mma.sync.aligned.m16n8k16" in ptx
    # A stored K x M is transposed on the way in; B stored N x K is not.
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx


def test_grid_of_a_symbolic_dim_is_evaluated_at_launch():
    kernel = tilec.compile(example("gemm").matmul(T.symbolic("M"), 72, 50), target="cuda:sm_80")
    plan = kernel.binary.plan
    a = np.zeros((300, 50), np.float32)
    args = [a, np.zeros((50, 72), np.float32), np.zeros((300, 72), np.float32)]
    # ceildiv(72, 64) blocks along x, ceildiv(300, 64) along y.
    assert [evaluate(g, args) for g in plan.grid] == [2, 5, 1]
    assert plan.block == (128, 1, 1)


def test_arch_option_and_spec_agree():
    kernel = tilec.compile(_gemm(), target="cuda", arch="sm_90a")
    assert kernel.target == "cuda:sm_90a"
    assert ".target sm_90a" in kernel.source()
    with pytest.raises(tilec.backends.OptionError, match="sm_70"):
        tilec.compile(_gemm(), target="cuda", arch="sm_70")


@pytest.mark.skipif(device_count() > 0, reason="a GPU is present")
def test_without_a_gpu_calling_is_a_clear_error_and_cpu_stays_default():
    assert default_target() in ("cpu",) or default_target().startswith("cpu")
    kernel = tilec.compile(_gemm(), target="cuda:sm_80")
    a, b, c = np.ones((100, 50), np.float32), np.ones((50, 72), np.float32), np.zeros((100, 72))
    with pytest.raises(CompileError, match="no CUDA GPU"):
        kernel(a, b, c.astype(np.float32))


def test_ptxas_report_is_parsed_per_kernel():
    report = (
        "ptxas info    : Compiling entry function 'k' for 'sm_80'\n"
        "ptxas info    : Function properties for k\n"
        "    8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n"
        "ptxas info    : Used 96 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]\n"
    )
    (found,) = parse_ptxas_report(report, 1024).values()
    assert (found.registers, found.spill_stores, found.stack_bytes, found.shared_bytes) == (
        96, 4, 8, 2048
    )
