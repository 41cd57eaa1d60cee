"""Imports every pass module so that each registers itself."""

from tilec.passes import (  # noqa: F401
    canonicalize_ops,
    erase_scopes,
    expand_exp,
    hoist_allocas,
    lower_atomics,
    lower_copies,
    lower_fills,
    lower_gemm,
    lower_kernels,
    lower_parallel,
    lower_reductions,
    pipelines_builtin,
    verify_kernels,
)
