"""DeepEP's V1 API (`deep_ep.Buffer`, `deep_ep.Config`) on torch.distributed and
tilec kernels: normal (intranode) dispatch/combine and low-latency dispatch/combine.

One process per rank, any torch.distributed backend with `all_to_all_single` (gloo
on CPU), one intranode domain of all ranks (no RDMA ranks). As for `ElasticBuffer`,
each call checks its input, agrees with the other ranks (one all-gather of counts;
a rejected input raises on every rank before data moves), packs one block per
destination with V2's kernels, moves the blocks with `all_to_all_single` and places
the received rows with tilec kernels.

Normal mode follows DeepEP's intranode kernels: tokens go where `is_token_in_rank`
says, arrive by source rank then token, the weights of lanes that are not the
receiver's arrive as 0, and a combine sums the returned rows (no weights) in rank
order from the bias. The handle is upstream's 6-tuple with one channel per rank;
`send_head[t, d]` is token t's position in the block for rank d.

Low-latency mode lays each local expert's tokens out as DeepGEMM's masked layout
(`[num_local_experts, num_max_dispatch_tokens_per_rank * num_ranks, hidden]` and
`recv_count`), by source rank then token (upstream's order between ranks is arrival
order); slots past `recv_count` are zero. Its FP8 cast is DeepEP's (scale 448 / amax,
optionally rounded to a power of two and packed as UE8M0), and its combine sums
`x * weight` over the top-k lanes in lane order.

Not modelled (accepted and ignored): SMs, QPs, NVLink/RDMA buffer sizes, streams and
events (everything is synchronous), `dispatch_wait_recv_cost_stats` and
`combine_wait_recv_cost_stats` (nothing waits), rank masking (shrink mode). Not
supported (rejected): internode mode, `comm=` (mpi4py), LogFMT combine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import torch
import torch.distributed as dist

from . import comm as collectives
from . import kernels, legacy_kernels
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
from .utils.envs import DEFAULT_TIMEOUT_SECS
from .utils.event import EventHandle, EventOverlap

SF_BLOCK = legacy_kernels.SF_BLOCK
NUM_BUFFER_ALIGNMENT_BYTES = 128


@dataclass
class Config:
    """DeepEP's performance config: accepted, and ignored by the synchronous exchange."""

    num_sms: int = 20
    num_max_nvl_chunked_send_tokens: int = 6
    num_max_nvl_chunked_recv_tokens: int = 256
    num_max_rdma_chunked_send_tokens: int = 6
    num_max_rdma_chunked_recv_tokens: int = 256

    def get_nvl_buffer_size_hint(self, hidden_bytes: int, num_ranks: int) -> int:
        return 0

    def get_rdma_buffer_size_hint(self, hidden_bytes: int, num_ranks: int) -> int:
        return 0


class LowLatencyHandle(tuple):
    """Upstream's low-latency handle `(src_info, layout_range,
    num_max_dispatch_tokens_per_rank, hidden, num_experts)`, carrying this
    implementation's routing maps for the combine as attributes."""

    slot: torch.Tensor  # [T, R] position of token t in the block for rank d
    offsets: torch.Tensor  # [R] where each block starts
    send_counts: list[int]
    recv_counts: list[int]
    lane_pos: torch.Tensor  # [num_recv, K] the masked-layout row of each received lane


def _align(value: int, alignment: int) -> int:
    return (value + alignment - 1) // alignment * alignment


def _tensor(like: torch.Tensor, rows: list[list[int]], dtype: torch.dtype) -> torch.Tensor:
    """A small tensor of host metadata on `like`'s device."""
    return torch.tensor(rows, dtype=dtype, device=like.device)


class Buffer:
    """DeepEP V1's expert-parallel buffer over `group` (normal intranode and
    low-latency dispatch/combine). Every collective of a call is bounded by
    $EP_DIST_TIMEOUT_SECS (300) seconds."""

    num_sms: int = 20

    def __init__(
        self,
        group: dist.ProcessGroup | None,
        num_nvl_bytes: int = 0,
        num_rdma_bytes: int = 0,
        low_latency_mode: bool = False,
        num_qps_per_rank: int = 24,
        allow_nvlink_for_low_latency_mode: bool = True,
        allow_mnnvl: bool = False,
        explicitly_destroy: bool = False,
        enable_shrink: bool = False,
        comm: object | None = None,
    ) -> None:
        if group is None:
            raise ValueError(
                "deep_ep.Buffer: a torch.distributed group is required (comm= is not supported)"
            )
        self.group = group
        self.rank = group.rank()
        self.group_size = group.size()
        self.num_nvl_bytes = num_nvl_bytes
        self.num_rdma_bytes = num_rdma_bytes
        self.low_latency_mode = low_latency_mode
        self.num_qps_per_rank = num_qps_per_rank
        self.explicitly_destroy = explicitly_destroy
        self.enable_shrink = enable_shrink
        self.timeout_secs = float(os.getenv("EP_DIST_TIMEOUT_SECS", DEFAULT_TIMEOUT_SECS))
        self._combine_buffer: torch.Tensor | None = None
        self._destroyed = False
        collectives.barrier(group, self.timeout_secs, "Buffer")

    # ---- configuration -------------------------------------------------------------

    def destroy(self) -> None:
        """Releases the buffer; it cannot be used afterwards (needs `explicitly_destroy=True`)."""
        assert self.explicitly_destroy, "`explicitly_destroy` flag must be set"
        self._destroyed = True

    @staticmethod
    def is_sm90_compiled() -> bool:
        """FP8 dispatch is available (upstream's tests gate FP8 cases on this)."""
        return True

    @staticmethod
    def set_num_sms(new_num_sms: int) -> None:
        assert new_num_sms % 2 == 0, "The SM count must be even"
        Buffer.num_sms = new_num_sms

    @staticmethod
    def capture() -> EventOverlap:
        return EventOverlap(EventHandle())

    @staticmethod
    def get_dispatch_config(num_ranks: int) -> Config:
        return Config(Buffer.num_sms)

    @staticmethod
    def get_combine_config(num_ranks: int) -> Config:
        return Config(Buffer.num_sms)

    @staticmethod
    def get_low_latency_rdma_size_hint(
        num_max_dispatch_tokens_per_rank: int, hidden: int, num_ranks: int, num_experts: int
    ) -> int:
        """Upstream's RDMA buffer size for these low-latency shapes (two send, two receive
        and two signalling buffers), though nothing here is allocated from it."""
        num_scales = hidden // SF_BLOCK
        dispatch_msg = 16 + max(hidden * 2, hidden + num_scales * 4)
        combine_msg = num_scales * 4 + hidden * 2
        tokens = num_max_dispatch_tokens_per_rank
        send = max(tokens * dispatch_msg, num_experts * tokens * combine_msg)
        recv = num_experts * tokens * max(dispatch_msg, combine_msg)
        signal = _align(num_experts * 4, 128)
        total = 2 * (send + recv + signal)
        align = NUM_BUFFER_ALIGNMENT_BYTES
        return (total + align) // align * align

    def clean_low_latency_buffer(
        self, num_max_dispatch_tokens_per_rank: int, hidden: int, num_experts: int
    ) -> None:
        """Nothing to clean: no state survives between calls."""

    def get_next_low_latency_combine_buffer(self, handle: LowLatencyHandle) -> torch.Tensor:
        """The buffer a `zero_copy=True` low-latency combine reads (fill it yourself)."""
        src_info, _, max_tokens, hidden, num_experts = handle
        shape = (num_experts // self.group_size, self.group_size * max_tokens, hidden)
        buffer = self._combine_buffer
        if buffer is None or tuple(buffer.shape) != shape or buffer.device != src_info.device:
            buffer = torch.empty(shape, dtype=torch.bfloat16, device=src_info.device)
            self._combine_buffer = buffer
        return buffer

    # ---- shared steps --------------------------------------------------------------

    def _agree(self, api: str, error: Exception | None, values: list[int]) -> list[list[int]]:
        return agree_or_raise(self.group, f"Buffer.{api}", error, values, self.timeout_secs)

    def _all_to_all(self, out, inp, out_splits: list[int], in_splits: list[int], api: str) -> None:
        collectives.all_to_all(self.group, out, inp, out_splits, in_splits, self.timeout_secs, api)

    def _exchange(self, src, slot, offsets, send_counts, recv_counts, out=None) -> torch.Tensor:
        """Sends row t of `src` to every rank d with slot[t, d] >= 0; returns (or fills the
        first rows of `out` with) the received rows, by source rank then token."""
        send = pack_rows(src, slot, offsets, sum(send_counts))
        num_recv = sum(recv_counts)
        if out is None:
            out = torch.empty((num_recv, src.shape[1]), dtype=src.dtype, device=src.device)
        self._all_to_all(out[:num_recv], send, recv_counts, send_counts, "dispatch")
        return out

    def _check(self, api: str) -> str:
        if self._destroyed:
            raise Rejected(f"deep_ep.Buffer.{api}: the buffer was destroyed")
        return f"Buffer.{api}"

    def _check_x(self, where: str, x: object, fp8_ok: bool = True):
        """(data, contiguous scales or None, tokens, hidden) of a bf16 or (fp8, fp32 scales) x."""
        data, sf = x if isinstance(x, tuple) and fp8_ok else (x, None)
        dtype = torch.float8_e4m3fn if sf is not None else torch.bfloat16
        num_tokens, hidden = check_matrix(where, "x", data, dtype)
        if (hidden * data.element_size()) % 16:
            raise Rejected(f"deep_ep.{where}: a row of x must be a multiple of 16 bytes")
        if sf is not None:
            shape = (num_tokens, -(-hidden // SF_BLOCK))
            if not isinstance(sf, torch.Tensor) or sf.dtype != torch.float32:
                raise Rejected(f"deep_ep.{where}: the scales of x must be a float32 tensor")
            if tuple(sf.shape) != shape:
                raise Rejected(
                    f"deep_ep.{where}: the scales have shape {tuple(sf.shape)}, expected {shape}"
                )
            if not sf.is_contiguous():  # upstream's tests pass column-major scales
                if not sf.T.is_contiguous():
                    raise Rejected(f"deep_ep.{where}: the scales must be row- or column-major")
                # a transposing gather of the (scales, tokens) rows: row-major (tokens, scales)
                sf = gather_rows(sf.T, identity(sf, shape[1]), shape[1]).T
        return data, sf, num_tokens, hidden

    def _layout(self, topk_idx: torch.Tensor, num_experts: int, where: str):
        """(slot [T, R], tokens per rank) of `topk_idx`; rejects experts outside [-1, E)."""
        slot, counts, invalid = dispatch_layout(topk_idx, self.group_size, num_experts)
        if invalid:
            raise Rejected(
                f"deep_ep.{where}: topk_idx has {invalid} entries outside [-1, {num_experts})"
            )
        return slot, counts

    def _count_experts(self, topk_idx: torch.Tensor, num_experts: int) -> torch.Tensor:
        """[E] int32: the lanes of `topk_idx` equal to each expert."""
        counts = torch.zeros((num_experts,), dtype=torch.int32, device=topk_idx.device)
        if topk_idx.numel():
            run("expert_count", (), kernels.expert_count, topk_idx, counts)
        return counts

    def _check_experts(self, where: str, num_experts: int) -> None:
        if num_experts <= 0 or num_experts % self.group_size:
            raise Rejected(
                f"deep_ep.{where}: num_experts ({num_experts}) must be a positive multiple "
                f"of the number of ranks ({self.group_size})"
            )

    # ---- normal mode ---------------------------------------------------------------

    def get_dispatch_layout(
        self,
        topk_idx: torch.Tensor,
        num_experts: int,
        previous_event: EventOverlap | None = None,
        async_finish: bool = False,
        allocate_on_comm_stream: bool = False,
    ):
        """(num_tokens_per_rank [R] int32, None (no RDMA ranks), num_tokens_per_expert [E]
        int32, is_token_in_rank [T, R] bool, event) of `topk_idx` (local: no collective)."""
        where = self._check("get_dispatch_layout")
        check_matrix(where, "topk_idx", topk_idx, torch.int64)
        self._check_experts(where, num_experts)
        slot, per_rank = self._layout(topk_idx, num_experts, where)
        in_rank = torch.zeros(tuple(slot.shape), dtype=torch.bool, device=topk_idx.device)
        if slot.shape[0]:
            run(
                "token_in_rank",
                (),
                legacy_kernels.token_in_rank,
                slot,
                in_rank.view(torch.uint8),
            )
        num_tokens_per_rank = int32(topk_idx, per_rank)
        num_tokens_per_expert = self._count_experts(topk_idx, num_experts)
        return num_tokens_per_rank, None, num_tokens_per_expert, in_rank, EventOverlap()

    def dispatch(
        self,
        x: torch.Tensor | tuple[torch.Tensor, torch.Tensor],
        handle: tuple | None = None,
        num_tokens_per_rank: torch.Tensor | None = None,
        num_tokens_per_rdma_rank: torch.Tensor | None = None,
        is_token_in_rank: torch.Tensor | None = None,
        num_tokens_per_expert: torch.Tensor | None = None,
        topk_idx: torch.Tensor | None = None,
        topk_weights: torch.Tensor | None = None,
        expert_alignment: int = 1,
        num_worst_tokens: int = 0,
        config: Config | None = None,
        previous_event: EventOverlap | None = None,
        async_finish: bool = False,
        allocate_on_comm_stream: bool = False,
    ):
        """Sends each token to the ranks `is_token_in_rank` marks. Returns (recv_x,
        recv_topk_idx (local expert indices, -1 elsewhere), recv_topk_weights (0 on
        those lanes), num_recv_tokens_per_expert_list (aligned to `expert_alignment`;
        empty with `num_worst_tokens`), handle, event). With `handle` (cached): only x
        moves, and the call returns (recv_x, None, None, None, None, event).
        `num_worst_tokens` pads the outputs to that many rows (top-k index -1)."""
        error, values = None, [0, 0] + [0] * self.group_size
        slot = data = sf = None
        try:
            where = self._check("dispatch")
            data, sf, num_tokens, _ = self._check_x(where, x)
            if handle is not None:
                if topk_idx is not None or topk_weights is not None:
                    raise Rejected(f"deep_ep.{where}: a cached dispatch takes no top-k")
                if not isinstance(handle, tuple) or len(handle) != 6:
                    raise Rejected(f"deep_ep.{where}: handle must be a dispatch's 6-tuple")
                slot = handle[5]
                check_matrix(where, "send_head", slot, torch.int32, num_tokens, self.group_size)
            else:
                slot, values = self._check_routing(
                    where,
                    num_tokens,
                    num_tokens_per_rank,
                    is_token_in_rank,
                    num_tokens_per_expert,
                    topk_idx,
                    topk_weights,
                    expert_alignment,
                    num_worst_tokens,
                )
        except Rejected as exc:
            error = exc
        rows = self._agree("dispatch", error, values)
        if handle is not None:
            return self._cached_dispatch(handle, data, sf)
        num_experts = rows[self.rank][0]
        if any(row[0] != num_experts for row in rows):
            raise ValueError(
                "deep_ep.Buffer.dispatch: the ranks disagree on num_experts "
                f"({[row[0] for row in rows]}); nothing was sent"
            )
        recv_per_rank = [sum(row[2 + r] for row in rows) for r in range(self.group_size)]
        too_many = [r for r, row in enumerate(rows) if row[1] and recv_per_rank[r] > row[1]]
        if too_many:
            raise ValueError(
                f"deep_ep.Buffer.dispatch: rank(s) {too_many} would receive more tokens than "
                "their num_worst_tokens; nothing was sent"
            )
        return self._new_dispatch(
            data,
            sf,
            slot,
            rows,
            num_tokens_per_expert,
            topk_idx,
            topk_weights,
            expert_alignment,
            num_worst_tokens,
        )

    def _check_routing(
        self,
        where,
        num_tokens,
        num_tokens_per_rank,
        is_token_in_rank,
        num_tokens_per_expert,
        topk_idx,
        topk_weights,
        expert_alignment,
        num_worst_tokens,
    ):
        """The slots of a new dispatch and its agreement values [E, worst, *per-rank counts]."""
        num_ranks = self.group_size
        if num_tokens_per_rank is None or is_token_in_rank is None or num_tokens_per_expert is None:
            raise Rejected(
                f"deep_ep.{where}: num_tokens_per_rank, is_token_in_rank and "
                "num_tokens_per_expert are required without a handle"
            )
        check_matrix(where, "is_token_in_rank", is_token_in_rank, torch.bool, num_tokens, num_ranks)
        for name, tensor in (
            ("num_tokens_per_rank", num_tokens_per_rank),
            ("num_tokens_per_expert", num_tokens_per_expert),
        ):
            if tensor.dtype != torch.int32 or tensor.dim() != 1:
                raise Rejected(f"deep_ep.{where}: {name} must be a 1-D int32 tensor")
        if num_tokens_per_rank.shape[0] != num_ranks:
            raise Rejected(f"deep_ep.{where}: num_tokens_per_rank must have {num_ranks} entries")
        num_experts = num_tokens_per_expert.shape[0]
        self._check_experts(where, num_experts)
        if (topk_idx is None) != (topk_weights is None):
            raise Rejected(f"deep_ep.{where}: topk_idx and topk_weights go together")
        if topk_idx is not None:
            _, num_topk = check_matrix(where, "topk_idx", topk_idx, torch.int64, num_tokens)
            check_matrix(where, "topk_weights", topk_weights, torch.float32, num_tokens, num_topk)
        if expert_alignment < 1 or num_worst_tokens < 0:
            raise Rejected(
                f"deep_ep.{where}: expert_alignment must be positive and num_worst_tokens "
                "not negative"
            )
        slot = torch.empty(
            (num_tokens, num_ranks), dtype=torch.int32, device=is_token_in_rank.device
        )
        counts = [0] * num_ranks
        if num_tokens:
            count = torch.empty((num_ranks,), dtype=torch.int32, device=slot.device)
            run(
                "rank_slots",
                (),
                legacy_kernels.rank_slots,
                is_token_in_rank.view(torch.uint8),
                slot,
                count,
            )
            counts = count.tolist()
        if counts != num_tokens_per_rank.tolist():
            raise Rejected(
                f"deep_ep.{where}: num_tokens_per_rank {num_tokens_per_rank.tolist()} does not "
                f"count is_token_in_rank ({counts})"
            )
        return slot, [num_experts, num_worst_tokens, *counts]

    def _new_dispatch(
        self,
        data,
        sf,
        slot,
        rows,
        num_tokens_per_expert,
        topk_idx,
        topk_weights,
        expert_alignment,
        num_worst_tokens,
    ):
        num_ranks, rank, device = self.group_size, self.rank, data.device
        num_tokens = data.shape[0]
        send_counts = rows[rank][2:]
        recv_counts = [row[2 + rank] for row in rows]
        num_recv = sum(recv_counts)
        num_rows = num_worst_tokens or num_recv
        offsets = int32(data, exclusive_sum(send_counts))

        def receive(src: torch.Tensor) -> torch.Tensor:
            out = (torch.zeros if num_worst_tokens else torch.empty)(
                (num_rows, src.shape[1]), dtype=src.dtype, device=device
            )
            return self._exchange(src, slot, offsets, send_counts, recv_counts, out)

        recv_x = receive(data)
        recv_sf = receive(sf) if sf is not None else None
        recv_idx = recv_w = None
        num_send = sum(send_counts)
        if topk_idx is not None:
            num_topk = topk_idx.shape[1]
            # the source index is the token's own (rank 0, max_tokens 0)
            send_idx, send_src, _ = pack_meta(topk_idx, slot, offsets, num_send,
                                              num_tokens_per_expert.shape[0] // num_ranks)
            recv_idx = torch.empty((num_rows, num_topk), dtype=torch.int64, device=device)
            self._all_to_all(recv_idx[:num_recv], send_idx, recv_counts, send_counts, "dispatch")
            recv_w = receive(topk_weights)
            if num_rows:
                run(
                    "finish_topk",
                    (),
                    legacy_kernels.finish_topk,
                    recv_idx,
                    recv_w,
                    num_recv,
                )
            recv_src = torch.zeros((num_rows,), dtype=torch.int32, device=device)
            self._all_to_all(recv_src[:num_recv], send_src, recv_counts, send_counts, "dispatch")
        else:
            recv_src = receive(identity(data, num_tokens).view(num_tokens, 1)).view(num_rows)

        # the per-expert counts of every rank (second small all-gather)
        num_experts = rows[rank][0]
        num_local = num_experts // num_ranks
        _, expert_rows = collectives.agree(
            self.group, False, num_tokens_per_expert.tolist(), self.timeout_secs, "dispatch"
        )
        per_expert = [
            _align(sum(row[rank * num_local + e] for row in expert_rows), expert_alignment)
            for e in range(num_local)
        ]
        prefix = [[0] * num_ranks for _ in range(num_ranks)]
        for s in range(num_ranks):
            for d in range(num_ranks):
                prefix[s][d] = rows[s][2 + d] + (prefix[s - 1][d] if s else 0)
        handle = (
            _tensor(data, prefix, torch.int32),
            _tensor(data, [[c] for c in send_counts], torch.int32),
            _tensor(data, [[0] for _ in range(num_ranks)], torch.int32),
            recv_src,
            (
                torch.zeros((num_tokens, num_ranks), dtype=torch.bool, device=device)
                if num_tokens == 0
                else self._in_rank(slot)
            ),
            slot,
        )
        recv = recv_x if recv_sf is None else (recv_x, recv_sf)
        per_expert = [] if num_worst_tokens else per_expert
        return recv, recv_idx, recv_w, per_expert, handle, EventOverlap()

    def _in_rank(self, slot: torch.Tensor) -> torch.Tensor:
        in_rank = torch.empty(tuple(slot.shape), dtype=torch.bool, device=slot.device)
        run("token_in_rank", (), legacy_kernels.token_in_rank, slot, in_rank.view(torch.uint8))
        return in_rank

    def _counts(self, handle: tuple) -> tuple[list[int], list[int]]:
        """(tokens sent to each rank, tokens received from each rank) of a handle."""
        send_counts = handle[1][:, -1].tolist()
        column = handle[0][:, self.rank].tolist()
        return send_counts, [c - (column[s - 1] if s else 0) for s, c in enumerate(column)]

    def _cached_dispatch(self, handle, data, sf):
        send_counts, recv_counts = self._counts(handle)
        slot = handle[5]
        offsets = int32(data, exclusive_sum(send_counts))
        recv_x = self._exchange(data, slot, offsets, send_counts, recv_counts)
        if sf is not None:
            recv_x = (recv_x, self._exchange(sf, slot, offsets, send_counts, recv_counts))
        return recv_x, None, None, None, None, EventOverlap()

    def combine(
        self,
        x: torch.Tensor,
        handle: tuple,
        topk_weights: torch.Tensor | None = None,
        bias: torch.Tensor | tuple[torch.Tensor, torch.Tensor] | None = None,
        config: Config | None = None,
        previous_event: EventOverlap | None = None,
        async_finish: bool = False,
        allocate_on_comm_stream: bool = False,
    ):
        """Sends the rows of `x` (as `handle`'s dispatch received them) back and sums each
        token's rows in rank order (no weights), from bias_0 + bias_1 in float32.
        combined_topk_weights sums the returned `topk_weights` rows the same way.
        Returns (combined_x, combined_topk_weights, event)."""
        error = None
        biases: tuple[torch.Tensor, ...] = ()
        try:
            where = self._check("combine")
            if not isinstance(handle, tuple) or len(handle) != 6:
                raise Rejected(f"deep_ep.{where}: handle must be a dispatch's 6-tuple")
            num_rows = handle[3].shape[0]
            num_tokens = handle[5].shape[0]
            _, hidden = check_matrix(where, "x", x, torch.bfloat16, rows=num_rows)
            if topk_weights is not None:
                check_matrix(where, "topk_weights", topk_weights, torch.float32, num_rows)
            biases = bias if isinstance(bias, tuple) else (bias,) if bias is not None else ()
            if len(biases) > 2:
                raise Rejected(f"deep_ep.{where}: bias must be one tensor or a tuple of two")
            for b in biases:
                check_matrix(where, "bias", b, torch.bfloat16, num_tokens, hidden)
        except Rejected as exc:
            error = exc
        self._agree("combine", error, [])
        return self._combine(x, handle, topk_weights, biases)

    def _combine(self, x, handle, topk_weights, biases):
        device, hidden = x.device, x.shape[1]
        send_counts, recv_counts = self._counts(handle)
        num_recv, num_tokens = sum(recv_counts), handle[5].shape[0]
        back = torch.empty((sum(send_counts), hidden), dtype=torch.bfloat16, device=device)
        self._all_to_all(back, x[:num_recv], send_counts, recv_counts, "combine")
        combined_x = torch.empty((num_tokens, hidden), dtype=torch.bfloat16, device=device)
        combined_w = None
        if topk_weights is not None:
            num_topk = topk_weights.shape[1]
            back_w = torch.empty((sum(send_counts), num_topk), dtype=torch.float32, device=device)
            self._all_to_all(back_w, topk_weights[:num_recv], send_counts, recv_counts, "combine")
            combined_w = torch.empty((num_tokens, num_topk), dtype=torch.float32, device=device)
        if num_tokens == 0:
            return combined_x, combined_w, EventOverlap()
        row = torch.empty((num_tokens, self.group_size), dtype=torch.int32, device=device)
        run(
            "rank_rows",
            (),
            legacy_kernels.rank_rows,
            handle[5],
            int32(x, exclusive_sum(send_counts)),
            row,
        )
        if hidden:
            num_bias, num_ranks = len(biases), self.group_size
            run(
                "combine_reduce",
                (num_ranks, num_bias),
                lambda: kernels.combine_reduce(num_ranks, num_bias),
                back if back.shape[0] else combined_x,  # never read: no token has a row
                row,
                biases[0] if biases else combined_x,
                biases[-1] if biases else combined_x,
                combined_x,
            )
        if combined_w is not None and combined_w.shape[1]:
            run(
                "sum_rank_weights",
                (),
                legacy_kernels.sum_rank_weights,
                back_w if back_w.shape[0] else combined_w,
                row,
                combined_w,
            )
        return combined_x, combined_w, EventOverlap()

    # ---- low-latency mode ----------------------------------------------------------

    def low_latency_dispatch(
        self,
        x: torch.Tensor,
        topk_idx: torch.Tensor,
        num_max_dispatch_tokens_per_rank: int,
        num_experts: int,
        cumulative_local_expert_recv_stats: torch.Tensor | None = None,
        dispatch_wait_recv_cost_stats: torch.Tensor | None = None,
        use_fp8: bool = True,
        round_scale: bool = False,
        use_ue8m0: bool = False,
        async_finish: bool = False,
        return_recv_hook: bool = False,
    ):
        """Sends each token to its top-k experts in DeepGEMM's masked layout. Returns
        (recv_x [L, max_tokens * R, H] bf16, or (fp8, column-major scales [.., H / 128]
        float32 or UE8M0-packed [.., H / 512] int32), recv_count [L] int32, handle,
        event, hook (a no-op callable with `return_recv_hook`, else None))."""
        error, values = None, [0, 0, 0] + [0] * self.group_size
        api = "low_latency_dispatch"
        max_tokens, num_ranks = num_max_dispatch_tokens_per_rank, self.group_size
        slot = None
        stats = cumulative_local_expert_recv_stats
        try:
            where = self._check(api)
            if not self.low_latency_mode:
                raise Rejected(f"deep_ep.{where}: the buffer was made without low_latency_mode")
            num_tokens, hidden = check_matrix(where, "x", x, torch.bfloat16)
            check_matrix(where, "topk_idx", topk_idx, torch.int64, num_tokens)
            self._check_experts(where, num_experts)
            if hidden % SF_BLOCK or (use_fp8 and hidden % (4 * SF_BLOCK)):
                raise Rejected(
                    f"deep_ep.{where}: hidden ({hidden}) must be a multiple of 128 (512 with FP8)"
                )
            if num_tokens > max_tokens or (num_ranks * max_tokens) % 4:
                raise Rejected(
                    f"deep_ep.{where}: {num_tokens} tokens must not exceed "
                    f"num_max_dispatch_tokens_per_rank ({max_tokens}), and that times the "
                    "number of ranks must be a multiple of 4"
                )
            if use_ue8m0 and not round_scale:
                raise Rejected(f"deep_ep.{where}: use_ue8m0 needs round_scale=True")
            if async_finish and return_recv_hook:
                raise Rejected(
                    f"deep_ep.{where}: async_finish and return_recv_hook exclude each other"
                )
            if stats is not None and (
                stats.dtype != torch.int32 or tuple(stats.shape) != (num_experts // num_ranks,)
            ):
                raise Rejected(
                    f"deep_ep.{where}: cumulative_local_expert_recv_stats must be int32 "
                    "[num_local_experts]"
                )
            slot, counts = self._layout(topk_idx, num_experts, where)
            values = [max_tokens, num_experts, hidden, *counts]
        except Rejected as exc:
            error = exc
        rows = self._agree(api, error, values)
        if any(row[:3] != rows[0][:3] for row in rows):
            raise ValueError(
                f"deep_ep.Buffer.{api}: the ranks disagree on (num_max_dispatch_tokens_per_rank, "
                f"num_experts, hidden): {[row[:3] for row in rows]}; nothing was sent"
            )
        recv_x, recv_count, handle = self._ll_dispatch(
            x, topk_idx, slot, rows, max_tokens, num_experts, use_fp8, round_scale, use_ue8m0
        )
        if stats is not None:
            run("add_counts", (), kernels.add_counts, stats, recv_count)
        hook = (lambda: None) if return_recv_hook else None
        return recv_x, recv_count, handle, EventOverlap(), hook

    def _ll_dispatch(
        self, x, topk_idx, slot, rows, max_tokens, num_experts, use_fp8, round_scale, use_ue8m0
    ):
        num_ranks, rank, device = self.group_size, self.rank, x.device
        (num_tokens, hidden), num_topk = x.shape, topk_idx.shape[1]
        num_local, num_slots = num_experts // num_ranks, num_ranks * max_tokens
        send_counts = rows[rank][3:]
        recv_counts = [row[3 + rank] for row in rows]
        num_send, num_recv = sum(send_counts), sum(recv_counts)
        offsets = int32(x, exclusive_sum(send_counts))

        data, sf = x, None
        if use_fp8:
            num_scales = hidden // SF_BLOCK
            data = torch.empty((num_tokens, hidden), dtype=torch.float8_e4m3fn, device=device)
            sf = torch.empty((num_tokens, num_scales), dtype=torch.float32, device=device)
            if num_tokens:
                run(
                    "ll_cast",
                    (round_scale,),
                    lambda: legacy_kernels.ll_cast(round_scale),
                    x,
                    data,
                    sf,
                )
        recv_data = self._exchange(data, slot, offsets, send_counts, recv_counts)
        recv_sf = self._exchange(sf, slot, offsets, send_counts, recv_counts) if use_fp8 else None
        # the source index is the token's own (rank 0, max_tokens 0)
        send_idx, send_src, _ = pack_meta(topk_idx, slot, offsets, num_send, num_local)
        recv_idx = torch.empty((num_recv, num_topk), dtype=torch.int64, device=device)
        self._all_to_all(recv_idx, send_idx, recv_counts, send_counts, "low_latency_dispatch")
        recv_src = torch.empty((num_recv, 1), dtype=torch.int32, device=device)
        self._all_to_all(recv_src, send_src, recv_counts, send_counts, "low_latency_dispatch")

        # each local expert's lanes, by source rank then token, from slot e * num_slots
        lane_pos = torch.full((num_recv, num_topk), -1, dtype=torch.int32, device=device)
        row_of = torch.full((num_local * num_slots,), -1, dtype=torch.int32, device=device)
        recv_count = torch.zeros((num_local,), dtype=torch.int32, device=device)
        if num_recv:
            starts = [e * num_slots for e in range(num_local)]
            run(
                "expert_place",
                (num_topk,),
                lambda: kernels.expert_place(num_topk),
                recv_idx,
                int32(x, starts),
                int32(x, [s + num_slots for s in starts]),
                lane_pos,
                torch.empty((num_recv, num_topk + 2), dtype=torch.int32, device=device),
                row_of,
                torch.empty((num_local * num_slots,), dtype=torch.int32, device=device),
            )
            run("expert_count", (), kernels.expert_count, recv_idx, recv_count)
        recv_x = gather_rows(recv_data, row_of).view(num_local, num_slots, hidden)
        if use_fp8:
            recv_x = (recv_x, self._ll_scales(recv_sf, row_of, num_local, num_slots, use_ue8m0))
        src_info = gather_rows(recv_src, row_of).view(num_local, num_slots)

        # layout_range[e, s] = (first slot << 32) | count of source rank s's tokens
        expert_rows = collectives.agree(
            self.group,
            False,
            self._count_experts(topk_idx, num_experts).tolist(),
            self.timeout_secs,
            "low_latency_dispatch",
        )[1]
        ranges = []
        for e in range(num_local):
            begin, line = 0, []
            for s in range(num_ranks):
                count = expert_rows[s][rank * num_local + e]
                line.append((begin << 32) | count)
                begin += count
            ranges.append(line)
        handle = LowLatencyHandle(
            (src_info, _tensor(x, ranges, torch.int64), max_tokens, hidden, num_experts)
        )
        handle.slot, handle.offsets, handle.lane_pos = slot, offsets, lane_pos
        handle.send_counts, handle.recv_counts = send_counts, recv_counts
        return recv_x, recv_count, handle

    def _ll_scales(self, recv_sf, row_of, num_local, num_slots, ue8m0: bool) -> torch.Tensor:
        """The received scales in upstream's column-major per-expert layout."""
        num_scales = recv_sf.shape[1]
        if ue8m0:
            storage = torch.empty(
                (num_local, num_scales // 4, num_slots), dtype=torch.int32, device=recv_sf.device
            )
            dst = storage.view(torch.uint8)
        else:
            storage = torch.empty(
                (num_local, num_scales, num_slots), dtype=torch.float32, device=recv_sf.device
            )
            dst = storage
        if storage.numel():
            source = (
                recv_sf
                if recv_sf.shape[0]
                else torch.zeros((1, num_scales), dtype=torch.float32, device=recv_sf.device)
            )
            run(
                "ll_place_scales",
                (ue8m0,),
                lambda: legacy_kernels.ll_place_scales(ue8m0),
                source,
                row_of.view(num_local, num_slots),
                dst,
            )
        return storage.transpose(1, 2)

    def low_latency_combine(
        self,
        x: torch.Tensor,
        topk_idx: torch.Tensor,
        topk_weights: torch.Tensor,
        handle: LowLatencyHandle,
        use_logfmt: bool = False,
        zero_copy: bool = False,
        async_finish: bool = False,
        return_recv_hook: bool = False,
        out: torch.Tensor | None = None,
        combine_wait_recv_cost_stats: torch.Tensor | None = None,
    ):
        """Sends each expert's rows of `x` (the masked layout of `handle`'s dispatch; with
        `zero_copy`, the buffer of `get_next_low_latency_combine_buffer`) back and sums
        them per token with its top-k weights, in lane order (lanes set to -1 since the
        dispatch are skipped). Returns (combined_x [T, H] bf16 (`out` if given), event,
        hook)."""
        error = None
        api = "low_latency_combine"
        try:
            where = self._check(api)
            if not isinstance(handle, LowLatencyHandle):
                raise Rejected(f"deep_ep.{where}: handle must be a low_latency_dispatch's handle")
            if use_logfmt:
                raise Rejected(f"deep_ep.{where}: LogFMT is not supported")
            if async_finish and return_recv_hook:
                raise Rejected(
                    f"deep_ep.{where}: async_finish and return_recv_hook exclude each other"
                )
            _, _, max_tokens, hidden, num_experts = handle
            if zero_copy:
                x = self.get_next_low_latency_combine_buffer(handle)
            shape = (num_experts // self.group_size, self.group_size * max_tokens, hidden)
            if (
                not isinstance(x, torch.Tensor)
                or x.dtype != torch.bfloat16
                or tuple(x.shape) != shape
            ):
                raise Rejected(f"deep_ep.{where}: x must be bfloat16 {shape}")
            if not x.is_contiguous():
                raise Rejected(f"deep_ep.{where}: x must be contiguous")
            num_tokens, num_topk = handle.slot.shape[0], handle.lane_pos.shape[1]
            check_matrix(where, "topk_idx", topk_idx, torch.int64, num_tokens, num_topk)
            check_matrix(where, "topk_weights", topk_weights, torch.float32, num_tokens, num_topk)
            if out is not None:
                check_matrix(where, "out", out, torch.bfloat16, num_tokens, hidden)
        except Rejected as exc:
            error = exc
        self._agree(api, error, [])
        combined = self._ll_combine(x, topk_idx, topk_weights, handle, out)
        hook = (lambda: None) if return_recv_hook else None
        return combined, EventOverlap(), hook

    def _ll_combine(self, x, topk_idx, topk_weights, handle, out):
        device, hidden = x.device, x.shape[2]
        num_tokens, num_topk = topk_idx.shape
        # every received lane's row (zero where the lane is not this rank's)
        send = gather_rows(x.view(-1, hidden), handle.lane_pos.view(-1))
        back_counts = [c * num_topk for c in handle.send_counts]
        back = torch.empty((sum(back_counts), hidden), dtype=torch.bfloat16, device=device)
        self._all_to_all(
            back,
            send,
            back_counts,
            [c * num_topk for c in handle.recv_counts],
            "low_latency_combine",
        )
        combined = (
            out
            if out is not None
            else torch.empty((num_tokens, hidden), dtype=torch.bfloat16, device=device)
        )
        if num_tokens == 0:
            return combined
        rank_row = torch.empty((num_tokens, num_topk), dtype=torch.int32, device=device)
        reduce_row = torch.empty((num_tokens, num_topk), dtype=torch.int32, device=device)
        run(
            "combine_map",
            (num_topk, True),
            lambda: kernels.combine_map(num_topk, True),
            topk_idx,
            handle.slot,
            handle.offsets,
            rank_row,
            reduce_row,
            handle[4] // self.group_size,
        )
        run(
            "weighted_reduce",
            (num_topk,),
            lambda: legacy_kernels.weighted_reduce(num_topk),
            back if back.shape[0] else combined,  # never read: no lane has a row
            reduce_row,
            topk_weights,
            combined,
        )
        return combined
