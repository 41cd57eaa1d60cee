"""`flash_mla_with_kvcache`: MLA decoding over a paged KV cache, upstream 1.0's API.

Dense mode reads a BF16/FP16 cache (num_blocks, page_block_size, h_k, 576) through the
block table; sparse mode attends to the top-k tokens `indices` names in an FP8 cache:
V3.2's 656-byte tokens (512 e4m3 NoPE values, 4 float32 scales, 64 bfloat16 RoPE values)
or MODEL1's (q and K 512 wide: 448 e4m3 values with UE8M0 scales and 64 bfloat16 RoPE
values), and in an `extra_k_cache` of the same format too when one is given (its
partials are merged with the main cache's). Both run a split-KV kernel (splits planned
per batch on the first call, see `metadata`) and a combine kernel; the host only checks
arguments, allocates and makes views.

Checks are upstream's: its Python asserts raise AssertionError, its C++ TORCH_CHECKs
RuntimeError, with upstream's wording. tilec accepts any page_block_size for dense
decoding (upstream: 64) and any h_q for sparse decoding (upstream: 64 or 128).
"""

from __future__ import annotations

import math

from tilec.kernels import targets
from tilec.kernels.tensors import (
    as_strided_view,
    dtype_name,
    empty_like_framework,
    is_row_major,
    kernel_view,
    strides_of,
)

from . import decode_kernels
from .decode_kernels import D_ROPE, D_V, FP8_TOKEN_BYTES
from .metadata import FlashMLASchedMeta, plan, split_slots

API = "flash_mla.flash_mla_with_kvcache"
D_QK = D_V + D_ROPE
ROW_TILE = 64  # query rows per block at most (upstream's 64-row tile)
_INT32_MAX = 2**31 - 1


def _check(condition: bool, message: str) -> None:
    """An upstream TORCH_CHECK."""
    if not condition:
        raise RuntimeError(f"{API}: {message}")


def _assert(condition: bool, message: str) -> None:
    """An upstream Python assert."""
    if not condition:
        raise AssertionError(message)


def _shape(t: object) -> tuple[int, ...]:
    return tuple(int(n) for n in t.shape)  # type: ignore[attr-defined]


def _flat(t: object) -> tuple[object, tuple[int, ...]]:
    """A 1-D view of `t`'s memory from its first to its last element, and its element
    strides: the kernel addresses elements itself, whatever the layout."""
    shape, strides = _shape(t), strides_of(t)
    extent = 1 + sum((n - 1) * s for n, s in zip(shape, strides, strict=True))
    return as_strided_view(t, (extent,), (1,)), strides


def _reinterpret(flat: object, dtype: str) -> object:
    """The bytes of a 1-D uint8 view as `dtype` elements (torch or numpy)."""
    if hasattr(flat, "data_ptr"):
        import torch

        return flat.view(getattr(torch, dtype))  # type: ignore[attr-defined]
    import ml_dtypes
    import numpy as np

    return flat.view(np.dtype(getattr(ml_dtypes, dtype, dtype)))  # type: ignore[attr-defined]


def _row_tile(rows: int, target: str) -> tuple[int, int]:
    """The query rows and the keys of one step of a block. On the NPU the
    tiles the cube and the vector cores hand each other have one row count
    (the AIVs split them by rows), and 64 rows of a 512-wide float32 output
    overflow the 910b's UB, so both are at most 32 there."""
    tile = min(ROW_TILE, max(16, 1 << (rows - 1).bit_length()))
    if target.startswith("ascend"):
        tile = min(tile, 32)
        return tile, tile
    return tile, decode_kernels.BLOCK_N


def _int32(name: str, t: object | None, shape: tuple[int, ...] | None = None) -> None:
    if t is None:
        return
    _check(dtype_name(t) == "int32", f"{name} must have dtype int32")
    if shape is not None:
        _check(_shape(t) == shape, f"{name} must have shape {shape} but has {_shape(t)}")


def _check_config(sched_meta: FlashMLASchedMeta, config: FlashMLASchedMeta.Config) -> None:
    """Upstream's consistency asserts of a reused sched_meta."""
    helper = (" Your input arguments are inconsistent with sched_meta. Please make sure the "
              "input arguments are consistent across different invocations of "
              "flash_mla_with_kvcache on the same sched_meta.")
    old = sched_meta.config
    assert old is not None
    for field, what in (("b", "batch_size"), ("s_q", "seq_len_q"), ("h_q", "num_heads_q"),
                        ("page_block_size", "page_block_size"), ("h_k", "num_heads_k"),
                        ("causal", "causal"), ("is_fp8_kvcache", "is_fp8_kvcache"),
                        ("topk", "the last dim of indices_in_kvcache"),
                        ("extra_page_block_size", "the page_block_size of extra_k_cache"),
                        ("extra_topk", "the last dim of extra_indices_in_kvcache")):
        _assert(getattr(old, field) == getattr(config, field),
                f"sched_meta.config.{field} must be equal to {what}." + helper)


def flash_mla_with_kvcache(
    q: object,
    k_cache: object,
    block_table: object | None,
    cache_seqlens: object | None,
    head_dim_v: int,
    tile_scheduler_metadata: FlashMLASchedMeta,
    num_splits: None = None,
    softmax_scale: float | None = None,
    causal: bool = False,
    is_fp8_kvcache: bool = False,
    indices: object | None = None,
    attn_sink: object | None = None,
    extra_k_cache: object | None = None,
    extra_indices_in_kvcache: object | None = None,
    topk_length: object | None = None,
    extra_topk_length: object | None = None,
) -> tuple[object, object]:
    """Attention of q (b, s_q, h_q, 576) over the KV cache; returns out (b, s_q, h_q,
    512) in q's dtype and softmax_lse (b, h_q, s_q) float32 (natural log; +inf, with a
    zero output, for a query that sees no key). Dense: k_cache (num_blocks,
    page_block_size, h_k, 576), block_table (b, max_blocks) int32, cache_seqlens (b,)
    int32, `causal` masks tril(s_k - s_q). Sparse (`indices` (b, s_q, topk) int32 of
    block * page_block_size + offset, -1 invalid): FP8 k_cache (num_blocks,
    page_block_size, 1, 656), optional attn_sink (h_q,) float32 (scales the output by
    exp(lse) / (exp(lse) + exp(sink)), not the lse) and topk_length (b,) int32 (only the
    first topk_length[i] indices count). See upstream's docstring for the rest."""
    sched_meta = tile_scheduler_metadata
    _assert(isinstance(sched_meta, FlashMLASchedMeta),
            "tile_scheduler_metadata must be of type FlashMLASchedMeta")
    _assert(num_splits is None, "num_splits must be None")
    with targets.library_call():
        topk = _shape(indices)[-1] if indices is not None else None
        config = FlashMLASchedMeta.Config(
            *_shape(q)[:3], *_shape(k_cache)[1:3], causal, is_fp8_kvcache, topk,
            _shape(extra_k_cache)[1] if extra_k_cache is not None else None,
            _shape(extra_indices_in_kvcache)[-1] if extra_indices_in_kvcache is not None
            else None)
        if softmax_scale is None:
            softmax_scale = _shape(q)[-1] ** (-0.5)
        if not sched_meta.have_initialized:
            if indices is not None:
                _assert(not causal, "causal must be False when indices_in_kvcache is not None "
                                    "(i.e. sparse attention is enabled)")
            sched_meta.have_initialized = True
            sched_meta.config = config
        else:
            _check_config(sched_meta, config)
        if topk is not None:
            _assert(not causal, "causal must be False when sparse attention is enabled")
            _assert(is_fp8_kvcache, "is_fp8_kvcache must be True when sparse attention is "
                                    "enabled")
            return _sparse(q, k_cache, indices, topk_length, attn_sink, sched_meta,
                           extra_k_cache, extra_indices_in_kvcache, extra_topk_length,
                           head_dim_v, softmax_scale)
        _assert(indices is None and attn_sink is None and extra_k_cache is None
                and extra_indices_in_kvcache is None and topk_length is None
                and extra_topk_length is None,
                "indices_in_kvcache, attn_sink, extra_k_cache, extra_indices_in_kvcache, "
                "topk_length and extra_topk_length must be None when dense attention is used.")
        _assert(block_table is not None and cache_seqlens is not None,
                "block_table and cache_seqlens must be provided when dense attention is used.")
        return _dense(q, k_cache, head_dim_v, cache_seqlens, block_table, softmax_scale,
                      causal, sched_meta)


def _dense(q: object, k_cache: object, head_dim_v: int, cache_seqlens: object,
           block_table: object, softmax_scale: float, causal: bool,
           sched_meta: FlashMLASchedMeta) -> tuple[object, object]:
    dtype = dtype_name(q)
    _check(dtype in ("bfloat16", "float16"), "q must be bfloat16 or float16")
    _check(dtype_name(k_cache) == dtype, "query and key must have the same dtype")
    _int32("seqlens_k", cache_seqlens)
    _check(dtype_name(block_table) == "int32", "block_table must have dtype torch.int32")
    _check(len(_shape(q)) == 4 and len(_shape(k_cache)) == 4 and len(_shape(block_table)) == 2,
           "q and kcache must be 4-D and block_table 2-D")
    _check(strides_of(q)[-1] == 1, "q must have contiguous last dimension")
    _check(strides_of(k_cache)[-1] == 1, "kcache must have contiguous last dimension")
    _check(is_row_major(cache_seqlens), "seqlens_k must be contiguous")
    _check(strides_of(block_table)[-1] == 1, "block_table must have contiguous last dimension")
    b, s_q, h_q, d = _shape(q)
    num_blocks, page, h_k, d_k = _shape(k_cache)
    _check(d == D_QK, f"Only head_size_k == {D_QK} is supported")
    _check(head_dim_v == D_V, f"Only head_size_v == {D_V} is supported")
    _check(b > 0, "batch size must be positive")
    _check(h_q % h_k == 0, "Number of heads in key/value must divide number of heads in query")
    _check(d_k == d, f"kcache must have shape ({num_blocks}, {page}, {h_k}, {d})")
    _int32("seqlens_k", cache_seqlens, (b,))
    _check(_shape(block_table)[0] == b, f"block_table must have {b} rows")
    causal = causal and s_q > 1
    heads_per_kv = h_q // h_k
    rows = s_q * heads_per_kv
    target = targets.target_for(q, k_cache, block_table, cache_seqlens)
    tile, keys = _row_tile(rows, target)
    parts = split_slots(target, h_k * -(-rows // tile))
    meta = plan(sched_meta, q, cache_seqlens, _INT32_MAX, parts, target)

    o_acc = empty_like_framework(q, (b, parts, h_k, rows, D_V), "float32")
    l_acc = empty_like_framework(q, (b, parts, h_k, rows), "float32")
    q_flat, q_strides = _flat(q)
    k_flat, k_strides = _flat(k_cache)
    bt_flat, bt_strides = _flat(block_table)
    targets.launch(
        "flash_mla.dense_decode_split", (dtype, causal, tile, keys),
        lambda: decode_kernels.dense_split(dtype, causal, tile, keys), target,
        kernel_view(q_flat, "q"), kernel_view(k_flat, "k_cache"),
        kernel_view(bt_flat, "block_table"), kernel_view(cache_seqlens, "cache_seqlens"),
        kernel_view(meta, "tile_scheduler_metadata"), kernel_view(o_acc, "o_accum"),
        kernel_view(l_acc, "lse_accum"), *q_strides[:3], *k_strides[:3], bt_strides[0], page,
        s_q, heads_per_kv, softmax_scale * math.log2(math.e), _shape(block_table)[1],
    )
    out = empty_like_framework(q, (b, s_q, h_q, D_V), dtype)
    if h_k == 1:  # upstream's lse is then the (b, s_q, h_q) buffer seen as (b, h_q, s_q)
        lse = empty_like_framework(q, (b, s_q, h_q), "float32").swapaxes(1, 2)  # type: ignore[attr-defined]
    else:
        lse = empty_like_framework(q, (b, h_q, s_q), "float32")
    _combine(o_acc, l_acc, meta, None, out, lse, heads_per_kv, target)
    return out, lse


def _combine(o_acc: object, l_acc: object, meta: object, attn_sink: object | None,
             out: object, lse: object, heads_per_kv: int, target: str,
             extra: tuple[object, int] | None = None) -> None:
    """Merges the splits `meta` plans, and `extra`'s (its plan and the index of its
    first split in the accumulators) after them."""
    out_dtype = dtype_name(out)
    has_sink, has_extra = attn_sink is not None, extra is not None
    sink = attn_sink if has_sink else empty_like_framework(out, (1,), "float32")
    extra_meta, extra_base = extra if extra is not None else (meta, 0)
    lse_flat, lse_strides = _flat(lse)
    targets.launch(
        "flash_mla.decode_combine", (out_dtype, has_sink, has_extra),
        lambda: decode_kernels.combine(out_dtype, has_sink, has_extra), target,
        kernel_view(o_acc, "o_accum"), kernel_view(l_acc, "lse_accum"),
        kernel_view(meta, "tile_scheduler_metadata"), kernel_view(sink, "attn_sink"),
        kernel_view(out, "out"), kernel_view(lse_flat, "softmax_lse"), *lse_strides,
        heads_per_kv, kernel_view(extra_meta, "extra tile_scheduler_metadata"), extra_base,
    )


def _fp8_record(d_qk: int) -> tuple[bool, int]:
    """Whether a sparse cache of head dim `d_qk` is MODEL1's, and its bytes per token
    (the cache's last dim)."""
    if d_qk == decode_kernels.D_V:
        return True, decode_kernels.MODEL1_TOKEN_SIZE
    return False, FP8_TOKEN_BYTES


def _cache_view(name: str, k_cache: object, token_size: int, h_kv: int,
                model1: bool) -> tuple[object, tuple[int, ...]]:
    """The byte view of an FP8 cache after upstream's shape and layout checks, and its
    element strides."""
    num_blocks, page = _shape(k_cache)[:2]
    _check(_shape(k_cache) == (num_blocks, page, h_kv, token_size),
           f"{name} must have shape ({num_blocks}, {page}, {h_kv}, {token_size})")
    _check(strides_of(k_cache)[-1] == 1, f"{name} must have contiguous last dimension")
    k_strides = strides_of(k_cache)
    _check(k_strides[1] == token_size, "The whole block must be contiguous when is_fp8_cache "
                                       f"is True for {name}")
    byte_flat, _ = _flat(_reinterpret(k_cache, "uint8") if dtype_name(k_cache) != "uint8"
                         else k_cache)
    align = 2 if model1 else 4  # its bfloat16 RoPE values / float32 scales
    _check(k_strides[0] % align == 0 and _address(byte_flat) % align == 0,
           f"{name}'s blocks must start at {align}-byte aligned addresses")
    return byte_flat, k_strides


def _sparse(q: object, k_cache: object, indices: object, topk_length: object | None,
            attn_sink: object | None, sched_meta: FlashMLASchedMeta,
            extra_k_cache: object | None, extra_indices: object | None,
            extra_topk_length: object | None, head_dim_v: int,
            softmax_scale: float) -> tuple[object, object]:
    _check(len(_shape(q)) == 4 and len(_shape(k_cache)) == 4 and len(_shape(indices)) == 3,
           "q and kv must be 4-D and indices 3-D")
    b, s_q, h_q, d_qk = _shape(q)
    h_kv = _shape(k_cache)[2]
    topk = _shape(indices)[2]
    _check(b > 0 and s_q > 0 and h_q > 0 and topk > 0, "b, s_q, h_q and topk must be positive")
    _check(h_kv == 1, "Currently only MQA (i.e. h_kv == 1) is supported for sparse decoding")
    _check(d_qk in (D_QK, D_V), f"Only head_size_k == {D_QK} or {D_V} is supported for "
                                "sparse decoding")
    _check(head_dim_v == D_V, f"Only head_size_v == {D_V} is supported for sparse decoding")
    if extra_k_cache is not None:
        _check(extra_indices is not None, "extra_indices_in_kvcache must be provided when "
                                          "extra_kcache is provided for sparse attention")
    else:
        _check(extra_indices is None, "extra_indices_in_kvcache must not be provided when "
                                      "extra_k_cache is not provided")
        _check(extra_topk_length is None, "extra_topk_length must not be provided when "
                                          "extra_k_cache is not provided")
    _check(dtype_name(q) == "bfloat16", "q must have dtype bfloat16")
    fp8_types = ("float8_e4m3fn", "int8", "uint8")
    _check(dtype_name(k_cache) in fp8_types, "key must have dtype fp8_e4m3fn, int8 or uint8")
    _check(extra_k_cache is None or dtype_name(extra_k_cache) in fp8_types,
           "extra k cache must have dtype fp8_e4m3fn, int8 or uint8")
    _int32("indices", indices, (b, s_q, topk))
    _int32("topk_length", topk_length, (b,))
    if attn_sink is not None:
        _check(dtype_name(attn_sink) == "float32", "attn_sink must have dtype float32")
        _check(_shape(attn_sink) == (h_q,), f"attn_sink must have shape ({h_q},)")
        _check(is_row_major(attn_sink), "attn_sink must be contiguous")
    _check(topk_length is None or is_row_major(topk_length), "topk_length must be contiguous")
    for name, t in (("q", q), ("indices", indices), ("extra_indices", extra_indices)):
        _check(t is None or strides_of(t)[-1] == 1,
               f"{name} must have contiguous last dimension")
    model1, token_size = _fp8_record(d_qk)
    scopes = [(k_cache, indices, topk_length, "kv cache")]
    if extra_k_cache is not None:
        extra_topk = _shape(extra_indices)[-1]
        _int32("extra_indices", extra_indices, (b, s_q, extra_topk))
        _int32("extra_topk_length", extra_topk_length, (b,))
        _check(extra_topk_length is None or is_row_major(extra_topk_length),
               "extra_topk_length must be contiguous")
        scopes.append((extra_k_cache, extra_indices, extra_topk_length, "extra kv cache"))

    target = targets.target_for(q, k_cache, indices)
    tile, keys = _row_tile(h_q, target)
    staged = target.startswith("ascend")  # see decode_kernels.sparse_fp8_split
    parts = split_slots(target, s_q * -(-h_q // tile))
    o_acc = empty_like_framework(q, (b, parts * len(scopes), s_q, h_q, D_V), "float32")
    l_acc = empty_like_framework(q, (b, parts * len(scopes), s_q, h_q), "float32")
    q_flat, q_strides = _flat(q)
    metas = []
    for number, (cache, index, lengths, name) in enumerate(scopes):
        byte_flat, k_strides = _cache_view(name, cache, token_size, h_kv, model1)
        num_blocks, page = _shape(cache)[:2]
        scope_topk = _shape(index)[-1]
        has_lengths = lengths is not None
        meta = plan(sched_meta, q, lengths, scope_topk, parts, target, extra=number > 0)
        metas.append(meta)
        i_flat, i_strides = _flat(index)
        targets.launch(
            "flash_mla.sparse_decode_split", (tile, has_lengths, keys, model1, staged),
            lambda has_lengths=has_lengths: decode_kernels.sparse_fp8_split(
                tile, has_lengths, keys, model1, staged), target,
            kernel_view(q_flat, "q"),
            kernel_view(byte_flat if model1 else _reinterpret(byte_flat, "float8_e4m3fn"), "kv"),
            kernel_view(_reinterpret(byte_flat, "float32"), "kv scales"),
            kernel_view(_reinterpret(byte_flat, "bfloat16"), "kv rope"),
            kernel_view(i_flat, "indices"),
            kernel_view(lengths if has_lengths else empty_like_framework(q, (b,), "int32"),
                        "topk_length"),
            kernel_view(meta, "tile_scheduler_metadata"), kernel_view(o_acc, "o_accum"),
            kernel_view(l_acc, "lse_accum"), *q_strides[:3], k_strides[0], page,
            num_blocks * page, *i_strides[:2], scope_topk, softmax_scale * math.log2(math.e),
            parts, number * parts,
        )
    out = empty_like_framework(q, (b, s_q, h_q, D_V), "bfloat16")
    lse = empty_like_framework(q, (b, s_q, h_q), "float32").swapaxes(1, 2)  # type: ignore[attr-defined]
    # the rows of a batch are (query index, head): one "KV head" of s_q * h_q rows
    rows = s_q * h_q
    _combine(o_acc.reshape(b, parts * len(scopes), 1, rows, D_V),  # type: ignore[attr-defined]
             l_acc.reshape(b, parts * len(scopes), 1, rows),  # type: ignore[attr-defined]
             metas[0], attn_sink, out, lse, h_q, target,
             (metas[1], parts) if len(metas) > 1 else None)
    return out, lse


def _address(flat: object) -> int:
    if hasattr(flat, "data_ptr"):
        return int(flat.data_ptr())  # type: ignore[attr-defined]
    return int(flat.__array_interface__["data"][0])  # type: ignore[attr-defined]
