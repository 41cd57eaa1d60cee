"""The cpu backend: tile IR -> `tile-to-cpu` -> LLVM's JIT -> a C-interface call."""
