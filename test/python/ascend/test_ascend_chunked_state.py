"""Linear attention and retention (TileLang's chunked forms, the ports in
test/python/tilelang) over several chunks on the Ascend simulator. Each chunk
hands the running state h down to the vector cores before its gemm adds to
it, so the first chunk would hand the zeros of h's clear, which no fixpipe
can copy: tile-ascend-split-cores moves the handoff to the end of the chunk
before, and the AIVs start from zeros of their own. The kernels hand six and
nine tiles between the cores, more than eleven cross-core flag ids hold as
pairs: each takes one id for both directions."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import tilec

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tilelang"))
import test_tl_linear_attn_fwd as linear
import test_tl_retention_fwd as retention

pytestmark = pytest.mark.e2e

PROFILES = ["ascend:910b", "ascend:950"]


def _on(target: str, jitted: object) -> tilec.CompiledKernel:
    """The port's jitted kernel compiled for `target`, with its outputs."""
    return tilec.compile(jitted._kernel, target=target, out_idx=jitted._out_idx)


@pytest.mark.parametrize("target", PROFILES)
def test_linear_attention_over_three_chunks(target):
    B, S, H, D = 1, 150, 2, 64  # three chunks of 64, the last ragged
    rng = np.random.default_rng(21)
    q, k, v = (rng.standard_normal((B, S, H, D)).astype(np.float16) for _ in range(3))
    q, k = linear.l2norm(q), linear.l2norm(k)
    o = np.zeros((B, S, H, D), np.float32)
    h = _on(target, linear.tl_fused_chunk_fwd_kernel(B, S, H, D, D))(q, k, v, o)
    o_ref, h_ref = linear.ref_program(q, k, v, D**-0.5)
    np.testing.assert_allclose(o, o_ref, rtol=1e-2, atol=1e-2)
    np.testing.assert_allclose(h, h_ref, rtol=1e-2, atol=1e-2)


@pytest.mark.parametrize("target", PROFILES)
def test_retention_over_three_chunks(target):
    B, S, H, D = 1, 150, 2, 64
    rng = np.random.default_rng(22)
    q, k, v = ((rng.standard_normal((B, S, H, D)) * 0.3).astype(np.float16) for _ in range(3))
    kernel = _on(target, retention.chunk_retention_fwd_kernel(B, S, H, D, D))
    o = retention.postprocess(kernel(q, k, v))
    np.testing.assert_allclose(o.astype(np.float32), retention.ref_program(q, k, v), rtol=2e-2,
                               atol=2e-2)
