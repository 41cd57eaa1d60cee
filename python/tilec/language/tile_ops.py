"""Tile ops: allocation, copies, gemm, fills, reductions (and reducers), prefix sums,
atomic adds, im2col.

All of them act on whole tiles, so they belong in a `T.Kernel` body (or a
`T.Pipelined`/`T.serial` loop in it), not inside `T.Parallel`. Each becomes
the `tile` op of the same name, located at the calling line. Also here:
the function-level tensors (`T.empty` outputs, `T.alloc_global` workspaces),
views (`T.reshape`, `T.view`) and TileLang's scheduling hints that concern
tiles (`T.annotate_layout`; `T.use_swizzle` is in `swizzle`).
"""

from __future__ import annotations

import math

from . import ascend_tile, control, semantic
from .dtypes import DType
from .hints import GemmWarpPolicy
from .source import dsl_api
from .values import Buffer, Expr, Scalar, Var


@dsl_api
def empty(shape: object, dtype: str | DType = "float32") -> Buffer:
    """`C = T.empty((M, N), dtype)` in the kernel function's body, before `T.Kernel`: an
    output tensor, which the kernel returns (`return C`). It becomes a parameter after the
    declared ones, marked `tile.output`; `kernel.out_idx` gives their positions for
    `tilec.compile(kernel, out_idx=...)`. Its dims are ints or dims of input tensors."""
    return semantic.empty(shape, dtype)


@dsl_api
def reshape(src: object, shape: object) -> Buffer:
    """`src` (contiguous) viewed with another shape of as many elements (TileLang's
    T.reshape; the same as `T.Tensor(shape, src.dtype, src.data)`)."""
    return semantic.reshape(src, shape, None, "T.reshape")


@dsl_api
def view(src: object, shape: object = None, dtype: str | DType | None = None) -> Buffer:
    """TileLang's T.view: `src` with another shape (and its own dtype: tilec does not
    reinterpret element types)."""
    return semantic.reshape(src, shape, dtype, "T.view")


@dsl_api
def alloc_global(shape: object, dtype: str | DType, scope: str = "global") -> Buffer:
    """A tensor in global memory that the kernels of the function share (a workspace, such
    as split-K partials): called before `T.Kernel`, freed when the function returns."""
    return semantic.alloc_global(shape, dtype, scope)


@dsl_api
def alloc_shared(shape: object, dtype: str | DType, scope: str = "shared.dyn") -> Buffer:
    """A tile in memory shared by the threads of a block (`#tile.scope<shared>`)."""
    what = "T.alloc_shared"
    return semantic.alloc(shape, dtype, semantic.tilelang_scope(scope, what), what)


@dsl_api
def alloc_fragment(shape: object, dtype: str | DType, scope: str = "local.fragment") -> Buffer:
    """A register tile spread over the threads of a block; gemm accumulators live here."""
    what = "T.alloc_fragment"
    return semantic.alloc(shape, dtype, semantic.tilelang_scope(scope, what), what)


@dsl_api
def alloc_local(shape: object, dtype: str | DType, scope: str = "local") -> Buffer:
    """A per-thread tile (`#tile.scope<local>`)."""
    what = "T.alloc_local"
    return semantic.alloc(shape, dtype, semantic.tilelang_scope(scope, what), what)


@dsl_api
def alloc_var(
    dtype: str | DType, *args: object, scope: str = "local.var", init: object = None
) -> Var:
    """A mutable local scalar: `x = T.alloc_var("float32", init=0)`, then `x += v`, `x = v`
    and `x` in expressions (or `x[0]`). TileLang's positional forms `(dtype, init)`,
    `(dtype, scope)` and `(dtype, init, scope)` work too."""
    return semantic.alloc_var(dtype, args, scope, init)


@dsl_api
def alloc_reducer(
    shape: object, dtype: str | DType, op: str = "sum", replication: str | None = None
) -> Buffer:
    """TileLang's reducer, a fragment of partial results combined with `op` ("sum",
    "max", "min", "bitand", "bitor", "bitxor"): `T.reducer_init(r)`, then
    `T.reducer_update(r[i], x)` (in T.Parallel, say), then `T.finalize_reducer(r, dst)`.
    The legacy form (`replication="all"` or `"none"`) is cleared and updated as a
    fragment (`r[i] += x`) and finalized in place with `T.finalize_reducer(r)`."""
    return semantic.alloc_reducer(shape, dtype, op, replication)


@dsl_api
def reducer_init(reducer: object, init: object = None) -> None:
    """Starts the reduction: every element is `init`, or `op`'s identity (0 for sum, the
    lowest value for max, the highest for min, all ones for bitand)."""
    semantic.reducer_init(reducer, init)


@dsl_api
def reducer_update(target: object, value: object) -> None:
    """Combines `value` into `target`, an element `r[i]` of a reducer."""
    semantic.reducer_update(target, value)


@dsl_api
def finalize_reducer(reducer: object, dst: object = None, batch: int = 1) -> None:
    """Ends the reduction, writing the result into `dst` (a tile of the reducer's shape
    and dtype); without `dst` (legacy form) the reducer holds the result."""
    semantic.finalize_reducer(reducer, dst, batch)


@dsl_api
def alloc_buffer(shape: object, dtype: str | DType, scope: str = "shared.dyn") -> Buffer:
    """TileLang's `T.alloc_buffer(shape, dtype, scope)`: a tile in the scope named as
    TileLang names them ("shared.dyn", "shared", "local.fragment", "local", "local.var")
    or "global" (T.alloc_global)."""
    if scope == "global":
        return semantic.alloc_global(shape, dtype, scope)
    what = "T.alloc_buffer"
    return semantic.alloc(shape, dtype, semantic.tilelang_scope(scope, what), what)


@dsl_api
def alloc(shape: object, dtype: str | DType, scope: str) -> Buffer:
    """A tile in any on-chip scope, including the Ascend expert scopes l1, l0a, l0b, l0c, ub."""
    scopes = (*semantic.GENERIC_SCOPES, *semantic.ASCEND_SCOPES)
    if scope not in scopes:
        raise semantic.error(
            f"T.alloc: unknown scope {scope!r}; expected one of {', '.join(scopes)}"
        )
    return semantic.alloc(shape, dtype, scope, "T.alloc")


@dsl_api
def copy(
    src: object,
    dst: object,
    *,
    coalesced_width: int | None = None,
    disable_tma: bool = False,
    eviction_policy: str | None = None,
    prefer_instruction: str | None = None,
    loop_layout: object = None,
    enable_relu: bool = False,
    pad_value: object = None,
) -> None:
    """Copies `src` to `dst`; either side may be a region `A[i, j]` starting at an offset.

    The extent is the shape of the side given as a whole buffer; two whole
    buffers must have the same shape (as in TileLang). Reads past
    the end of a tensor give zero and writes past its end are dropped, so
    edge tiles need no special code; element types are converted.
    TileLang's hints are recorded on the tile.copy: `tile.coalesced_width`,
    `tile.disable_tma`, `tile.eviction_policy`, `tile.prefer_instruction`,
    `tile.layout` (from `loop_layout`, a T.Fragment). tilelang-ascend's
    `enable_relu=True` (the fixpipe's ReLU on the way out of L0C) copies max(src, 0)
    of a whole on-chip tile; its `pad_value` (a number or a traced scalar, e.g.
    `-T.infinity(dtype)`; zero by default) is what the copy reads past the end of the
    source and what the rest of a destination tile larger than the region holds.
    """
    what = "T.copy"
    if not isinstance(enable_relu, bool):
        raise semantic.error(f"{what}: enable_relu must be a Python bool but got {enable_relu!r}")
    if isinstance(pad_value, int | float) and not isinstance(pad_value, bool) \
            and pad_value == 0:
        pad_value = None  # the copies' own
    hints = semantic.copy_hints(
        coalesced_width, disable_tma, eviction_policy, prefer_instruction, loop_layout
    )
    if enable_relu:
        src = _relu_of(src, what)
    semantic.copy(src, dst, hints, pad_value)


def _relu_of(src: object, what: str) -> Buffer:
    """A tile holding max(src, 0), for a copy with enable_relu."""
    if not isinstance(src, Buffer) or isinstance(src, Var) or src.scope == "global":
        raise semantic.error(f"{what}: enable_relu needs a whole on-chip tile as src (the "
                             f"accumulator the fixpipe drains) but got {src!r}")
    rectified = semantic.alloc(src.shape, src.dtype, src.scope, what)
    ascend_tile.relu(rectified, src)
    return rectified


@dsl_api
def im2col(
    img: object,
    col: object,
    nhw_step: object,
    c_step: object,
    kernel: int,
    stride: int,
    dilation: int,
    pad: int,
    eviction_policy: str | None = None,
) -> None:
    """TileLang's T.im2col for a 2-D convolution as a GEMM: fills `col` (block_M x block_K)
    with tile (`nhw_step`, `c_step`) of the patch matrix of the NHWC image `img`, whose row
    m is an output position (n, oh, ow) and column k a filter tap (kh, kw, c), for a square
    `kernel` with `stride`, `dilation` and zero padding `pad`. Taps in the padding and past
    the end of the matrix read 0. `eviction_policy` is TileLang's cache hint, checked and
    recorded on the gather's tile.parallel as `tile.eviction_policy`."""
    semantic.im2col(img, col, nhw_step, c_step, kernel, stride, dilation, pad, eviction_policy)


c2d_im2col = im2col  # TileLang's deprecated name


@dsl_api
def gemm(
    A: object,
    B: object,
    C: object,
    transpose_A: bool = False,
    transpose_B: bool = False,
    policy: GemmWarpPolicy | None = None,
    clear_accum: bool = False,
    k_pack: int = 1,
    wg_wait: int = 0,
) -> None:
    """C (+)= op(A) @ op(B) on tiles: C is M x N (a fragment), op(A) M x K, op(B) K x N.

    TileLang's scheduling arguments, in its order, are recorded on the
    tile.gemm for the targets that use them: `policy` (a T.GemmWarpPolicy,
    `tile.policy = "full_row"`), `k_pack` (packed matrix cores, `tile.k_pack`)
    and `wg_wait` (Hopper's wgmma wait, `tile.wg_wait`).
    """
    semantic.gemm(A, B, C, transpose_A, transpose_B, clear_accum, policy, k_pack, wg_wait)


@dsl_api
def gemm_v0(A: object, B: object, C: object, transpose_A: bool = False,
            transpose_B: bool = False, init: object = False) -> None:
    """tilelang-ascend's cube gemm: C (+)= op(A) @ op(B), where `init` (a Python bool or a
    traced condition such as `k == 0`) says to overwrite C rather than add to it. A traced
    `init` becomes an `scf.if` between the overwriting gemm and the accumulating one."""
    _gemm_init("T.gemm_v0", A, B, C, transpose_A, transpose_B, init)


@dsl_api
def mma(A: object, B: object, C: object, init: object = False) -> None:
    """tilelang-ascend's T.mma: C (+)= A @ B, overwriting C when `init` holds (see gemm_v0)."""
    _gemm_init("T.mma", A, B, C, False, False, init)


def _gemm_init(what: str, A: object, B: object, C: object, transpose_A: object,
               transpose_B: object, init: object) -> None:
    semantic.require_tile_context(what)
    if not isinstance(init, bool | Expr):
        raise semantic.error(f"{what}: init must be a Python bool or a traced condition "
                             f"(`k == 0`) but got {init!r}")
    condition = semantic.truth(init, f"{what}: init")
    if isinstance(condition, bool):
        semantic.gemm(A, B, C, transpose_A, transpose_B, condition)
        return
    branch = control.If(condition, True, False)
    with branch:
        if branch.then():
            semantic.gemm(A, B, C, transpose_A, transpose_B, True)
        if branch.orelse():
            semantic.gemm(A, B, C, transpose_A, transpose_B, False)


@dsl_api
def fill(buffer: object, value: object) -> None:
    """Sets every element of `buffer` to `value`."""
    semantic.fill(buffer, value)


@dsl_api
def clear(buffer: object) -> None:
    """Sets every element of `buffer` to zero."""
    semantic.clear(buffer)


def _reduce(kind: str, src: object, dst: object, dim: object, clear: object,
            real_shape: object) -> None:
    """T.reduce_<kind>; tilelang-ascend's `real_shape=[rows, cols]` is the part of a 2-D
    `src` that holds data (0: the whole extent), whose results fill the first elements
    of `dst` (dst may keep the tile's physical row length, its "slice buffer" form)."""
    what = f"T.reduce_{kind}"
    if real_shape is None:
        semantic.reduce(kind, src, dst, dim, clear)
        return
    semantic.require_tile_context(what)
    shape = src.shape if isinstance(src, Buffer) else None
    if shape is None or len(shape) != 2 or not isinstance(real_shape, list | tuple) \
            or len(real_shape) != 2:
        raise semantic.error(f"{what}: real_shape is [rows, cols] of a 2-D tile but got "
                             f"{real_shape!r}")
    extents = []
    for axis, (value, size) in enumerate(zip(real_shape, shape, strict=True)):
        extent = semantic.python_int(value, f"{what}: real_shape[{axis}]")
        if extent is None or not 0 <= extent <= size:
            raise semantic.error(f"{what}: real_shape[{axis}] must be a Python int from 0 to "
                                 f"{size} but got {value!r}")
        extents.append(extent or size)
    if tuple(extents) == tuple(shape):
        semantic.reduce(kind, src, dst, dim, clear)
        return
    if not isinstance(dst, Buffer):
        raise semantic.error(f"{what}: dst must be a tile but got {dst!r}")
    part = semantic.alloc(tuple(extents), src.dtype, src.scope, what)
    semantic.copy(src[: extents[0], : extents[1]], part)
    kept = extents[0] if dim in (-1, 1) else extents[1]
    if dst.static_shape is None or math.prod(dst.static_shape) < kept:
        raise semantic.error(f"{what}: dst ('{dst.name}') must hold the {kept} results of "
                             f"real_shape {list(real_shape)!r}")
    results = semantic.alloc((kept,), dst.dtype, dst.scope, what)
    flat = semantic.reshape(dst, (math.prod(dst.static_shape),), None, what)[:kept]
    if not clear:
        semantic.copy(flat, results)
    semantic.reduce(kind, part, results, dim, clear)
    semantic.copy(results, flat)


@dsl_api
def reduce_max(src: object, dst: object, dim: int = -1, clear: bool = True,
               real_shape: object = None) -> None:
    """dst = max of src along `dim` (src's shape without `dim`); `clear=False` folds in dst."""
    _reduce("max", src, dst, dim, clear, real_shape)


@dsl_api
def reduce_min(src: object, dst: object, dim: int = -1, clear: bool = True,
               real_shape: object = None) -> None:
    """dst = min of src along `dim`; `clear=False` folds in the old dst."""
    _reduce("min", src, dst, dim, clear, real_shape)


@dsl_api
def reduce_sum(src: object, dst: object, dim: int = -1, clear: bool = True,
               real_shape: object = None) -> None:
    """dst = sum of src along `dim`; `clear=False` adds to the old dst."""
    _reduce("sum", src, dst, dim, clear, real_shape)


@dsl_api
def reduce_abssum(src: object, dst: object, dim: int = -1, clear: bool = True,
                  real_shape: object = None) -> None:
    """dst = sum of |src| along `dim`; `clear=False` adds to the old dst."""
    _reduce("abssum", src, dst, dim, clear, real_shape)


@dsl_api
def reduce_absmax(src: object, dst: object, dim: int = -1, clear: bool = True,
                  real_shape: object = None) -> None:
    """dst = max of |src| along `dim`; `clear=False` folds in the old dst."""
    _reduce("absmax", src, dst, dim, clear, real_shape)


@dsl_api
def cumsum(src: object, dst: object = None, dim: int = 0, reverse: bool = False) -> None:
    """Inclusive prefix sum of `src` along `dim` into `dst` (in place when dst is None)."""
    semantic.cumsum(src, dst, dim, reverse)


@dsl_api
def sync_threads(barrier_id: int | None = None, arrive_count: int | None = None) -> None:
    """Waits until every thread of the block gets here (tile.barrier); a target
    whose tile ops already synchronize (cpu) drops it. TileLang's named barrier
    `T.sync_threads(id, count)` is taken when `count` is the whole block."""
    semantic.sync_threads(barrier_id, arrive_count)


@dsl_api
def atomic_add(dst: object, value: object, memory_order: str | None = None,
               return_prev: bool = False, use_tma: bool = False) -> Scalar | None:
    """Atomically adds `value` (a tile, or a scalar) into `dst` (a region or element).

    With a tile, `dst` is the region starting at `Out[i, j]`; with a scalar,
    `dst` is the element `Out[i, j]` (e.g. inside T.Parallel), and with
    `return_prev=True` the call gives the element's value before the add (a slot
    claimed in a shared counter: `pos = T.atomic_add(count[0], 1, return_prev=True)`).
    TileLang's `memory_order` may be "relaxed" (what every target's atomics are; the
    default); `use_tma` is a cuda scheduling choice that tilec makes itself.
    """
    what = "T.atomic_add"
    if memory_order not in (None, "relaxed"):
        raise semantic.error(
            f"{what}: memory_order={memory_order!r} is not supported: tilec's atomic adds are "
            "relaxed; order them with T.sync_threads, or split the kernel where another "
            "block must see the sum"
        )
    if not isinstance(return_prev, bool) or not isinstance(use_tma, bool):
        raise semantic.error(f"{what}: return_prev and use_tma must be Python bools but got "
                             f"{return_prev!r} and {use_tma!r}")
    if return_prev:
        return semantic.atomic_fetch_add(dst, value)
    semantic.atomic_add(dst, value)
    return None


@dsl_api
def assume(condition: object) -> None:
    """TileLang's `T.assume(cond)`: a fact its compiler may optimize with. tilec proves
    or guards its bounds itself and does not use it; a condition Python can decide
    must hold."""
    value = semantic.operand(condition, "T.assume")
    if not isinstance(value, Scalar) and not value:
        raise semantic.error(f"T.assume: the condition is false ({condition!r})")


@dsl_api
def set_max_nreg(reg_count: int, is_inc: int) -> None:
    """The registers per thread the consumer warpgroups (is_inc=1) or the producer
    (is_inc=0) of a warp-specialized kernel reallocate to (cuda's `setmaxnreg`; recorded
    as `tile.max_nreg_inc`/`dec` on the tile.kernel, which other targets ignore)."""
    semantic.set_max_nreg(reg_count, is_inc)


@dsl_api
def no_set_max_nreg() -> None:
    """No register reallocation between warpgroups (`tile.no_set_max_nreg`)."""
    semantic.no_set_max_nreg("T.no_set_max_nreg")


@dsl_api
def disable_warp_group_reg_alloc() -> None:
    """TileLang's other name for T.no_set_max_nreg."""
    semantic.no_set_max_nreg("T.disable_warp_group_reg_alloc")


@dsl_api
def annotate_layout(layout_map: dict[object, object]) -> None:
    """Gives buffers a layout, `{A_shared: T.Layout(...), C_frag: T.Fragment(...)}` (or a
    function of the indices); recorded as `tile.layout` on the tile.alloc, or in the
    arg_attrs of a tensor parameter."""
    semantic.annotate_layout(layout_map)
