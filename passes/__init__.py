"""tilec's passes: a registry of named Python passes and pipelines.

Every pass lives in its own module (`<verb>_<object>.py`) and registers
itself; `run_pipeline` runs a textual pipeline that may mix them with
upstream MLIR passes.
"""

from tilec.passes.pipeline import parse_pipeline, run_pipeline
from tilec.passes.registry import (
    NamedPipeline,
    Pass,
    PassFailure,
    emit_error,
    lookup,
    option,
    passes,
    pipelines,
    register_pass,
    register_pipeline,
)

__all__ = [
    "NamedPipeline",
    "Pass",
    "PassFailure",
    "emit_error",
    "lookup",
    "option",
    "parse_pipeline",
    "passes",
    "pipelines",
    "register_pass",
    "register_pipeline",
    "run_pipeline",
]
