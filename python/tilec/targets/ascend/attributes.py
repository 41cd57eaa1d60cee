"""The discardable attributes that the ascend passes, the simulator, the driver and the
AscendC emitter share: one name each, with what it carries and which pass writes it, and
the readers that check them where they are read."""

from __future__ import annotations

from mlir import ir

from tilec.diagnostics import CompileError, error
from tilec.targets.ascend.profiles import Profile

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
of a ring in UB) whose bytes the flag hands between the cores (tile-ascend-split-cores);
an array of numbers (or of [lo, hi) pairs) where rings share the flag."""

AUTHOR_SYNC = "ascend.author_sync"
"""On a kernel function whose pipes its author synchronizes (unit): tile-ascend-inject-sync
leaves it alone and tile-ascend-sync-within-ops orders the steps of each DSL op
(tile-ascend-split-scopes)."""

AUTO_SYNC = "ascend.auto_sync"
"""On a kernel function whose author asked for tilec's synchronization with
`T.func_attr({"enable_auto_sync": True})` (unit): tile-ascend-split-scopes replaces the
author's flags and barriers, as with the pipeline's `auto-sync` (the DSL's `T.func_attr`)."""

VID = "ascend.vid_dim"
"""On a `tile.kernel` with `T.Scope` regions: which of its grid dims is tilelang-ascend's
`vid`, the sub-block index of an AIV, i64 (the DSL's `T.Kernel`; tile-ascend-split-scopes
makes it `ascend.sub_block_idx`)."""

COMBINE = "ascend.combine_cores"
"""On a `tile.kernel` of `T.Kernel(n, is_npu=True) as (cid, vid)` (unit) whose cube work and
vector work hand data through global tensors: tilelang-ascend's AUTO_CV_COMBINE, the body
read as the cube's program and the AIVs' (the DSL's `T.Kernel`; tile-ascend-combine-cores
splits it)."""

AIV_SPLIT = "ascend.aiv_split"
"""On a `tile.kernel` of `T.Kernel(n, is_npu=True, threads=2)` (unit): the two AIVs of an AI
core share the vector work of each block (the DSL's `T.Kernel`; tile-ascend-split-aivs)."""

SELF_MANAGED_UB = "ascend.self_managed_ub"
"""On a kernel function whose UB its author manages (expert-mode `T.Scope` programs, unit)
and whose AscendC makes no call that takes AscendC's temporaries: it may plan those bytes
too (`usable_bytes`; tile-ascend-split-scopes marks it, tile-ascend-check-addresses unmarks
a function with such a call)."""


def usable_bytes(profile: Profile, space: str, func: ir.Operation | ir.OpView) -> int:
    """The bytes of `space` the kernel function `func` may plan (`Profile.usable_bytes`)."""
    return profile.usable_bytes(space, api_temporaries=SELF_MANAGED_UB not in func.attributes)


class InvalidAttribute(CompileError):
    """A discardable attribute that is not of its kind (hand-written or damaged IR), at
    the op that carries it; passes report it there, the emitter and the driver raise it."""

    def __init__(self, owner: ir.Operation | ir.OpView, message: str):
        super().__init__(error(message, owner.location).diagnostics)
        self.owner = owner
        self.message = message


def integer(owner: ir.Operation | ir.OpView, name: str,
            attributes: ir.DictAttr | None = None) -> int | None:
    """The integer attribute `name` of `owner` (or of the argument attributes
    `attributes` of it): None when absent, an `InvalidAttribute` when not an integer."""
    found = owner.attributes if attributes is None else attributes
    if name not in found:
        return None
    value = found[name]
    if not isinstance(value, ir.IntegerAttr) or isinstance(value, ir.BoolAttr):
        raise InvalidAttribute(owner, f"{name} must be an integer, not {value}")
    return ir.IntegerAttr(value).value


def text(owner: ir.Operation | ir.OpView, name: str,
         attributes: ir.DictAttr | None = None) -> str | None:
    """The string attribute `name` of `owner` (or of its argument attributes
    `attributes`): None when absent, an `InvalidAttribute` when not a string."""
    found = owner.attributes if attributes is None else attributes
    if name not in found:
        return None
    value = found[name]
    if not isinstance(value, ir.StringAttr):
        raise InvalidAttribute(owner, f"{name} must be a string, not {value}")
    return ir.StringAttr(value).value
