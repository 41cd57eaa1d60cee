"""DeepEP V2's `ElasticBuffer` and `EPHandle` on torch.distributed and tilec kernels.

One process per rank, any torch.distributed backend with `all_to_all_single`
(gloo on CPU). A dispatch runs the layout kernel, agrees with the other ranks on
the input and the per-rank token counts (one all-gather), packs one contiguous
block per destination, moves the blocks with `all_to_all_single` and places the
received tokens; a combine sends each token's rows back the same way and sums them
in the order of DeepEP's reference (`deep_ep.utils.refs`), so both are bitwise
equal to it. Received tokens are always in the reference's order (by source rank,
then source token), which is also what upstream's `deterministic=True` gives.

Not modelled (accepted and ignored): SMs, QPs, streams and events (everything is
synchronous, `EventOverlap` wraps nothing), hybrid scale-out (one logical
scale-up domain of all ranks), and `do_cpu_sync=False` (counts are exchanged on the
host anyway, so outputs always have their exact sizes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.distributed as dist

from . import comm, kernels
from .checks import Rejected, agree_or_raise, check_matrix
from .launch import (
    dispatch_layout,
    exclusive_sum,
    gather_rows,
    identity,
    int32,
    pack_meta,
    pack_rows,
    run,
)
from .utils.event import EventHandle, EventOverlap

SF_BLOCK = 128  # hidden elements per FP8 scale factor
SF_ALIGN = 4  # column-major scale factors pad the token dim to this (16 bytes of fp32)
BUFFER_ALIGN = 2 << 20


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


@dataclass(eq=False)
class EPHandle:
    """What a dispatch leaves for a cached dispatch and for the combine (DeepEP's fields;
    the leading-underscore ones are this implementation's routing maps)."""

    do_expand: bool
    num_experts: int
    expert_alignment: int
    num_max_tokens_per_rank: int
    num_sms: int
    topk_idx: torch.Tensor
    num_recv_tokens: int
    num_expanded_tokens: int
    num_recv_tokens_per_expert_list: list[int]
    psum_num_recv_tokens_per_scaleup_rank: torch.Tensor
    psum_num_recv_tokens_per_expert: torch.Tensor
    num_unaligned_recv_tokens_per_expert: torch.Tensor
    recv_src_metadata: torch.Tensor
    dst_buffer_slot_idx: torch.Tensor
    token_metadata_at_forward: torch.Tensor | None = None
    channel_linked_list: torch.Tensor | None = None
    _slot: torch.Tensor | None = field(
        default=None, repr=False
    )  # [T, R] position in each rank's block
    _send_offsets: torch.Tensor | None = field(default=None, repr=False)  # [R]
    _send_counts: list[int] = field(default_factory=list, repr=False)
    _recv_counts: list[int] = field(default_factory=list, repr=False)
    _lane_pos: torch.Tensor | None = field(default=None, repr=False)  # [num_recv, K] expanded rows
    _row_of: torch.Tensor | None = field(default=None, repr=False)  # [num_expanded] received row
    _elem_of: torch.Tensor | None = field(default=None, repr=False)  # [num_expanded] row * K + lane


class ElasticBuffer:
    """DeepEP V2's expert-parallel buffer (dispatch/combine) over `group`.

    `num_cpu_timeout_secs` bounds every collective of a call (gloo's own default is
    30 minutes); a call whose input some rank rejects raises on every rank before any
    data moves."""

    def __init__(
        self,
        group: dist.ProcessGroup,
        num_bytes: int | None = None,
        num_cpu_bytes: int = 0,
        num_max_tokens_per_rank: int = 0,
        hidden: int = 0,
        num_topk: int = 0,
        use_fp8_dispatch: bool = False,
        deterministic: bool = False,
        allow_hybrid_mode: bool = True,
        allow_multiple_reduction: bool = True,
        prefer_overlap_with_compute: bool = True,
        sl_idx: int = 3,
        num_allocated_qps: int = 0,
        num_cpu_timeout_secs: int = 300,
        num_gpu_timeout_secs: int = 100,
        explicitly_destroy: bool = False,
    ) -> None:
        self.group = group
        self.rank_idx = group.rank()
        self.num_ranks = group.size()
        self.allow_hybrid_mode = allow_hybrid_mode
        self.allow_multiple_reduction = allow_multiple_reduction
        self.prefer_overlap_with_compute = prefer_overlap_with_compute
        self.deterministic = deterministic
        self.num_max_tokens_per_rank = num_max_tokens_per_rank
        self.hidden = hidden
        self.num_topk = num_topk
        self.num_cpu_timeout_secs = num_cpu_timeout_secs
        self.num_gpu_timeout_secs = num_gpu_timeout_secs
        self.explicitly_destroy = explicitly_destroy
        self.num_allocated_qps = num_allocated_qps or 17
        if num_bytes is None:
            # what one dispatch receives at most: every rank's tokens with data, scales, routing
            token_bytes = hidden * (1 if use_fp8_dispatch else 2) + num_topk * 12 + 8
            token_bytes += math.ceil(hidden / SF_BLOCK) * 4 if use_fp8_dispatch else 0
            num_bytes = _align(self.num_ranks * num_max_tokens_per_rank * token_bytes, BUFFER_ALIGN)
        self.num_bytes = num_bytes
        self.num_cpu_bytes = num_cpu_bytes
        self.num_scaleout_ranks, self.num_scaleup_ranks = 1, self.num_ranks
        self.scaleout_rank_idx, self.scaleup_rank_idx = 0, self.rank_idx
        self.num_rdma_ranks, self.num_nvlink_ranks = 1, self.num_ranks
        self._destroyed = False
        comm.barrier(group, num_cpu_timeout_secs, "ElasticBuffer")

    # ---- configuration -------------------------------------------------------------

    def destroy(self) -> None:
        """Releases the buffer; it cannot be used afterwards (needs `explicitly_destroy=True`)."""
        assert self.explicitly_destroy, (
            "deep_ep.ElasticBuffer.destroy needs explicitly_destroy=True"
        )
        self._destroyed = True

    def get_logical_domain_size(self) -> tuple[int, int]:
        """(scale-out ranks, scale-up ranks): one scale-up domain of all ranks."""
        return self.num_scaleout_ranks, self.num_scaleup_ranks

    def get_physical_domain_size(self) -> tuple[int, int]:
        """(RDMA ranks, NVLink ranks)."""
        return self.num_rdma_ranks, self.num_nvlink_ranks

    def get_theoretical_num_sms(
        self,
        num_experts: int,
        num_topk: int,
        num_scaleout_topk: int = 0,
        rdma_gbs: float = 0,
        nvlink_gbs: float = 0,
        sm_read_gbs: float = 200,
        sm_write_gbs: float = 50,
    ) -> int:
        """No SMs here: upstream's floor (4), which `num_sms` arguments are checked against."""
        assert num_scaleout_topk == 0
        return 4

    def get_theoretical_num_qps(self, num_sms: int) -> int:
        return min(num_sms, 9, self.num_allocated_qps)

    def barrier(
        self, use_comm_stream: bool = True, with_cpu_sync: bool = False, sequential: bool = True
    ) -> None:
        """A barrier of all ranks, bounded by `num_cpu_timeout_secs`."""
        comm.barrier(self.group, self.num_cpu_timeout_secs, "ElasticBuffer.barrier")

    def _all_to_all(self, out, inp, out_splits: list[int], in_splits: list[int], api: str) -> None:
        comm.all_to_all(self.group, out, inp, out_splits, in_splits, self.num_cpu_timeout_secs, api)

    @staticmethod
    def capture() -> EventHandle:
        return EventHandle()

    # ---- dispatch ------------------------------------------------------------------

    def _fail(self, api: str, message: str) -> None:
        raise Rejected(f"deep_ep.ElasticBuffer.{api}: {message}")

    def _agree(self, api: str, error: Exception | None, values: list[int]) -> list[list[int]]:
        """Shares whether this rank accepted its input; raises on every rank if one did not."""
        return agree_or_raise(
            self.group, f"ElasticBuffer.{api}", error, values, self.num_cpu_timeout_secs
        )

    def _check_matrix(
        self,
        api: str,
        name: str,
        tensor: object,
        dtype: torch.dtype,
        rows: int | None = None,
        cols: int | None = None,
    ) -> tuple[int, int]:
        return check_matrix(f"ElasticBuffer.{api}", name, tensor, dtype, rows, cols)

    def _check_x(self, api: str, x: object) -> tuple[torch.Tensor, torch.Tensor | None, int, int]:
        data, sf = x if isinstance(x, tuple) else (x, None)
        dtype = torch.float8_e4m3fn if sf is not None else torch.bfloat16
        num_tokens, hidden = self._check_matrix(api, "x", data, dtype)
        if self.hidden and hidden != self.hidden:
            self._fail(
                api, f"x has hidden {hidden} but the buffer was made for hidden {self.hidden}"
            )
        if sf is not None:
            if not isinstance(sf, torch.Tensor) or sf.dim() != 2 or sf.dtype != torch.float32:
                self._fail(api, "the scale factors of x must be a 2-D float32 tensor")
            if tuple(sf.shape) != (num_tokens, math.ceil(hidden / SF_BLOCK)):
                self._fail(
                    api,
                    f"the scale factors have shape {tuple(sf.shape)}, expected "
                    f"({num_tokens}, {math.ceil(hidden / SF_BLOCK)})",
                )
        return data, sf, num_tokens, hidden

    def dispatch(
        self,
        x: torch.Tensor | tuple[torch.Tensor, torch.Tensor],
        topk_idx: torch.Tensor | None = None,
        topk_weights: torch.Tensor | None = None,
        cumulative_local_expert_recv_stats: torch.Tensor | None = None,
        num_experts: int | None = None,
        num_max_tokens_per_rank: int | None = None,
        expert_alignment: int | None = None,
        num_sms: int = 0,
        num_qps: int = 0,
        previous_event: EventHandle | None = None,
        previous_event_before_epilogue: EventHandle | None = None,
        async_with_compute_stream: bool = False,
        allocate_on_comm_stream: bool = False,
        handle: EPHandle | None = None,
        do_handle_copy: bool = True,
        do_cpu_sync: bool | None = None,
        do_expand: bool = False,
        do_zero_padding: bool = False,
        use_tma_aligned_col_major_sf: bool = False,
    ):
        """Sends each token to the ranks of its top-k experts. Returns (recv_x,
        recv_topk_idx (local expert indices, -1 elsewhere; None when expanded),
        recv_topk_weights, handle, event). Expanded (`do_expand`): one row per (token,
        local expert), grouped by expert, each expert's rows padded to
        `expert_alignment` (padding rows are zero)."""
        api = "dispatch"
        error, counts, slot, invalid = None, [0] * self.num_ranks, None, None
        try:
            if self._destroyed:
                self._fail(api, "the buffer was destroyed")
            data, sf, num_tokens, _ = self._check_x(api, x)
            if handle is not None:
                if topk_idx is not None:
                    self._fail(api, "topk_idx must be None with a cached handle")
                if do_cpu_sync:
                    self._fail(api, "cannot do a CPU sync with a cached handle")
                if do_expand != handle.do_expand:
                    self._fail(
                        api,
                        f"do_expand={do_expand} but the handle was made with {handle.do_expand}",
                    )
                for name, value in (
                    ("num_experts", num_experts),
                    ("expert_alignment", expert_alignment),
                    ("num_max_tokens_per_rank", num_max_tokens_per_rank),
                ):
                    if value is not None and value != getattr(handle, name):
                        self._fail(
                            api, f"{name}={value} differs from the handle's {getattr(handle, name)}"
                        )
                topk_idx, num_experts = handle.topk_idx, handle.num_experts
                expert_alignment = handle.expert_alignment
                num_max_tokens_per_rank = handle.num_max_tokens_per_rank
            if topk_idx is None or num_experts is None:
                self._fail(api, "topk_idx and num_experts are required without a cached handle")
            expert_alignment = 1 if expert_alignment is None else expert_alignment
            if num_max_tokens_per_rank is None:
                num_max_tokens_per_rank = self.num_max_tokens_per_rank
            _, num_topk = self._check_matrix(
                api, "topk_idx", topk_idx, torch.int64, rows=num_tokens
            )
            if topk_weights is not None:
                self._check_matrix(
                    api, "topk_weights", topk_weights, torch.float32, num_tokens, num_topk
                )
            if num_experts <= 0 or num_experts % self.num_ranks:
                self._fail(
                    api,
                    f"num_experts ({num_experts}) must be a positive multiple of the "
                    f"number of ranks ({self.num_ranks})",
                )
            if expert_alignment < 1:
                self._fail(api, f"expert_alignment ({expert_alignment}) must be positive")
            if num_tokens > num_max_tokens_per_rank:
                self._fail(
                    api,
                    f"{num_tokens} tokens exceed num_max_tokens_per_rank "
                    f"({num_max_tokens_per_rank})",
                )
            stats = cumulative_local_expert_recv_stats
            if stats is not None and (
                stats.dtype != torch.int32 or tuple(stats.shape) != (num_experts // self.num_ranks,)
            ):
                self._fail(
                    api, "cumulative_local_expert_recv_stats must be int32 [num_local_experts]"
                )
            if handle is None and num_tokens > 0:
                slot, counts, invalid = dispatch_layout(topk_idx, self.num_ranks, num_experts)
                if invalid:
                    self._fail(api, f"topk_idx has {invalid} entries outside [-1, {num_experts})")
        except Rejected as exc:
            error = exc
        rows = self._agree(api, error, counts)
        if handle is not None:
            return self._cached_dispatch(
                handle, data, sf, topk_weights, use_tma_aligned_col_major_sf
            )
        return self._new_dispatch(
            data,
            sf,
            topk_idx,
            topk_weights,
            slot,
            rows,
            num_experts,
            expert_alignment,
            num_max_tokens_per_rank,
            num_sms,
            do_handle_copy,
            do_expand,
            stats,
            use_tma_aligned_col_major_sf,
        )

    def _send(
        self,
        data: torch.Tensor,
        sf: torch.Tensor | None,
        topk_idx: torch.Tensor,
        topk_weights: torch.Tensor | None,
        slot: torch.Tensor | None,
        offsets: torch.Tensor,
        send_counts: list[int],
        recv_counts: list[int],
        num_max_tokens_per_rank: int,
        num_experts: int,
    ):
        """Packs the per-rank blocks and exchanges them: the received rows, scale factors,
        local top-k indices, weights and source indices, and `dst_buffer_slot_idx`."""
        num_topk = topk_idx.shape[1]
        num_send, num_recv, device = sum(send_counts), sum(recv_counts), data.device

        def exchange(src: torch.Tensor) -> torch.Tensor:
            send = pack_rows(src, slot, offsets, num_send)
            recv = torch.empty((num_recv, src.shape[1]), dtype=src.dtype, device=device)
            self._all_to_all(recv, send, recv_counts, send_counts, "dispatch")
            return recv

        send_idx, send_src, dst_slot = pack_meta(topk_idx, slot, offsets, num_send,
                                                 num_experts // self.num_ranks, self.rank_idx,
                                                 num_max_tokens_per_rank)
        recv_x = exchange(data)
        recv_sf = exchange(sf) if sf is not None else None
        recv_idx = torch.empty((num_recv, num_topk), dtype=torch.int64, device=device)
        self._all_to_all(recv_idx, send_idx, recv_counts, send_counts, "dispatch")
        recv_w = exchange(topk_weights) if topk_weights is not None else None
        recv_src = torch.empty((num_recv,), dtype=torch.int32, device=device)
        self._all_to_all(recv_src, send_src, recv_counts, send_counts, "dispatch")
        return recv_x, recv_sf, recv_idx, recv_w, recv_src, dst_slot

    def _outputs(
        self,
        handle: EPHandle,
        recv_x: torch.Tensor,
        recv_sf: torch.Tensor | None,
        recv_idx: torch.Tensor,
        recv_w: torch.Tensor | None,
        col_major_sf: bool,
    ):
        """The received tensors in the handle's layout (expanded or not)."""
        num_recv, num_topk = recv_idx.shape
        if not handle.do_expand:
            if recv_sf is not None and col_major_sf:
                recv_sf = gather_rows(
                    recv_sf, identity(recv_sf, num_recv), _align(num_recv, SF_ALIGN)
                )
            return (recv_x if recv_sf is None else (recv_x, recv_sf)), recv_idx, recv_w
        num_expanded = handle.num_expanded_tokens
        x = gather_rows(recv_x, handle._row_of)
        if recv_sf is not None:
            padded = _align(num_expanded, SF_ALIGN) if col_major_sf else None
            x = (x, gather_rows(recv_sf, handle._row_of, padded))
        if recv_w is not None:
            recv_w = gather_rows(recv_w.view(num_recv * num_topk, 1), handle._elem_of).view(
                num_expanded
            )
        return x, None, recv_w

    def _new_dispatch(
        self,
        data,
        sf,
        topk_idx,
        topk_weights,
        slot,
        rows,
        num_experts,
        expert_alignment,
        num_max_tokens_per_rank,
        num_sms,
        do_handle_copy,
        do_expand,
        stats,
        col_major_sf,
    ):
        device, num_topk = data.device, topk_idx.shape[1]
        send_counts = rows[self.rank_idx]
        recv_counts = [row[self.rank_idx] for row in rows]
        offsets = int32(data, exclusive_sum(send_counts))
        recv_x, recv_sf, recv_idx, recv_w, recv_src, dst_slot = self._send(
            data,
            sf,
            topk_idx,
            topk_weights,
            slot,
            offsets,
            send_counts,
            recv_counts,
            num_max_tokens_per_rank,
            num_experts,
        )

        # place the received tokens' lanes by local expert
        num_recv, num_local = recv_idx.shape[0], num_experts // self.num_ranks
        unaligned = torch.zeros((num_local,), dtype=torch.int32, device=device)
        if num_recv > 0:
            run("expert_count", (), kernels.expert_count, recv_idx, unaligned)
        counts = unaligned.tolist()
        aligned = [_align(c, expert_alignment) for c in counts]
        starts = exclusive_sum(aligned)
        num_expanded = sum(aligned)
        lane_pos = torch.empty((num_recv, num_topk), dtype=torch.int32, device=device)
        meta = torch.empty((num_recv, num_topk + 2), dtype=torch.int32, device=device)
        row_of = torch.empty((num_expanded,), dtype=torch.int32, device=device)
        elem_of = torch.empty((num_expanded,), dtype=torch.int32, device=device)
        if num_recv > 0:
            run(
                "expert_place",
                (num_topk,),
                lambda: kernels.expert_place(num_topk),
                recv_idx,
                int32(data, starts),
                int32(data, [s + a for s, a in zip(starts, aligned, strict=True)]),
                lane_pos,
                meta,
                row_of,
                elem_of,
            )
            run(
                "recv_meta",
                (num_topk,),
                lambda: kernels.recv_meta(num_topk),
                recv_idx,
                recv_src,
                lane_pos,
                meta,
                num_max_tokens_per_rank,
            )
        if stats is not None:
            run("add_counts", (), kernels.add_counts, stats, unaligned)
        if do_expand:
            psum = [s + c for s, c in zip(starts, counts, strict=True)]
        else:
            psum = [s + a for s, a in zip(starts, aligned, strict=True)]
        kept_idx = topk_idx
        if do_handle_copy:
            kept_idx = (
                gather_rows(topk_idx, identity(topk_idx, topk_idx.shape[0]))
                if topk_idx.numel()
                else topk_idx.clone()
            )
        handle = EPHandle(
            do_expand,
            num_experts,
            expert_alignment,
            num_max_tokens_per_rank,
            num_sms or 4,
            kept_idx,
            num_recv,
            num_expanded,
            aligned,
            int32(
                data, [s + c for s, c in zip(exclusive_sum(recv_counts), recv_counts, strict=True)]
            ),
            int32(data, psum),
            unaligned,
            meta,
            dst_slot,
            _slot=slot,
            _send_offsets=offsets,
            _send_counts=send_counts,
            _recv_counts=recv_counts,
            _lane_pos=lane_pos,
            _row_of=row_of,
            _elem_of=elem_of,
        )
        recv_x, recv_topk_idx, recv_w = self._outputs(
            handle, recv_x, recv_sf, recv_idx, recv_w, col_major_sf
        )
        return recv_x, recv_topk_idx, recv_w, handle, EventOverlap()

    def _cached_dispatch(self, handle, data, sf, topk_weights, col_major_sf):
        recv_x, recv_sf, recv_idx, recv_w, _, _ = self._send(
            data,
            sf,
            handle.topk_idx,
            topk_weights,
            handle._slot,
            handle._send_offsets,
            handle._send_counts,
            handle._recv_counts,
            handle.num_max_tokens_per_rank,
            handle.num_experts,
        )
        recv_x, recv_topk_idx, recv_w = self._outputs(
            handle, recv_x, recv_sf, recv_idx, recv_w, col_major_sf
        )
        return recv_x, recv_topk_idx, recv_w, handle, EventOverlap()

    # ---- combine -------------------------------------------------------------------

    def combine(
        self,
        x: torch.Tensor,
        handle: EPHandle,
        topk_weights: torch.Tensor | None = None,
        bias: torch.Tensor | tuple[torch.Tensor, torch.Tensor] | None = None,
        num_sms: int = 0,
        num_qps: int = 0,
        previous_event: EventHandle | None = None,
        previous_event_before_epilogue: EventHandle | None = None,
        async_with_compute_stream: bool = False,
        allocate_on_comm_stream: bool = False,
    ):
        """Sends the rows of `x` (laid out as `handle`'s dispatch received them) back to
        their tokens' ranks and sums them per token in the reference's order, from
        `bias` (one tensor or two, summed first). Expanded: each rank first sums its
        lanes of a token (with `allow_multiple_reduction`; else every lane travels).
        Weights are carried back, not applied: combined_topk_weights[t, k] is what lane
        k's rank returned. Returns (combined_x, combined_topk_weights, event)."""
        api = "combine"
        error = None
        biases: tuple[torch.Tensor, ...] = ()
        try:
            if self._destroyed:
                self._fail(api, "the buffer was destroyed")
            if not isinstance(handle, EPHandle) or (
                handle._slot is None and handle.topk_idx.shape[0]
            ):
                self._fail(api, "handle must be the EPHandle of a dispatch on this buffer")
            num_rows = handle.num_expanded_tokens if handle.do_expand else handle.num_recv_tokens
            num_tokens, num_topk = handle.topk_idx.shape
            _, hidden = self._check_matrix(api, "x", x, torch.bfloat16, rows=num_rows)
            if self.hidden and hidden != self.hidden:
                self._fail(
                    api, f"x has hidden {hidden} but the buffer was made for hidden {self.hidden}"
                )
            if topk_weights is not None:
                if handle.do_expand:
                    shape = tuple(topk_weights.shape)
                    if topk_weights.dtype != torch.float32 or shape != (num_rows,):
                        self._fail(
                            api, f"topk_weights must be float32 [{num_rows}] for an expanded handle"
                        )
                else:
                    self._check_matrix(
                        api, "topk_weights", topk_weights, torch.float32, num_rows, num_topk
                    )
            biases = bias if isinstance(bias, tuple) else (bias,) if bias is not None else ()
            if len(biases) > 2:
                self._fail(api, "bias must be one tensor or a tuple of two")
            for b in biases:
                self._check_matrix(api, "bias", b, torch.bfloat16, num_tokens, hidden)
        except Rejected as exc:
            error = exc
        self._agree(api, error, [])
        return self._combine(x, handle, topk_weights, biases)

    def _combine(self, x, handle, topk_weights, biases):
        device, hidden = x.device, x.shape[1]
        num_tokens, num_topk = handle.topk_idx.shape
        num_recv = handle.num_recv_tokens
        per_lane = handle.do_expand and not self.allow_multiple_reduction
        if not handle.do_expand:
            send = x
        elif per_lane:
            send = gather_rows(x, handle._lane_pos.view(-1))
        else:
            send = torch.empty((num_recv, hidden), dtype=torch.bfloat16, device=device)
            if num_recv > 0:
                run(
                    "expand_reduce",
                    (num_topk,),
                    lambda: kernels.expand_reduce(num_topk),
                    x,
                    handle._lane_pos,
                    send,
                )
        scale = num_topk if per_lane else 1
        back_counts = [c * scale for c in handle._send_counts]
        back = torch.empty((sum(back_counts), hidden), dtype=torch.bfloat16, device=device)
        self._all_to_all(
            back, send, back_counts, [c * scale for c in handle._recv_counts], "combine"
        )
        back_w = None
        if topk_weights is not None:
            send_w = topk_weights
            if handle.do_expand:
                send_w = gather_rows(topk_weights.view(-1, 1), handle._lane_pos.view(-1)).view(
                    num_recv, num_topk
                )
            back_w = torch.empty(
                (sum(handle._send_counts), num_topk), dtype=torch.float32, device=device
            )
            self._all_to_all(back_w, send_w, handle._send_counts, handle._recv_counts, "combine")

        combined_x = torch.empty((num_tokens, hidden), dtype=torch.bfloat16, device=device)
        combined_w = (
            None
            if topk_weights is None
            else torch.empty((num_tokens, num_topk), dtype=torch.float32, device=device)
        )
        if num_tokens > 0:
            rank_row = torch.empty((num_tokens, num_topk), dtype=torch.int32, device=device)
            reduce_row = torch.empty((num_tokens, num_topk), dtype=torch.int32, device=device)
            run(
                "combine_map",
                (num_topk, per_lane),
                lambda: kernels.combine_map(num_topk, per_lane),
                handle.topk_idx,
                handle._slot,
                handle._send_offsets,
                rank_row,
                reduce_row,
                handle.num_experts // self.num_ranks,
            )
            if hidden > 0:
                num_bias = len(biases)
                bias0 = biases[0] if biases else combined_x
                bias1 = biases[-1] if biases else combined_x
                source = back if back.shape[0] else combined_x  # never read: no lane has a row
                run(
                    "combine_reduce",
                    (num_topk, num_bias),
                    lambda: kernels.combine_reduce(num_topk, num_bias),
                    source,
                    reduce_row,
                    bias0,
                    bias1,
                    combined_x,
                )
            if combined_w is not None:
                source_w = back_w if back_w.shape[0] else combined_w
                run(
                    "combine_weights",
                    (num_topk,),
                    lambda: kernels.combine_weights(num_topk),
                    source_w,
                    rank_row,
                    combined_w,
                )
        return combined_x, combined_w, EventOverlap()
