"""Ascend architecture profiles: every rate and size of the NPU, as data.

The ascend target description and the simulator both read them.

Public sources disagree on many of these figures (see /work/shared/ASCEND.md),
so none of them is a constant in the simulator's code: a profile is a frozen
dataclass, and `dataclasses.replace(get_profile("910b"), ...)` makes a variant
for a what-if question or a test that wants round numbers.

Where sources give a range the profile takes the value that does not reject a
kernel that runs on hardware (capacities: upper bound), and where there is no
public figure at all (per-instruction start-up cycles, cross-core latency) the
value is an order-of-magnitude guess, documented as such.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType

KIB = 1024
MIB = 1024 * KIB


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclasses.dataclass(frozen=True)
class Profile:
    """Sizes, rates and costs of one Ascend architecture.

    Bandwidths are bytes per cycle per core. A GM read is served at
    `l2_read_bytes_per_cycle` when its bytes are resident in L2 and at the
    core's share of HBM bandwidth otherwise; GM writes go to L2.
    """

    name: str
    arch: str
    clock_ghz: float
    aic_cores: int
    aiv_per_aic: int
    capacity: Mapping[str, int]
    """Bytes per memory space of one core (UB is per AIV)."""
    alignment: Mapping[str, int]
    """Start-address alignment of a buffer in each memory space."""
    reserved: Mapping[str, int]
    """Bytes at the top of a memory space that the runtime keeps for itself."""
    cube_macs_per_cycle: Mapping[str, int]
    """Multiply-accumulates per cycle of the cube by operand element type; a
    type absent here is not supported by the cube of this architecture."""
    vector_bytes_per_repeat: int
    vector_max_repeats: int
    """Repeats one vector instruction can do; longer operations are split
    into several instructions, each paying the start-up cost."""
    vector_cycles_per_repeat: int
    bandwidth: Mapping[str, int]
    """On-chip paths (`src->dst`), bytes per cycle."""
    hbm_bytes_per_cycle: int
    l2_bytes: int
    l2_read_bytes_per_cycle: int
    l2_write_bytes_per_cycle: int
    l2_line_bytes: int
    dma_burst_bytes: int
    dma_unaligned_efficiency: float
    """Share of the GM rate a DMA reaches when its rows are not whole,
    aligned bursts (ASCEND.md: 32 B-aligned transfers reach ~70%)."""
    startup_cycles: Mapping[str, int]
    """Fixed cost of every instruction on a pipe, before its bytes or repeats:
    no public per-instruction latency exists, these are guesses."""
    scalar_local_access_cycles: int
    """A scalar load/store of one UB/L1 element."""
    scalar_gm_access_cycles: int
    """A scalar load/store of one GM element (uncached path)."""
    cross_core_latency_cycles: int
    """From a cross-core set to the waiting core seeing its count (guess)."""
    cross_core_max_pending: int
    cross_core_modes: frozenset[int]
    """Modes of `cross_core_set_flag` (4, AIC <-> one AIV, is new in the 950)."""
    sync_all_cycles: int
    """Cost of a grid barrier once every core has arrived (guess)."""
    copy_paths: frozenset[tuple[str, str]]
    """Legal `ascend.copy` paths (src space, dst space) on this architecture."""
    fixpipe_destinations: frozenset[str]
    """Memory spaces a fixpipe can write on this architecture."""
    ordered_pipes: Mapping[str, frozenset[str]]
    """Per kind of core, the pipes whose dependent instructions the hardware orders, so
    that they need no `PipeBarrier` (`tilec.targets.ascend.machine` has the rule)."""
    flag_event_ids: int = 8
    cross_core_flag_ids: int = 11
    runtime_flags: Mapping[str, tuple[tuple[str, str, int], ...]] = dataclasses.field(
        default_factory=lambda: MappingProxyType({}))
    """Per kind of core, the intra-core flags (source pipe, destination pipe, event id)
    that the AscendC runtime sets before the kernel's first op and waits for after its
    last: they stay set for the whole kernel, so the kernel's own flags avoid them."""

    api_temporaries: Mapping[str, int] = dataclasses.field(
        default_factory=lambda: MappingProxyType({}))
    """Per memory space, the bytes of `reserved` that AscendC's own calls take as
    temporaries: a kernel that manages its memory itself and makes none of those calls
    may use them (`attributes.usable_bytes`)."""

    def macs_per_cycle(self, element_type: str) -> int | None:
        return self.cube_macs_per_cycle.get(element_type)

    def usable_bytes(self, space: str, api_temporaries: bool = True) -> int:
        """The bytes of `space` a kernel may plan; without `api_temporaries`, those of
        AscendC's temporaries too (a kernel that makes none of the calls that take them)."""
        spare = 0 if api_temporaries else self.api_temporaries.get(space, 0)
        return self.capacity[space] - self.reserved.get(space, 0) + spare

    @property
    def aiv_cores(self) -> int:
        return self.aic_cores * self.aiv_per_aic


_COMMON_COPY_PATHS = frozenset({("gm", "ub"), ("ub", "gm"), ("gm", "l1"), ("ub", "ub")})

PROFILE_910B = Profile(
    name="910b",
    arch="dav-c220",
    clock_ghz=1.8,
    aic_cores=24,
    aiv_per_aic=2,
    capacity=_frozen(
        {"l1": 512 * KIB, "l0a": 64 * KIB, "l0b": 64 * KIB, "l0c": 128 * KIB,
         "ub": 192 * KIB, "bt": 1 * KIB, "fb": 7 * KIB}
    ),
    alignment=_frozen(
        {"gm": 1, "l1": 32, "l0a": 512, "l0b": 512, "l0c": 512, "ub": 32, "bt": 64, "fb": 64}
    ),
    # AscendC on arch 2201 gives kernels 184 KiB of UB (TOTAL_VEC_LOCAL_SIZE) and puts the
    # temporaries of its own calls (Select's, for one) at TMP_UB_OFFSET = 184 KiB
    reserved=_frozen({"l1": 256, "ub": 8 * KIB}),
    cube_macs_per_cycle=_frozen({"f16": 4096, "bf16": 4096, "f32": 1024, "i8": 8192}),
    vector_bytes_per_repeat=256,
    vector_max_repeats=255,
    vector_cycles_per_repeat=1,
    bandwidth=_frozen({"l1->l0a": 256, "l1->l0b": 128, "ub->ub": 256, "l0c->l1": 128}),
    hbm_bytes_per_cycle=32,
    l2_bytes=192 * MIB,
    l2_read_bytes_per_cycle=110,
    l2_write_bytes_per_cycle=86,
    l2_line_bytes=512,
    dma_burst_bytes=512,
    dma_unaligned_efficiency=0.7,
    startup_cycles=_frozen(
        {"s": 0, "v": 8, "m": 8, "mte1": 16, "mte2": 64, "mte3": 64, "fix": 32}
    ),
    scalar_local_access_cycles=1,
    scalar_gm_access_cycles=200,
    cross_core_latency_cycles=100,
    cross_core_max_pending=15,
    cross_core_modes=frozenset({0, 1, 2}),
    sync_all_cycles=500,
    copy_paths=_COMMON_COPY_PATHS,
    fixpipe_destinations=frozenset({"gm", "l1"}),
    # PipeBarrier(ISASI).md: only the scalar pipe is ordered by the hardware; the tables of
    # legal sync on 2201 (核内同步能力概述.md) list PipeBarrier<PIPE_M/MTE1/MTE2/MTE3/FIX/V>
    # for dependent instructions of one pipe.
    ordered_pipes=_frozen({"aic": frozenset({"s"}), "aiv": frozenset({"s"})}),
    # impl/basic_api/kernel_tpipe_impl.h, TPipe::Init (__NPU_ARCH__ == 2201, ASCEND_IS_AIC):
    # SetFlag<HardEvent::M_MTE1> on event ids 0, 1 and 2 ("for matmul macro" and bias);
    # TPipe::DestroyWithoutPipeAll waits for the three when the pipe is destroyed.
    runtime_flags=_frozen({"aic": (("m", "mte1", 0), ("m", "mte1", 1), ("m", "mte1", 2))}),
    # impl/basic_api/utils/kernel_utils_constants.h (__NPU_ARCH__ == 2201): TOTAL_UB_SIZE is
    # 192 KiB, and TPipe's UB pool (bufferInitLen, kernel_utils_mode_cpu.h) as much; the 8 KiB
    # above TMP_UB_OFFSET hold the temporaries of Select (dav_c220/kernel_operator_vec_cmpsel_
    # impl.h, GetTemporaryBufferAddr(TMP_UB_OFFSET, ...)), the one tilec-emitted call that
    # takes any: a kernel without it has the whole 192 KiB
    api_temporaries=_frozen({"ub": 8 * KIB}),
)

PROFILE_950 = Profile(
    name="950",
    arch="dav-c310",
    clock_ghz=1.65,
    aic_cores=32,
    aiv_per_aic=2,
    capacity=_frozen(
        {"l1": 512 * KIB, "l0a": 64 * KIB, "l0b": 64 * KIB, "l0c": 256 * KIB,
         "ub": 248 * KIB, "bt": 4 * KIB, "fb": 16 * KIB}
    ),
    alignment=_frozen(
        {"gm": 1, "l1": 32, "l0a": 512, "l0b": 512, "l0c": 512, "ub": 32, "bt": 64, "fb": 128}
    ),
    reserved=_frozen({"l1": 256, "ub": 256}),
    cube_macs_per_cycle=_frozen(
        {"f16": 4096, "bf16": 4096, "f32": 1024, "i8": 8192,
         "f8E4M3FN": 8192, "f8E5M2": 8192}
    ),
    vector_bytes_per_repeat=256,
    vector_max_repeats=255,
    vector_cycles_per_repeat=1,
    bandwidth=_frozen(
        {"l1->l0a": 512, "l1->l0b": 256, "ub->ub": 256,
         "l0c->ub": 128, "l0c->l1": 128, "l1->ub": 128, "ub->l1": 128}
    ),
    # 950DT: ~4 TB/s of HBM shared by 32 cores at 1.65 GHz.
    hbm_bytes_per_cycle=72,
    l2_bytes=128 * MIB,
    l2_read_bytes_per_cycle=110,
    l2_write_bytes_per_cycle=86,
    l2_line_bytes=512,
    dma_burst_bytes=512,
    dma_unaligned_efficiency=0.7,
    startup_cycles=_frozen(
        {"s": 0, "v": 8, "m": 8, "mte1": 16, "mte2": 64, "mte3": 64, "fix": 32}
    ),
    scalar_local_access_cycles=1,
    scalar_gm_access_cycles=200,
    cross_core_latency_cycles=100,
    cross_core_max_pending=15,
    cross_core_modes=frozenset({0, 1, 2, 4}),
    sync_all_cycles=500,
    copy_paths=_COMMON_COPY_PATHS | {("l1", "ub"), ("ub", "l1")},
    fixpipe_destinations=frozenset({"gm", "l1", "ub"}),
    # 关键特性说明.md (核内同步): "for Ascend 950PR/950DT, synchronization between PIPE_V and
    # PIPE_V is guaranteed by hardware"; impl/basic_api/kernel_reg.h makes PipeBarrier<PIPE_V>
    # a no-op on 3510, and PipeBarrier<PIPE_MTE3> a no-op on its AIC.
    ordered_pipes=_frozen({"aic": frozenset({"s", "v", "mte3"}), "aiv": frozenset({"s", "v"})}),
    # impl/basic_api/dav_3510/kernel_tpipe_impl_c310.h: TPipe::Init sets M_MTE1 0, 1 and 2 on
    # the AIC as on 2201, and TPipe::DestroyWithoutPipeAll waits for them
    runtime_flags=PROFILE_910B.runtime_flags,
)

PROFILES: Mapping[str, Profile] = _frozen({"910b": PROFILE_910B, "950": PROFILE_950})


def get_profile(profile: str | Profile) -> Profile:
    """The profile named `profile` (a `Profile` passes through unchanged)."""
    if isinstance(profile, Profile):
        return profile
    try:
        return PROFILES[profile]
    except KeyError:
        known = ", ".join(PROFILES)
        raise ValueError(f"unknown architecture profile '{profile}' (known: {known})") from None
