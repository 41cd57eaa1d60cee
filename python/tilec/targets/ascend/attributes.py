"""The discardable attributes that the ascend passes, the simulator, the driver and the
AscendC emitter share: one name each, with what it carries and which pass writes it."""

KERNEL = "ascend.kernel"
"""On a kernel function: the kind of core it runs on, `#ascend.core<aiv|aic|mix>`
(convert-tile-to-ascend)."""
OFFSET = "ascend.offset"
"""On a `memref.alloc` of on-chip memory: its byte offset there, i64 (tile-ascend-plan-memory)."""
GRID = "ascend.grid"
"""On a kernel function whose grid is static: its number of blocks, i64, so a launch
needs no more cores than that (convert-tile-to-ascend)."""
WORKSPACE = "ascend.workspace"
"""On a GM argument the kernel's parameters do not have: a workspace of that many rows per
AI core, i64 (tile-ascend-split-cores)."""
SCRATCH = "ascend.scratch"
"""On a GM argument: a global scratch buffer, the size of each of its dims
(convert-tile-to-ascend's global_scratch)."""
CORE_REGION = "ascend.core_region"
"""On an `scf.execute_region`: the kind of core (`#ascend.core<aic|aiv>`) its body runs on,
until it becomes an `ascend.core` region (tile-ascend-split-cores)."""
GUARDS = "ascend.guards"
"""On a cross-core flag op: the number of the GM workspace argument (or the [lo, hi) bytes
of a ring in UB) whose bytes the flag hands between the cores (tile-ascend-split-cores)."""
