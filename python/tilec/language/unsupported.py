"""TileLang names that tilec does not have, and what to write instead.

`import tilec.language as T` stands in for `import tilelang.language as T`,
so a kernel may use a name of TileLang's surface that tilec lacks. Looking
it up gives a `DSLError` at the user's line that names the feature and the
alternative, rather than Python's bare AttributeError; an unknown name
gets the closest names the DSL has. The error is an AttributeError too, so
`hasattr(T, name)` keeps working.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

from .errors import DSLError
from .source import caller_loc

_SCALAR_LOOP = "write it as element-wise code in T.Parallel, or a loop with T.serial"
_THREADS = (
    "tilec has no warp votes; in per-thread code combine the lanes' conditions with "
    'T.warp_reduce_max (any) or T.warp_reduce_min (all) of T.cast(cond, "int32"), or write '
    "the kernel for the block as a whole with tile ops (T.reduce_*)"
)
_BARRIERS = (
    "tilec's tile ops synchronize as they need; use T.sync_threads for a block-wide barrier"
)
_LAYOUT_HINT = "tilec has no such annotation; leave it out (cpu needs none)"
_DTYPE = "use one of tilec's dtypes (T.float16, T.bfloat16, T.float32, T.float8_e4m3, ...)"
_ASYNC_COPY = (
    "use T.copy: in T.Pipelined the cuda target makes it asynchronous itself (cp.async on "
    "sm_80, TMA with mbarriers on sm_90a)"
)
_MMA = "use T.gemm: each target picks its matrix instructions (mma.sync, wgmma, the cube)"
_WARP_SPECIALIZE = (
    "tilec specializes warps itself: write the loop as T.Pipelined (cuda:sm_90a makes "
    "producer and consumer warp groups) and T.Persistent for a persistent grid"
)
_CLUSTERS = "tilec has no thread-block clusters; write the kernel for one block"
_TVM = (
    "a TVM intrinsic tilec does not have; for a reduction across threads use "
    "T.alloc_reducer / T.reduce_sum, or T.warp_reduce_sum in per-thread code"
)
_EXTERNAL = "tilec kernels cannot call external functions; write the code with T ops"

# Name -> what to write instead.
ALTERNATIVES: dict[str, str] = {
    "async_copy": "use T.copy, which a target makes asynchronous in T.Pipelined",
    "transpose": _SCALAR_LOOP,
    "gemm_sp": "sparse gemm is not supported; use T.gemm on the dense operands",
    "wgmma_gemm": "use T.gemm (with wg_wait=... to record the wait)",
    "tcgen05_gemm": "use T.gemm",
    "reduce": "use T.reduce_sum, T.reduce_max, T.reduce_min, T.reduce_abssum or T.reduce_absmax",
    "reduce_bitand": _SCALAR_LOOP,
    "reduce_bitor": _SCALAR_LOOP,
    "reduce_bitxor": _SCALAR_LOOP,
    "cummax": "use T.cumsum, or a T.serial loop with T.max",
    "atomic_max": "use T.atomic_add, or a reduction into a tile",
    "atomic_min": "use T.atomic_add, or a reduction into a tile",
    "atomic_addx2": "use T.atomic_add of a tile",
    "atomic_addx4": "use T.atomic_add of a tile",
    "atomic_load": "read the element directly",
    "atomic_store": "write the element directly",
    "atomic_or": "use T.atomic_add",
    "loop_break": "compute a mask and test it with `if` where the work is done",
    "any_of": "combine conditions with `or` / |",
    "all_of": "combine conditions with `and` / &",
    "dp4a": "multiply and add int8 values in T.Parallel",
    "alloc_barrier": _BARRIERS,
    "barrier_arrive": _BARRIERS,
    "barrier_wait": _BARRIERS,
    "mbarrier_arrive": _BARRIERS,
    "mbarrier_wait_parity": _BARRIERS,
    "mbarrier_expect_tx": _BARRIERS,
    "mbarrier_arrive_expect_tx": _BARRIERS,
    "sync_warp": _BARRIERS,
    "sync_global": "split the work into two T.Kernel launches",
    "sync_grid": "split the work into two T.Kernel launches",
    "ballot": _THREADS,
    "ballot_sync": _THREADS,
    "activemask": _THREADS,
    "annotate_safe_value": _LAYOUT_HINT,
    "annotate_restrict_buffers": _LAYOUT_HINT,
    "annotate_l2_hit_ratio": _LAYOUT_HINT,
    "annotate_min_blocks_per_sm": _LAYOUT_HINT,
    "annotate_ws_schedule": _LAYOUT_HINT,
    "ws_op": _LAYOUT_HINT,
    "WSID": _LAYOUT_HINT,
    "make_tensor": "declare the tensor as a T.Tensor parameter",
    "ptr": "declare the tensor as a T.Tensor parameter",
    "StridedTensor": "declare a contiguous T.Tensor parameter",
    "FragmentBuffer": "allocate it in the kernel with T.alloc_fragment",
    "SharedBuffer": "allocate it in the kernel with T.alloc_shared",
    "LocalBuffer": "allocate it in the kernel with T.alloc_local",
    "allocate": "use T.alloc_shared, T.alloc_fragment, T.alloc_local or T.alloc_global",
    "call_extern": _EXTERNAL,
    "print": "compile for cpu and inspect the outputs, or read kernel.ir()",
    "tfloat32": _DTYPE,
    "int4": _DTYPE,
    "float4_e2m1fn": _DTYPE,
    "float8_e4m3fnuz": _DTYPE,
    "float8_e5m2fnuz": _DTYPE,
    "float8_e8m0fnu": _DTYPE,
    "float4_e2m1_unpacked": _DTYPE,
    "tma_copy": _ASYNC_COPY,
    "ptx_cp_async": _ASYNC_COPY,
    "cp_async_barrier_noinc": _ASYNC_COPY,
    "ptx_commit_group": _ASYNC_COPY,
    "ptx_wait_group": _ASYNC_COPY,
    "fence_proxy_async": _ASYNC_COPY,
    "alloc_tmem": _MMA,
    "tcgen05_mma_arrive": _MMA,
    "tcgen05_cp_warpx4": _MMA,
    "tcgen05_sf_warp_transpose": _MMA,
    "tcgen05_gemm_blockscaled": _MMA,
    "mma_gemm_blockscaled": _MMA,
    "wait_wgmma": "use T.gemm with wg_wait=..., which records the wait",
    "ws": _WARP_SPECIALIZE,
    "WSPipeline": _WARP_SPECIALIZE,
    "WSScope": _WARP_SPECIALIZE,
    "WSRole": _WARP_SPECIALIZE,
    "WSSync": _WARP_SPECIALIZE,
    "WSSchedule": _WARP_SPECIALIZE,
    "annotate_producer_reg_dealloc": "use T.set_max_nreg(count, 0) in the producer's branch",
    "annotate_consumer_reg_alloc": "use T.set_max_nreg(count, 1) in the consumers' branch",
    "PersistentTileScheduler": "use T.Persistent for a persistent grid",
    "ClusterKernel": _CLUSTERS,
    "alloc_cluster_barrier": _CLUSTERS,
    "block_rank_in_cluster": _CLUSTERS,
    "clc_try_cancel_multicast": _CLUSTERS,
    "clc_is_canceled": _CLUSTERS,
    "clc_get_first_ctaid_x": _CLUSTERS,
    "tvm_thread_allreduce": _TVM,
    "comm_reducer": _TVM,
    "attr": _TVM,
    "evaluate": _TVM,
    "tvm_warp_shuffle": "use T.shfl_sync (or T.shfl_xor / T.shfl_down / T.shfl_up)",
    "any_sync": _THREADS,
    "access_ptr": "pass the buffer, or a slice of it, to the T op",
    "import_source": _EXTERNAL,
    "device_assert": "tilec kernels have no assertions; check the inputs on the host",
    "rng_init": "tilec kernels have no random number generator; generate the numbers on the "
    "host and pass them in a tensor",
    "rng_rand": "tilec kernels have no random number generator; generate the numbers on the "
    "host and pass them in a tensor",
}


def missing(name: str, available: Iterable[str]) -> AttributeError:
    """The error for `T.<name>`, which the DSL does not have."""
    if name in ALTERNATIVES:
        message = f"T.{name} (TileLang) is not supported by tilec: {ALTERNATIVES[name]}"
    else:
        close = difflib.get_close_matches(name, list(available), n=3)
        hint = f"; did you mean {' or '.join(f'T.{c}' for c in close)}" if close else ""
        message = f"tilec.language has no '{name}'{hint}"
    return UnsupportedName(message, caller_loc())


class UnsupportedName(DSLError, AttributeError):
    """A DSLError for a name the DSL lacks; an AttributeError for `hasattr` and `getattr`."""
