"""Imports every pass module so that each registers itself."""

from tilec.passes import (  # noqa: F401
    canonicalize_ops,
    guard_accesses,
    pipelines_builtin,
    promote_scalar_vars,
    verify_kernels,
    widen_bools,
)
from tilec.passes.conversion import tile_to_ascend, tile_to_cuda  # noqa: F401
from tilec.passes.conversion.tile_to_cpu import (  # noqa: F401
    convert_tile_to_cpu,
    emulate_fp8,
    erase_scopes,
    expand_exp,
    forward_copies,
    guard_division,
    hoist_allocas,
    inline_core_scopes,
    outline_gemms,
    pipelines,
    prefetch_copies,
)
