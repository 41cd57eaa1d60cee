"""The target options passes share: the Ascend profile every ascend pass takes."""

from __future__ import annotations

from tilec.passes.registry import option
from tilec.targets.ascend.profiles import get_profile


def profile_option(help_text: str = "the Ascend architecture profile (910b, 950)") -> str:
    """The `profile` option of every ascend pass, checked against the known profiles."""
    return option("910b", help_text, get_profile)
