"""The `tile-to-cuda` pipeline: tile IR to a gpu.module in the NVVM dialect for one arch.

The tile passes place the tiles and lower the tile ops into a `gpu.launch`;
outlining makes the kernel a `gpu.func` (known block size) launched by
`gpu.launch_func` from the host function (exp/log/tanh approximate where
allowed, `tile-cuda-fast-math`). The gpu.module is then lowered
to the LLVM/NVVM dialects with the target attached: `nvvm-attach-target`
gets no `features`, so the PTX declares the lowest ISA that knows the chip
(a lower one aborts NVPTX, DESIGN.md §3). `gpu-module-to-binary` (the
backend, or `tile-opt --emit=ptx`) takes the result to PTX in process.
"""

from __future__ import annotations

from tilec.passes.conversion.tile_to_cuda.ops.kernel import WGMMA_ALIGNMENT
from tilec.passes.registry import register_pipeline
from tilec.targets import target_of
from tilec.targets.cuda import CudaTarget


def tile_to_cuda(target: CudaTarget, opt_level: int = 3, fast_math: bool = False) -> str:
    """The pipeline text for `target` at LLVM optimization level `opt_level`;
    `fast_math`: every exp/log/log2/tanh approximate, not only the `afn` ones."""
    device = ",".join(
        [
            "convert-scf-to-cf",
            "convert-nvgpu-to-nvvm",
            "expand-strided-metadata",
            # The offsets of subviews at a dynamic index, which it computes with affine.apply.
            "lower-affine",
            "convert-gpu-to-nvvm",
            # The NVVM ops without an LLVM intrinsic (wgmma, ...) as inline PTX.
            "convert-nvvm-to-llvm",
            "canonicalize",
            "cse",
            "reconcile-unrealized-casts",
        ]
    )
    alignment = WGMMA_ALIGNMENT if target.has_wgmma else 0
    return ",".join(
        [
            # Before the checks: a thread's own tiles are counted per thread.
            "tile-cuda-distribute-thread-loops",
            f"tile-verify-kernels{{target={target.spec}}}",
            "tile-canonicalize-ops",
            "tile-guard-accesses",
            "tile-widen-bools{conversions=false}",
            "tile-cuda-drop-unit-dim-views",
            f"tile-cuda-widen-fp8-operands{{target={target.spec}}}",
            f"tile-cuda-infer-layouts{{target={target.spec}}}",
            # On the tile IR, before the lowering multiplies the ops to walk.
            f"tile-cuda-fast-math{{everywhere={'true' if fast_math else 'false'}}}",
            f"convert-tile-to-cuda{{target={target.spec}}}",
            # 8-bit float arithmetic in f32, then its conversions as integer code.
            "arith-emulate-unsupported-floats{source-types=f8E4M3FN,f8E5M2 target-type=f32}",
            "tile-cuda-expand-fp8-conversions",
            "canonicalize",
            "cse",
            "gpu-launch-sink-index-computations",
            "gpu-kernel-outlining",
            "tile-cuda-merge-kernel-modules",
            f"nvvm-attach-target{{chip={target.arch} O={opt_level}}}",
            f"gpu.module({device})",
            # wgmma operands are swizzled by their shared address (kernel.py).
            f"tile-cuda-extern-shared-memory{{alignment={alignment}}}",
        ]
    )


def _flag(text: str) -> bool:
    if text not in ("true", "false"):
        raise ValueError(f"fast-math must be true or false but got '{text}'")
    return text == "true"


register_pipeline(
    "tile-to-cuda",
    "Lower tile kernels to a gpu.module in the NVVM dialect for one cuda arch",
    lambda target=CudaTarget.name, fast_math="false": tile_to_cuda(
        target_of(CudaTarget, target), fast_math=_flag(fast_math)
    ),
    {"target": "the cuda target: cuda:sm_80 (default), cuda:sm_86, cuda:sm_89, cuda:sm_90a",
     "fast-math": "true: every exp/log/log2/tanh approximate (default: only afn ones)"},
)
