"""Compiling and running tile kernels: `compile`, `jit` and what they return.

`compile` lowers a kernel through the `tile-to-cpu` pipeline and JIT-compiles
it with MLIR's ExecutionEngine; `jit` specializes a kernel on the shapes it
is called with and keeps the results in memory and on disk.
"""

from tilec.runtime.compiler import CompiledKernel, compile
from tilec.runtime.jit import JitKernel, jit
from tilec.runtime.signature import ArgumentError

__all__ = ["ArgumentError", "CompiledKernel", "JitKernel", "compile", "jit"]
