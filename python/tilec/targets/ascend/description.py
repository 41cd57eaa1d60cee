"""The ascend target's description: what a tile program may say on the NPU.

Every scope exists here: the portable ones are placed into L1, L0A, L0B, L0C or UB by the
lowering, the Ascend buffer scopes name one directly. A block is one AI core (or vector
core), so threads are only recorded, and the grid is linearized and looped over the cores.
"""

from __future__ import annotations

from dataclasses import dataclass

from tilec.dialects.tile import Scope
from tilec.targets.ascend.profiles import PROFILE_910B, PROFILES, Profile
from tilec.targets.description import FP8_TYPES, TargetDescription

_BUFFER = {Scope.l1: "l1", Scope.l0a: "l0a", Scope.l0b: "l0b", Scope.l0c: "l0c", Scope.ub: "ub"}


@dataclass(frozen=True)
class AscendTarget(TargetDescription):
    name = "ascend"
    variants = tuple(PROFILES)

    profile: Profile = PROFILE_910B
    """The architecture profile of the variant: every size and rate the passes,
    the emitter and the simulator read."""

    @classmethod
    def create(cls, variant: str) -> AscendTarget:
        profile = PROFILES[variant]
        # fp8 tensors are bytes on every profile: where the cube and the vector Cast take no
        # fp8 (the 910b), tile-ascend-widen-fp8 converts them on the vector cores
        return cls(
            variant,
            scopes=frozenset(Scope),
            element_types=frozenset({"i1", "f16", "bf16", "f32", "i8", "i16", "i32", "i64"}
                                    | FP8_TYPES),
            tile_bytes={
                scope: profile.capacity[space] - profile.reserved.get(space, 0)
                for scope, space in _BUFFER.items()
            },
            profile=profile,
        )
