"""The `target` option of every pass that depends on the target it lowers for.

One spelling for one fact: a pass takes the target spec (`target=ascend:950`,
`target=cuda:sm_90a`, `target=cpu:avx512`) that `tilec.targets.get_target` reads, and
reads what it needs from the description (`target_of(AscendTarget, self.target).profile`),
never a variant name of its own (a profile, an arch). A spec of another target or an
unknown variant is an option error that lists the candidates.
"""

from __future__ import annotations

from tilec.passes.registry import option
from tilec.targets import TargetDescription, target_of


def target_option(kind: type[TargetDescription], help_text: str = "") -> str:
    """The `target` option of a pass for `kind` targets; default: its first variant."""
    specs = ", ".join(f"{kind.name}:{variant}" for variant in kind.variants)
    return option(f"{kind.name}:{kind.variants[0]}",
                  help_text or f"the {kind.name} target ({specs})",
                  lambda text: target_of(kind, text))
