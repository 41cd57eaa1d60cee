"""The Ascend machine as the simulator, the sync pass, the cost model and the emitter see it.

One record of the rules that are not sizes or rates (those are in `profiles`):
the pipes and which of them the hardware orders, the pipe of every data path,
the pipes of each kind of core, and what the block-index intrinsics return on
each kind of core. Every rule names the vendor source it comes from: paths are
in the public AscendC devkit (`asc-devkit`), docs in `docs/zh/api/SIMD-API/`.
Where the vendor documents no difference between arch 2201 (910b) and 3510
(950), both profiles follow the same rule.
"""

from __future__ import annotations

from types import MappingProxyType

from tilec.targets.ascend.profiles import Profile

PIPES = ("s", "v", "m", "mte1", "mte2", "mte3", "fix")
"""The pipes of a core, in the order of the dialect's `ascend::Pipe` enum (`all` excluded)."""
S, V, M, MTE1, MTE2, MTE3, FIX = range(len(PIPES))
PIPE_NAMES = tuple(name.upper() for name in PIPES)
PIPE_IDS = {name: index for index, name in enumerate(PIPES)}

PIPES_OF_CORE = MappingProxyType({"aic": frozenset({S, M, MTE1, MTE2, MTE3, FIX}),
                                  "aiv": frozenset({S, V, MTE2, MTE3})})
"""The pipes each kind of core has."""

COPY_PIPES = MappingProxyType({
    ("gm", "ub"): MTE2, ("gm", "l1"): MTE2, ("ub", "gm"): MTE3, ("ub", "ub"): V,
    ("l1", "ub"): MTE3, ("ub", "l1"): MTE3})
"""The pipe of `ascend.copy` by (source space, destination space), as in AscendOps.td
(`核内同步能力概述.md`: MTE2 GM->L1/UB, MTE3 UB->GM; the 950's L1 <-> UB moves are MTE3)."""

# -- ordering within one pipe ----------------------------------------------------------

# 核内同步能力概述.md: "within one pipe instructions execute in order, but that does not mean
# the previous one has finished when the next one starts"; which pipes the hardware does
# order is a profile's `ordered_pipes`. On every other pipe two instructions that touch a
# common byte, one of them writing it, race unless a `pipe_barrier` of that pipe or
# `pipe_barrier all` comes between them. A `set_flag` does not order them: it "only sets
# the hardware flag and does not block the next instruction of the source pipe"
# (SetFlag-WaitFlag(ISASI).md).

MMAD_SELF_ORDERED_FRACTALS = 10
"""Mmad.md (ISASI, 同步优化说明): two Mmads accumulating into one L0C need
`PipeBarrier<PIPE_M>` when (m / 16) * (n / 16) < 10; above that the hardware
scheduler resolves the write -> read dependency on C itself."""


def ordered_pipes(profile: Profile, core_kind: str) -> frozenset[int]:
    """The pipes whose dependent instructions the hardware orders on this kind of core
    (`mix`: the body outside the core regions, which either kind runs)."""
    kinds = ("aic", "aiv") if core_kind == "mix" else (core_kind,)
    names = frozenset.intersection(*(profile.ordered_pipes[kind] for kind in kinds))
    return frozenset(PIPE_IDS[name] for name in names)


def mmad_orders_itself(m: int, n: int) -> bool:
    """Whether an Mmad of this m x n waits for the earlier Mmads writing its C by itself."""
    return (m // 16) * (n // 16) >= MMAD_SELF_ORDERED_FRACTALS


# -- block indices ---------------------------------------------------------------------

TASK_RATIO = MappingProxyType({"aic": 1, "aiv": 2})
"""`GetTaskRatio()` of each kind of core in a `MIX_AIC_1_2` kernel (GetTaskRatio.md);
1 on both kinds of an AIC-only or AIV-only kernel."""


def hardware_block_idx(kernel_kind: str, core_kind: str, block: int, sub: int) -> int:
    """What `GetBlockIdx()` returns on a core that runs logical block `block`.

    impl/basic_api/dav_c220/kernel_operator_sys_var_impl.h (and dav_3510's):
    on an AIV, `get_block_idx() * GetTaskRation() + get_subblockid()`, on an AIC
    `get_block_idx()`. In a mix kernel an AIV's index is therefore 2 * block + sub,
    in [0, 2 * numBlocks); `GetBlockNum()` is numBlocks on both kinds."""
    if kernel_kind == "mix" and core_kind == "aiv":
        return block * TASK_RATIO["aiv"] + sub
    return block


def logical_block(kernel_kind: str, core_kind: str, block_idx: int) -> int:
    """The AIC's block that the core with hardware index `block_idx` works for: the
    inverse the emitter writes as `GetBlockIdx() / GetTaskRatio()`."""
    ratio = TASK_RATIO[core_kind] if kernel_kind == "mix" else 1
    return block_idx // ratio
