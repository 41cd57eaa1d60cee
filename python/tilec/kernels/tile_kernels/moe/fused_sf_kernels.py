"""The scaling factors of TileKernels' `expand_to_fused_with_sf` in the TMA-aligned
column-major layout as a tilec kernel (row-major scales reuse `fused_kernels`)."""

from __future__ import annotations

import tilec.language as T

from .routing_kernels import ROWS


def expand_sf_col_major(sf_dtype: str, num_topk: int) -> T.PrimFunc:
    """Column-major scales: Out[j, p] (storage (hidden_sf, Pa), Pa >= P) = XSF[t, j] for
    the slots of token t placed at p, 0 for padding positions p (ToExpert[p] < 0)."""
    N, HS = T.symbolic("num_tokens"), T.symbolic("hidden_sf")
    P, PA = T.symbolic("num_expanded_tokens"), T.symbolic("num_expanded_sf_tokens")

    @T.prim_func
    def expand_to_fused_sf_col_major(
        XSF: T.Tensor((N, HS), sf_dtype),
        SlotToPos: T.Tensor((N, num_topk), "int32"),
        ToExpert: T.Tensor((P,), "int32"),
        Out: T.Tensor((HS, PA), sf_dtype),
    ):
        with T.Kernel(T.ceildiv(T.max(N, P), ROWS), threads=ROWS) as bx:
            i = bx * ROWS + T.get_thread_binding()
            if i < P:  # noqa: SIM102 (the load below must stay guarded)
                if ToExpert[i] < 0:
                    for j in T.serial(HS):
                        Out[j, i] = T.cast(0, sf_dtype)
            if i < N:
                for k in T.serial(num_topk):
                    pos = SlotToPos[i, k]
                    if pos >= 0 and pos < P:
                        for j in T.serial(HS):
                            Out[j, pos] = XSF[i, j]

    return expand_to_fused_sf_col_major
