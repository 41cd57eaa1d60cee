"""FlashMLA's prefill entry points (flash_mla 1.0, `flash_mla/flash_mla_interface.py`):
sparse MLA prefill and dense variable-length attention, forward only.

The values follow upstream's kernels and test references (tests/ref.py,
tests/test_fmha_sm100.py), where they differ from the README: the sparse op's
`max_logits` and `lse` are natural-log quantities (`q.k * sm_scale`, logsumexp), a query
token with no valid index gets out 0, max_logits -inf and lse +inf; the dense op returns
`(out, lse)` with lse (total_q, h_q) laid out head-major (a transposed view, as
upstream allocates it), its causal mask aligned bottom-right. Upstream's kernels accept
only some head counts and head dims (h_q 64/128; (d_qk, d_v) (128, 128)/(192, 128)); these
take any. Inputs may be strided (last dim contiguous, as upstream requires): a tilec
kernel copies them row-major first. No autograd: backward raises.
"""

from __future__ import annotations

from tilec.kernels import targets
from tilec.kernels.tensors import (
    as_strided_view,
    dtype_name,
    empty_like_framework,
    is_row_major,
    is_torch,
    kernel_view,
    strides_of,
)

from . import prefill_kernels


def _fail(api: str, message: str) -> None:
    raise ValueError(f"flash_mla.{api}: {message}")


def _check(api: str, name: str, tensor: object, ndim: int, dtype: str) -> tuple[int, ...]:
    shape = tuple(tensor.shape)  # type: ignore[attr-defined]
    if len(shape) != ndim:
        _fail(api, f"{name} must be {ndim}-D but has shape {shape}")
    if dtype_name(tensor) != dtype:
        _fail(api, f"{name} must be {dtype} but is {dtype_name(tensor)}")
    return shape


def _row_major(api: str, name: str, tensor: object, target: str) -> object:
    """`tensor` (3-D, last dim contiguous) as a row-major tensor: itself, or a copy made
    by a tilec kernel from the storage it spans."""
    if is_row_major(tensor):
        return tensor
    shape, strides = tuple(tensor.shape), strides_of(tensor)  # type: ignore[attr-defined]
    if strides[-1] != 1 and shape[-1] != 1:
        _fail(api, f"{name} must have a contiguous last dim but has strides {strides}")
    span = (shape[0] - 1) * strides[0] + (shape[1] - 1) * strides[1] + shape[2]
    dtype = dtype_name(tensor)
    out = empty_like_framework(tensor, shape, dtype)
    targets.launch(
        "flash_mla.strided_to_contiguous", (dtype,),
        lambda: prefill_kernels.strided_to_contiguous(dtype), target,
        kernel_view(as_strided_view(tensor, (span,), (1,)), name), strides[0], strides[1],
        kernel_view(out, name),
    )
    return out


def _vector(api: str, name: str, tensor: object | None, length: int, dtype: str,
            like: object) -> object:
    """An optional 1-D argument as the kernel takes it: the tensor, or an empty one the
    kernel never reads (its variant is built without it)."""
    if tensor is None:
        return kernel_view(empty_like_framework(like, (0,), dtype), name)
    if _check(api, name, tensor, 1, dtype) != (length,):
        _fail(api, f"{name} must have shape ({length},) but has {tuple(tensor.shape)}")  # type: ignore[attr-defined]
    if not is_row_major(tensor):
        _fail(api, f"{name} must be contiguous")
    return kernel_view(tensor, name)


def _no_backward(api: str, forward, inputs: tuple[object, ...]) -> tuple[object, ...]:
    """Runs `forward()`; when torch records gradients for `inputs`, the outputs get a
    backward that says this op has none (upstream's dense op has one on SM100)."""
    if not any(is_torch(t) and t.requires_grad for t in inputs):  # type: ignore[attr-defined]
        return forward()
    import torch

    if not torch.is_grad_enabled():
        return forward()

    class NoBackward(torch.autograd.Function):
        @staticmethod
        def forward(ctx, *_tensors):
            return forward()

        @staticmethod
        def backward(ctx, *_grads):
            raise NotImplementedError(
                f"flash_mla.{api}: backward is not implemented in tilec.kernels "
                "(forward only)")

    return NoBackward.apply(*inputs)


def flash_mla_sparse_fwd(q: object, kv: object, indices: object, sm_scale: float,
                         d_v: int = 512, attn_sink: object | None = None,
                         topk_length: object | None = None) -> tuple[object, object, object]:
    """Sparse MLA prefill: q [s_q, h_q, d_qk] bf16 attends, per token, to the KV rows
    [s_kv, 1, d_qk] bf16 that indices [s_q, 1, topk] int32 name (-1 or >= s_kv: invalid;
    only the first topk_length[i] slots if topk_length [s_q] int32 is given); V is the
    first d_v columns of KV. attn_sink [h_q] fp32 scales out by exp(lse) / (exp(lse) +
    exp(sink)). Returns (out [s_q, h_q, d_v] bf16, max_logits [s_q, h_q] fp32,
    lse [s_q, h_q] fp32)."""
    api = "flash_mla_sparse_fwd"
    with targets.library_call():
        s_q, h_q, d_qk = _check(api, "q", q, 3, "bfloat16")
        s_kv, h_kv, d_kv = _check(api, "kv", kv, 3, "bfloat16")
        s_i, h_i, topk = _check(api, "indices", indices, 3, "int32")
        if d_qk not in (512, 576):
            _fail(api, f"d_qk must be 512 or 576 but is {d_qk}")
        if d_v != 512:
            _fail(api, f"d_v must be 512 but is {d_v}")
        if h_kv != 1 or d_kv != d_qk:
            _fail(api, f"kv must have shape (s_kv, 1, {d_qk}) but has {(s_kv, h_kv, d_kv)}")
        if (s_i, h_i) != (s_q, 1):
            _fail(api, f"indices must have shape ({s_q}, 1, topk) but has {(s_i, h_i, topk)}")
        out = empty_like_framework(q, (s_q, h_q, d_v), "bfloat16")
        max_logits = empty_like_framework(q, (s_q, h_q), "float32")
        lse = empty_like_framework(q, (s_q, h_q), "float32")
        sink = _vector(api, "attn_sink", attn_sink, h_q, "float32", q)
        length = _vector(api, "topk_length", topk_length, s_q, "int32", q)
        if s_q == 0 or h_q == 0:
            return out, max_logits, lse
        target = targets.target_for(q, kv, indices)

        def forward() -> tuple[object, object, object]:
            # every block gathers its token's keys: on the NPUs, where a gathered row costs
            # more than its products, 32 heads a block halve the gathers of 16 and still
            # fit UB (a 32-head block spills registers on cuda)
            block_h = 32 if h_q >= 32 and target.startswith("ascend") else 16
            variant = (d_qk, d_v, attn_sink is not None, topk_length is not None, block_h)
            targets.launch(
                "flash_mla.flash_mla_sparse_fwd", variant,
                lambda: prefill_kernels.sparse_prefill(*variant), target,
                kernel_view(_row_major(api, "q", q, target), "q"),
                kernel_view(_row_major(api, "kv", kv, target).reshape(s_kv, d_qk), "kv"),
                kernel_view(_row_major(api, "indices", indices, target), "indices"),
                sink, length, float(sm_scale),
                kernel_view(out, "out"), kernel_view(max_logits, "max_logits"),
                kernel_view(lse, "lse"),
            )
            return out, max_logits, lse

        return _no_backward(api, forward, (q, kv))


def flash_attn_varlen_func(q: object, k: object, v: object, cu_seqlens_qo: object,
                           cu_seqlens_kv: object, max_seqlen_qo: int, max_seqlen_kv: int,
                           dropout_p: float = 0.0, softmax_scale: float | None = None,
                           causal: bool = False, deterministic: bool = False,
                           is_varlen: bool = True) -> tuple[object, object]:
    """Dense attention over packed sequences: q [total_q, h_q, d_qk], k [total_k, h_kv,
    d_qk], v [total_k, h_kv, d_v] bf16, cu_seqlens_* [b + 1] int32 (h_q a multiple of
    h_kv: GQA). Returns (out [total_q, h_q, d_v] bf16, lse [total_q, h_q] fp32,
    natural log). `is_varlen=False` (equal lengths) reads cu_seqlens all the same."""
    api = "flash_attn_varlen_func"
    with targets.library_call():
        if dropout_p != 0.0:
            _fail(api, f"dropout_p must be 0.0 but is {dropout_p}")
        if deterministic:
            _fail(api, "deterministic must be False (upstream asserts it)")
        total_q, h_q, d_qk = _check(api, "q", q, 3, "bfloat16")
        total_k, h_kv, d_k = _check(api, "k", k, 3, "bfloat16")
        total_v, h_v, d_v = _check(api, "v", v, 3, "bfloat16")
        if (total_k, h_kv, d_k) != (total_v, h_v, d_k) or d_k != d_qk:
            _fail(api, f"k {tuple(k.shape)} and v {tuple(v.shape)} do not match q "  # type: ignore[attr-defined]
                       f"{tuple(q.shape)}")  # type: ignore[attr-defined]
        if h_kv == 0 or h_q % h_kv:
            _fail(api, f"the query heads ({h_q}) must be a multiple of the KV heads ({h_kv})")
        (n_q,) = _check(api, "cu_seqlens_qo", cu_seqlens_qo, 1, "int32")
        (n_k,) = _check(api, "cu_seqlens_kv", cu_seqlens_kv, 1, "int32")
        if n_q != n_k or n_q == 0:
            _fail(api, f"cu_seqlens_qo ({n_q},) and cu_seqlens_kv ({n_k},) must both be (b + 1,)")
        for name, t in (("cu_seqlens_qo", cu_seqlens_qo), ("cu_seqlens_kv", cu_seqlens_kv)):
            if not is_row_major(t):
                _fail(api, f"{name} must be contiguous")
        scale = d_qk ** -0.5 if softmax_scale is None else float(softmax_scale)
        out = empty_like_framework(q, (total_q, h_q, d_v), "bfloat16")
        lse_t = empty_like_framework(q, (h_q, total_q), "float32")
        if total_q == 0 or h_q == 0 or n_q == 1 or max_seqlen_qo <= 0:
            return out, lse_t.T  # type: ignore[attr-defined]
        target = targets.target_for(q, k, v)

        def forward() -> tuple[object, object]:
            variant = (d_qk, d_v, bool(causal))
            targets.launch(
                "flash_mla.flash_attn_varlen_func", variant,
                lambda: prefill_kernels.varlen_prefill(*variant), target,
                kernel_view(_row_major(api, "q", q, target), "q"),
                kernel_view(_row_major(api, "k", k, target), "k"),
                kernel_view(_row_major(api, "v", v, target), "v"),
                kernel_view(cu_seqlens_qo, "cu_seqlens_qo"),
                kernel_view(cu_seqlens_kv, "cu_seqlens_kv"), int(max_seqlen_qo), scale,
                kernel_view(out, "out"), kernel_view(lse_t, "lse"),
            )
            return out, lse_t.T  # type: ignore[attr-defined]

        return _no_backward(api, forward, (q, k, v))


def flash_attn_varlen_qkvpacked_func(qkv: object, cu_seqlens: object, max_seqlen: int,
                                     head_dim_qk: int, dropout_p: float = 0.0,
                                     softmax_scale: float | None = None, causal: bool = False,
                                     deterministic: bool = False,
                                     is_varlen: bool = True) -> tuple[object, object]:
    """`flash_attn_varlen_func` on qkv [total, h, 2 * head_dim_qk + d_v]: q, k and v
    are its column slices, and both sides share `cu_seqlens`."""
    q = qkv[:, :, :head_dim_qk]  # type: ignore[index]
    k = qkv[:, :, head_dim_qk:head_dim_qk * 2]  # type: ignore[index]
    v = qkv[:, :, head_dim_qk * 2:]  # type: ignore[index]
    return flash_attn_varlen_func(q, k, v, cu_seqlens, cu_seqlens, max_seqlen, max_seqlen,
                                  dropout_p, softmax_scale, causal, deterministic, is_varlen)


def flash_attn_varlen_kvpacked_func(q: object, kv: object, cu_seqlens_qo: object,
                                    cu_seqlens_kv: object, max_seqlen_qo: int,
                                    max_seqlen_kv: int, head_dim_qk: int,
                                    dropout_p: float = 0.0,
                                    softmax_scale: float | None = None, causal: bool = False,
                                    deterministic: bool = False,
                                    is_varlen: bool = True) -> tuple[object, object]:
    """`flash_attn_varlen_func` on kv [total_k, h_kv, head_dim_qk + d_v]: k and v are
    its column slices."""
    k, v = kv[:, :, :head_dim_qk], kv[:, :, head_dim_qk:]  # type: ignore[index]
    return flash_attn_varlen_func(q, k, v, cu_seqlens_qo, cu_seqlens_kv, max_seqlen_qo,
                                  max_seqlen_kv, dropout_p, softmax_scale, causal,
                                  deterministic, is_varlen)
