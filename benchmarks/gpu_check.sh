#!/usr/bin/env bash
# The cuda target on a machine with an NVIDIA GPU, in one run (a few minutes):
#
#   bash benchmarks/gpu_check.sh            (from the repository root)
#
# 1. installs tilec (pip install -e ., which builds the dialect library) and,
#    when missing, numpy, ml_dtypes and torch (for the comparison);
# 2. runs every example kernel (examples/*.py) on the GPU against numpy,
#    with TILEC_TARGET=cuda, so the kernels are the ones the cpu tests check;
# 3. prints TFLOPS of the f16/bf16 GEMM at 4096^3 and 8192^3 and of flash
#    attention next to torch (cuBLAS, SDPA) on the same inputs;
# 4. runs a GEMM on torch GPU tensors passed zero-copy (DLPack) and checks
#    the int8 tensor-core GEMM exactly;
# 5. on Hopper (wgmma), prints TFLOPS of the bf16 GEMM (128x128x64 tiles) and
#    the FP8 block-scaled GEMM (examples/fp8_gemm.py, DeepGEMM's scheme) at
#    8192^3 and of f16 flash attention, compiled for sm_90a, next to torch
#    (cuBLAS bf16, torch._scaled_mm fp8 with per-tensor scales, SDPA), each
#    checked against torch, and a ragged 1000^3 bf16 GEMM (TMA boxes past the
#    edges) against torch. With GPU_CHECK_BUILD_ONLY=1 that part builds the
#    kernels, prints their wgmma, TMA and mbarrier counts and ptxas resources,
#    and stops.
#
# Kernel times are CUDA-event means over back-to-back launches with the
# inputs already on the device (tilec.backends.cuda.driver.time_kernel).
set -euo pipefail
cd "$(dirname "$0")/.."

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
python -m pip install -q -e . >/dev/null
python -c "import numpy, ml_dtypes" 2>/dev/null || python -m pip install -q numpy ml_dtypes
python -c "import torch" 2>/dev/null || python -m pip install -q torch

export TILEC_TARGET=cuda
status=0
for example in gemm flash_attention rmsnorm softmax topk_gather; do
    echo "== examples/$example.py on $(python -c 'import tilec.backends as b; print(b.default_target())')"
    python "examples/$example.py" || status=1
done

python - <<'EOF' || status=1
import sys

import numpy as np
import torch

sys.path.insert(0, "examples")
import flash_attention as attention_example
import gemm as gemm_example

import tilec
from tilec.backends.cuda.driver import time_kernel

def torch_seconds(fn, repeats=20):
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeats):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1000 / repeats

arch = "sm_90a" if torch.cuda.get_device_capability() >= (9, 0) else "sm_80"
print(f"{'kernel':<34} {'tilec TFLOPS':>12} {'torch TFLOPS':>12}  max rel. error")
for dtype, torch_dtype in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
    for size in (4096, 8192):
        kernel = tilec.compile(gemm_example.matmul(size, size, size, in_dtype=dtype, block_M=128,
                                                   block_N=128, block_K=32, num_stages=3),
                               target="cuda", arch=arch)
        np_dtype = gemm_example.numpy_dtype(dtype)
        rng = np.random.default_rng(0)
        a = rng.standard_normal((size, size)).astype(np_dtype)
        b = rng.standard_normal((size, size)).astype(np_dtype)
        c = np.zeros((size, size), np.float32)
        seconds = time_kernel(kernel, a, b, c, repeats=5)
        ta = torch.from_numpy(a.astype(np.float32)).to("cuda", torch_dtype)
        tb = torch.from_numpy(b.astype(np.float32)).to("cuda", torch_dtype)
        reference = (ta @ tb).float()
        error = float((torch.from_numpy(c).cuda() - reference).abs().max() / reference.abs().max())
        flops = 2 * size**3
        print(f"gemm {dtype} {size}^3{'':<14} {flops / seconds / 1e12:>12.1f} "
              f"{flops / torch_seconds(lambda: ta @ tb) / 1e12:>12.1f}  {error:.1e}")

batch, heads, seq, dim = 1, 32, 4096, 128
kernel = tilec.compile(attention_example.flash_attention(batch, heads, seq, dim, causal=False,
                                                         dtype="float16"), target="cuda", arch=arch)
rng = np.random.default_rng(0)
q, k, v = (rng.standard_normal((batch, heads, seq, dim)).astype(np.float16) for _ in range(3))
out = np.zeros_like(q)
seconds = time_kernel(kernel, q, k, v, out, repeats=5)
tq, tk, tv = (torch.from_numpy(t).cuda() for t in (q, k, v))
sdpa = torch.nn.functional.scaled_dot_product_attention
reference = sdpa(tq, tk, tv).float()
error = float((torch.from_numpy(out.astype(np.float32)).cuda() - reference).abs().max())
flops = 4 * batch * heads * seq * seq * dim
print(f"flash attention f16 {batch}x{heads}x{seq}x{dim}   {flops / seconds / 1e12:>12.1f} "
      f"{flops / torch_seconds(lambda: sdpa(tq, tk, tv)) / 1e12:>12.1f}  {error:.1e} (abs)")
EOF
python - <<'EOF' || status=1
# GPU tensors straight into the kernels, zero-copy through DLPack (torch
# tensors on the device, written in place), and the int8 tensor-core GEMM.
import sys

import numpy as np
import torch

sys.path.insert(0, "examples")
import gemm as gemm_example

import tilec
import tilec.language as T
from tilec.backends.cuda.driver import CudaDriver, time_kernel

arch = "sm_90a" if torch.cuda.get_device_capability() >= (9, 0) else "sm_80"
size = 2048
kernel = tilec.compile(gemm_example.matmul(size, size, size, in_dtype="float16", block_M=128,
                                           block_N=128, block_K=32, num_stages=3),
                       target="cuda", arch=arch)
ta = torch.randn(size, size, device="cuda", dtype=torch.float16)
tb = torch.randn(size, size, device="cuda", dtype=torch.float16)
tc = torch.zeros(size, size, device="cuda", dtype=torch.float32)
CudaDriver().launcher(kernel.binary, kernel.params)([ta, tb, tc])
torch.cuda.synchronize()
reference = ta.float() @ tb.float()
error = float((tc - reference).abs().max() / reference.abs().max())
seconds = time_kernel(kernel, ta, tb, tc, repeats=10)
print(f"dlpack zero-copy gemm f16 {size}^3: {2 * size**3 / seconds / 1e12:.1f} TFLOPS, "
      f"max rel. error {error:.1e}")
assert error < 1e-2, error

block = 128

@T.prim_func
def int8_gemm(A: T.Tensor((size, size), "int8"), B: T.Tensor((size, size), "int8"),
              C: T.Tensor((size, size), "int32")):
    with T.Kernel(size // block, size // block, threads=128) as (bx, by):
        a = T.alloc_shared((block, 64), "int8")
        b = T.alloc_shared((block, 64), "int8")
        c = T.alloc_fragment((block, block), "int32")
        T.clear(c)
        for k in T.Pipelined(size // 64, num_stages=3):
            T.copy(A[by * block, k * 64], a)
            T.copy(B[bx * block, k * 64], b)
            T.gemm(a, b, c, transpose_B=True)
        T.copy(c, C[by * block, bx * block])

kernel = tilec.compile(int8_gemm, target="cuda", arch=arch)
rng = np.random.default_rng(0)
a = rng.integers(-128, 128, (size, size)).astype(np.int8)
b = rng.integers(-128, 128, (size, size)).astype(np.int8)
c = np.zeros((size, size), np.int32)
seconds = time_kernel(kernel, a, b, c, repeats=10)
expected = torch.from_numpy(a).cuda().double() @ torch.from_numpy(b).cuda().double().T
exact = bool(np.array_equal(c, expected.cpu().numpy().astype(np.int32)))
print(f"int8 gemm {size}^3 (m16n8k32): {2 * size**3 / seconds / 1e12:.1f} TOPS, exact: {exact}")
assert exact
EOF
python - <<'EOF' || status=1
# Hopper: wgmma gemms (bf16, fp8 block-scaled) and attention at large sizes.
import os
import sys

import numpy as np

sys.path.insert(0, "examples")
import flash_attention as attention_example
import fp8_gemm as fp8_example
import gemm as gemm_example

import tilec

size = 8192
batch, heads, seq, dim = 1, 32, 4096, 128
kernels = {
    "gemm bf16": tilec.compile(
        gemm_example.matmul(size, size, size, in_dtype="bfloat16", block_M=128, block_N=128,
                            block_K=64, num_stages=3), target="cuda:sm_90a"),
    "gemm fp8 block-scaled": tilec.compile(
        fp8_example.fp8_gemm(size, size, size, out_dtype="bfloat16", block_M=64, block_N=128,
                             num_stages=3), target="cuda:sm_90a"),
    "flash attention f16": tilec.compile(
        attention_example.flash_attention(batch, heads, seq, dim, causal=False,
                                          dtype="float16"), target="cuda:sm_90a"),
}
# A ragged bf16 gemm: its TMA boxes run past the tensors' edges (zero fill).
ragged = 1000
kernels["gemm bf16 ragged"] = tilec.compile(
    gemm_example.matmul(ragged, ragged, ragged, in_dtype="bfloat16", block_M=128, block_N=128,
                        block_K=64, num_stages=3), target="cuda:sm_90a")
for name, kernel in kernels.items():
    ptx = kernel.source()
    assert "wgmma.mma_async" in ptx, f"{name} does not use wgmma"
    assert "cp.async.bulk.tensor" in ptx, f"{name} does not load by TMA"
    print(f"{name}: {ptx.count('wgmma.mma_async')} wgmma, "
          f"{ptx.count('cp.async.bulk.tensor')} cp.async.bulk.tensor, "
          f"{ptx.count('mbarrier.')} mbarrier, {kernel.resources()}")
if os.environ.get("GPU_CHECK_BUILD_ONLY"):
    sys.exit(0)

import torch

from tilec.backends.cuda.driver import time_kernel

if torch.cuda.get_device_capability() < (9, 0):
    print("not a Hopper GPU: no wgmma figures")
    sys.exit(0)


def torch_seconds(fn, repeats=20):
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeats):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / 1000 / repeats


def relative(actual, expected):
    return float((actual - expected).abs().max() / expected.abs().max())


flops = 2 * size**3
print(f"{'sm_90a kernel':<34} {'tilec TFLOPS':>12} {'torch TFLOPS':>12}  max rel. error")
ta = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
tb = torch.randn(size, size, device="cuda", dtype=torch.bfloat16)
tc = torch.zeros(size, size, device="cuda", dtype=torch.float32)
seconds = time_kernel(kernels["gemm bf16"], ta, tb, tc, repeats=5)
error = relative(tc, (ta @ tb).float())
print(f"{f'gemm bf16 {size}^3 (wgmma)':<34} {flops / seconds / 1e12:>12.1f} "
      f"{flops / torch_seconds(lambda: ta @ tb) / 1e12:>12.1f}  {error:.1e}")

ra = torch.randn(ragged, ragged, device="cuda", dtype=torch.bfloat16)
rb = torch.randn(ragged, ragged, device="cuda", dtype=torch.bfloat16)
rc = torch.zeros(ragged, ragged, device="cuda", dtype=torch.float32)
time_kernel(kernels["gemm bf16 ragged"], ra, rb, rc, repeats=1)
error = relative(rc, (ra @ rb).float())
print(f"gemm bf16 {ragged}^3 (TMA past the edges): max rel. error {error:.1e}")
assert error < 1e-2, "the ragged TMA gemm is wrong"

rng = np.random.default_rng(0)
a_fp8, b_fp8, a_scale, b_scale = fp8_example.random_inputs(size, size, size, rng)
a8, b8 = (torch.from_numpy(x.view(np.uint8)).cuda().view(torch.float8_e4m3fn)
          for x in (a_fp8, b_fp8))
sa, sb = torch.from_numpy(a_scale).cuda(), torch.from_numpy(b_scale).cuda()
# numpy in and out (fp8 through ml_dtypes), copied once around the timed launches.
out = np.zeros((size, size), fp8_example.numpy_dtype("bfloat16"))
seconds = time_kernel(kernels["gemm fp8 block-scaled"], a_fp8, b_fp8, a_scale, b_scale, out,
                      repeats=5)
# The block-scaled product in float32 on the GPU: dequantize, then multiply.
a_deq = a8.float() * sa.repeat_interleave(128, dim=1)[:, :size]
b_deq = b8.float() * sb.repeat_interleave(128, dim=0).repeat_interleave(128, dim=1)[:size, :size]
error = relative(torch.from_numpy(out.astype(np.float32)).cuda(), a_deq @ b_deq.T)
one = torch.ones((), device="cuda")


def torch_fp8():
    return torch._scaled_mm(a8, b8.T, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)


print(f"{f'gemm fp8 e4m3 {size}^3 block-scaled':<34} {flops / seconds / 1e12:>12.1f} "
      f"{flops / torch_seconds(torch_fp8) / 1e12:>12.1f}  {error:.1e} (torch: per-tensor scales)")

tq, tk, tv = (torch.randn(batch, heads, seq, dim, device="cuda", dtype=torch.float16)
              for _ in range(3))
tout = torch.zeros_like(tq)
seconds = time_kernel(kernels["flash attention f16"], tq, tk, tv, tout, repeats=5)
sdpa = torch.nn.functional.scaled_dot_product_attention
error = float((tout.float() - sdpa(tq, tk, tv).float()).abs().max())
flops = 4 * batch * heads * seq * seq * dim
print(f"{f'flash attention f16 {seq}x{dim} (wgmma)':<34} {flops / seconds / 1e12:>12.1f} "
      f"{flops / torch_seconds(lambda: sdpa(tq, tk, tv)) / 1e12:>12.1f}  {error:.1e} (abs)")
EOF
exit $status
