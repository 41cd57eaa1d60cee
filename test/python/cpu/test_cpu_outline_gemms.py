"""tile-cpu-outline-gemms end to end: a kernel with many gemms calls one
shared function per distinct gemm and computes what numpy does; a kernel
with few gemms keeps them inline."""

from __future__ import annotations

import numpy as np
import pytest

import tilec
import tilec.language as T
from tilec.passes.conversion.tile_to_cpu.outline_gemms import INLINE_GEMMS

RNG = np.random.default_rng(0)


def _chain(stages: int, n: int = 24):
    """C = sum over s of A_s @ B, plus A_s @ B^T for odd s: `stages` gemms of two kinds."""

    @T.prim_func
    def kernel(
        A: T.Tensor((stages * n, n), "float32"),
        B: T.Tensor((n, n), "float32"),
        C: T.Tensor((n, n), "float32"),
    ):
        with T.Kernel(1, threads=128) as _:
            a = T.alloc_shared((n, n), "float32")
            b = T.alloc_shared((n, n), "float32")
            c = T.alloc_fragment((n, n), "float32")
            T.clear(c)
            T.copy(B, b)
            for s in range(stages):
                T.copy(A[s * n, 0], a)
                T.gemm(a, b, c, transpose_B=s % 2 == 1)
            T.copy(c, C[0, 0])

    return kernel


@pytest.mark.parametrize("stages", [INLINE_GEMMS, INLINE_GEMMS + 3])
def test_chained_gemms(stages):
    n = 24
    kernel = tilec.compile(_chain(stages, n), target="cpu")
    calls = kernel.source().count("llvm.call @tile_cpu_gemm_")
    assert calls == (stages if stages > INLINE_GEMMS else 0)
    a = RNG.standard_normal((stages * n, n)).astype(np.float32)
    b = RNG.standard_normal((n, n)).astype(np.float32)
    c = np.zeros((n, n), np.float32)
    kernel(a, b, c)
    blocks = [a[s * n:(s + 1) * n].astype(np.float64) for s in range(stages)]
    ref = sum(x @ (b.T if s % 2 else b) for s, x in enumerate(blocks))
    np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-3)
