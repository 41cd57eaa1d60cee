"""The `tile-to-ascend` pipeline: tile IR to the `ascend` IR that the simulator runs."""

from __future__ import annotations

from tilec.passes.registry import register_pipeline
from tilec.targets import target_of
from tilec.targets.ascend import AscendTarget


def tile_to_ascend(target: AscendTarget, max_stages: int = 0, sync: str = "flags",
                   skew: int = 0, auto_sync: bool = False) -> str:
    """The pipeline text for `target` (an ascend profile).

    Element accesses to global tensors are guarded on tile IR, as on cpu:
    the lowering vectorizes affine ones into DMA copies (which pad and drop
    at the edges by definition) and keeps the guards of the rest.
    Placement comes next because every op lowering reads where its tiles
    live, then kernels that need both kinds of core are split into the AIC
    and AIV regions of a mix kernel (still on tile IR, so each side lowers
    as a kernel of its own kind), and the two AIVs of an AI core share the
    blocks of `threads=2` vector-only kernels; multi-buffering works on the
    lowered loops (it needs to know which buffers an iteration rewrites),
    memory planning on the final set of buffers, and synchronization last,
    on the exact byte ranges the plan gave. `max_stages` caps
    multi-buffering (0: as the kernel asks); the backend lowers it when the
    sync pass runs out of event ids. `sync` is
    the sync pass's strategy ("barrier": the PIPE_ALL-style baseline).
    `skew` is how many iterations the cores of a mix kernel run ahead of
    each other (0: split-cores' default); the backend lowers it too.
    Expert kernels (`T.Scope` regions, the author's flags) are split by their
    scopes after split-cores has left them alone (it finds nothing to hand
    over in them); with `auto_sync` false their flags stay the author's, and
    only the steps of each DSL op are ordered (`tile-ascend-sync-within-ops`:
    the sync pass skips such kernels).
    """
    spec = f"target={target.spec}"
    cap = f" max-stages={max_stages}" if max_stages else ""
    ahead = f" skew={skew}" if skew else ""
    return ",".join([
        f"tile-verify-kernels{{target={target.spec}}}",
        "tile-canonicalize-ops",
        "tile-guard-accesses",
        "tile-widen-bools{conversions=false}",
        "tile-promote-scalar-vars",
        "tile-ascend-private-atomics",
        f"tile-ascend-widen-fp8{{{spec}}}",
        f"tile-ascend-combine-cores{{{spec}}}",
        "tile-ascend-place-tiles",
        f"tile-ascend-k-slabs{{{spec}}}",
        "tile-ascend-split-aivs",
        f"tile-ascend-split-cores{{{spec}{ahead}}}",
        f"tile-ascend-split-scopes{{auto-sync={'true' if auto_sync else 'false'}}}",
        f"convert-tile-to-ascend{{{spec}}}",
        "canonicalize",
        "cse",
        f"tile-ascend-multi-buffer{{{spec}{cap}}}",
        "tile-ascend-check-addresses",
        f"tile-ascend-plan-memory{{{spec}}}",
        "tile-ascend-sync-within-ops",
        f"tile-ascend-inject-sync{{{spec} strategy={sync}}}",
    ])


def _build(target: str = AscendTarget.name, max_stages: str = "0",
           sync: str = "flags", skew: str = "0", auto_sync: str = "false") -> str:
    if not max_stages.isdigit():
        raise ValueError(f"max-stages must be a non-negative integer, not '{max_stages}'")
    if skew not in ("0", "1", "2"):
        raise ValueError(f"skew must be 1 or 2, not '{skew}'")
    if auto_sync not in ("true", "false"):
        raise ValueError(f"auto-sync must be true or false, not '{auto_sync}'")
    return tile_to_ascend(target_of(AscendTarget, target), int(max_stages), sync, int(skew),
                          auto_sync == "true")


register_pipeline(
    "tile-to-ascend",
    "Lower tile kernels to the ascend dialect (placed, multi-buffered, planned, synchronized)",
    _build,
    {"target": "the ascend target: ascend:910b (default) or ascend:950",
     "max-stages": "cap on the slots of multi-buffered loops (0: as the kernel asks)",
     "sync": "flags (default) or barrier (a PIPE_ALL barrier between dependent ops)",
     "skew": "iterations the cores of a mix kernel run ahead of each other: 1 or 2 (default)",
     "auto-sync": "true: tilec's flags replace an expert kernel's own (TL_ASCEND_AUTO_SYNC); "
                  "false (default): they stay as written"},
)
