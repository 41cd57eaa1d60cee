"""tilelang-ascend's target strings, as its users pass them to `tilelang.jit` and
`tilelang.compile`, read as tilec's targets.

Upstream (tilelang/engine/lower.py, tilelang/jit/adapter/libgen.py) `target`
picks the NPU code generator: "auto" (its default) and "ascendc" emit AscendC
C++, "pto" emits the PTO tile ISA (src/target/codegen_ascend_pto.cc). tilec
takes:

- "auto": tilec's choice of target, as without one (`$TILEC_TARGET`, else the
  best target present; `tilec.backends`);
- "ascendc": the ascend target (AscendC C++, run in the simulator), its
  default profile;
- "pto": an error at the user's call; tilec has no PTO code generator, and its
  ascend target emits AscendC for the same kernels.

Every other string is one of tilec's target specs ("cpu", "ascend:950", ...).
"""

from __future__ import annotations

from tilec.language.errors import DSLError
from tilec.language.source import caller_loc

ALIASES = {"auto": None, "ascendc": "ascend"}
"""tilelang-ascend's target strings that name one of tilec's (None: tilec's choice)."""


def tilec_target(target: str | None) -> str | None:
    """The tilec target spec that `target` (tilelang-ascend's or tilec's) names."""
    if target == "pto":
        raise DSLError('target="pto" asks for tilelang-ascend\'s PTO code generator, which '
                       'tilec does not have; target="ascend" (or "ascendc") compiles the kernel '
                       "to AscendC", caller_loc())
    return ALIASES.get(target, target) if isinstance(target, str) else target
