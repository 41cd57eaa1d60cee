"""The cpu conversion: tile ops to scf/memref/vector code, then LLVM.

Passes at the top, one per file: the conversion that applies the op lowerings of
`ops/` (`convert_tile_to_cpu.py`), the transforms only the cpu needs
(`tile-cpu-expand-exp`, `tile-cpu-guard-division`, `tile-cpu-hoist-allocas`,
`tile-cpu-erase-scopes`, `tile-cpu-forward-copies`, `tile-cpu-outline-gemms`, ...)
and the `tile-to-cpu` pipeline (`pipelines.py`). Every module is imported here,
so each registers its passes.
"""

from tilec.passes.registry import import_package

import_package(__name__)
