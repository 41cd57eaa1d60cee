"""The ascend target: the Ascend-like NPU of ASCEND.md, by architecture profile.

Its sizes and rates are the profiles (`profiles`), its rules the machine model
(`machine`), the attribute names its passes share `attributes`, and what a tile
program may say the description (`description`). `TARGET` is its manifest: lowered
by `tile-to-ascend`, run in tilec's simulator, emitted as AscendC C++.
"""

from __future__ import annotations

from tilec.targets.ascend.description import AscendTarget
from tilec.targets.manifest import Emitter, Target

__all__ = ["TARGET", "AscendTarget"]

TARGET = Target(
    description=AscendTarget,
    backend="tilec.backends.ascend.compiler:AscendBackend",
    passes="tilec.passes.conversion.tile_to_ascend",
    pipeline="tile-to-ascend",
    emitters=(
        Emitter("ascendc", "tilec.backends.ascend.compiler:emit_ascendc",
                "the AscendC C++ of the final ascend IR (after --tile-to-ascend)",
                variants=True),
    ),
)
