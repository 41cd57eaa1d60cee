"""The semantic layer: what each DSL call means, and whether it is legal.

Every rule of the DSL lives in this package, with the error a user sees when
a kernel breaks it. Checks run before any op is built, so the messages speak
about the user's program ("T.gemm: B must be 32x64 ...") rather than about
the IR; ops are then created through `builder`.

One module per concern, lowest first (each imports only those before it):
`checks` (the located error, Python ints), `placement` (where a call may
appear, which values are in scope), `dims` (T.Tensor dims computed from
symbolic dims), `scalars` (operands and their type rules), `buffers` (tensors,
views, subscripts), `scheduling` (hints), `kernel_threads` (thread and block
indices); and in `ops/` one per tile op, as the targets lower them one per op
(passes/conversion/tile_to_*/ops/): `alloc`, `copy`, `gemm`, `reduce` (and
cumsum), `fill` (and clear), `atomic_add`, `im2col`, `reducers`.

The package re-exports the functions the rest of the DSL calls
(`semantic.copy`); import a module's other names from the module
(`from .semantic.ops.gemm import ...`).
Importing the package installs its rules as the meaning of Python syntax on
the DSL's values (`tilec.language.syntax`).
"""

from __future__ import annotations

from .. import syntax
from .buffers import (
    check_result,
    empty,
    outputs,
    reshape,
    store,
    store_var,
    stores_into,
    subscript,
    view,
)
from .checks import error, python_int
from .dims import DIM_OPERATIONS
from .kernel_threads import (
    THREAD_DIMS,
    block_binding,
    close_kernel,
    grid_rank,
    sync_threads,
    thread_binding,
    thread_extent,
)
from .ops.alloc import (
    ASCEND_SCOPES,
    GENERIC_SCOPES,
    alloc,
    alloc_global,
    alloc_var,
    tilelang_scope,
)
from .ops.atomic_add import atomic_add, atomic_fetch_add
from .ops.copy import copy, copy_hints
from .ops.fill import clear, fill
from .ops.gemm import gemm
from .ops.im2col import im2col
from .ops.reduce import cumsum, reduce
from .ops.reducers import (
    REDUCER_OPS,
    alloc_reducer,
    finalize_reducer,
    reducer_identity,
    reducer_init,
    reducer_update,
)
from .placement import (
    abandon_region,
    check_buffer,
    check_visible,
    close_region,
    require_kernel,
    require_tile_context,
    require_trace,
)
from .scalars import (
    absolute,
    affine_of,
    as_dtype,
    binary,
    cast,
    ceildiv,
    compare,
    convert,
    derived_value,
    float_unary,
    index_value,
    invert,
    literal,
    negate,
    operand,
    reinterpret,
    scalar,
    select,
    symbolic_dims,
    truth,
    var_value,
)
from .scheduling import (
    annotate_layout,
    no_set_max_nreg,
    parallel_hints,
    pipeline_schedule,
    set_max_nreg,
    unroll_hints,
    use_swizzle,
)

syntax.install(
    syntax.Rules(
        binary=binary,
        compare=compare,
        negate=negate,
        invert=invert,
        absolute=absolute,
        cast=cast,
        subscript=subscript,
        store=store,
        store_var=store_var,
    )
)

__all__ = [
    "ASCEND_SCOPES",
    "DIM_OPERATIONS",
    "GENERIC_SCOPES",
    "REDUCER_OPS",
    "THREAD_DIMS",
    "abandon_region",
    "absolute",
    "affine_of",
    "alloc",
    "alloc_global",
    "alloc_reducer",
    "alloc_var",
    "annotate_layout",
    "as_dtype",
    "atomic_add",
    "atomic_fetch_add",
    "binary",
    "block_binding",
    "cast",
    "ceildiv",
    "check_buffer",
    "check_result",
    "check_visible",
    "clear",
    "close_kernel",
    "close_region",
    "compare",
    "convert",
    "copy",
    "copy_hints",
    "cumsum",
    "derived_value",
    "empty",
    "error",
    "fill",
    "finalize_reducer",
    "float_unary",
    "gemm",
    "grid_rank",
    "im2col",
    "index_value",
    "invert",
    "literal",
    "negate",
    "no_set_max_nreg",
    "operand",
    "outputs",
    "parallel_hints",
    "pipeline_schedule",
    "python_int",
    "reduce",
    "reducer_identity",
    "reducer_init",
    "reducer_update",
    "reinterpret",
    "require_kernel",
    "require_tile_context",
    "require_trace",
    "reshape",
    "scalar",
    "select",
    "set_max_nreg",
    "store",
    "store_var",
    "stores_into",
    "subscript",
    "symbolic_dims",
    "sync_threads",
    "thread_binding",
    "thread_extent",
    "tilelang_scope",
    "truth",
    "unroll_hints",
    "use_swizzle",
    "var_value",
    "view",
]
