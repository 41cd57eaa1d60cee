"""The cpu conversion: tile ops to scf/memref/vector code, then LLVM.

One module per tile op lowering (`gemm.py`, `copy.py`, ...), the pass that
applies them (`convert_tile_to_cpu.py`), the transforms only the cpu needs
(`tile-cpu-expand-exp`, `tile-cpu-guard-division`, `tile-cpu-hoist-allocas`,
`tile-cpu-erase-scopes`, `tile-cpu-forward-copies`, `tile-cpu-outline-gemms`, ...) and
the `tile-to-cpu` pipeline (`pipelines.py`).
"""
