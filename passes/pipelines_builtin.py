"""Named pipelines of target-neutral passes (each target registers its own
`tile-to-<target>` in its conversion folder)."""

from tilec.passes.registry import register_pipeline

register_pipeline(
    "tile-cleanup",
    "Verify kernel structure, canonicalize tile ops, then upstream canonicalize and cse",
    lambda: "tile-verify-kernels,tile-canonicalize-ops,canonicalize,cse",
)
