"""Imports every pass module so that each registers itself."""

from tilec.passes import canonicalize_ops, pipelines_builtin, verify_kernels  # noqa: F401
