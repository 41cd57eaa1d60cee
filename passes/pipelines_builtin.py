"""Named pipelines built from registered passes."""

from tilec.passes.registry import register_pipeline

register_pipeline(
    "tile-cleanup",
    "Verify kernel structure, canonicalize tile ops, then upstream canonicalize and cse",
    lambda: "tile-verify-kernels,tile-canonicalize-ops,canonicalize,cse",
)

# The tile lowerings, in dependency order: gemm may create tiles
# (tile.alloc) that the kernel lowering then places; scopes go last, once no
# tile op is left to need them.
CPU_TILE_LOWERING = (
    "tile-verify-kernels{target=cpu}",
    "tile-canonicalize-ops",
    "tile-lower-gemm",
    "tile-lower-copies",
    "tile-lower-atomics",
    "tile-lower-reductions",
    "tile-lower-fills",
    "tile-lower-parallel",
    "tile-expand-exp",
    "tile-lower-kernels",
    "tile-erase-scopes",
    "canonicalize",
    "cse",
)

# Upstream MLIR from scf/vector/memref to the LLVM dialect. The block grid
# (an scf.parallel) is split over the async runtime's worker threads; with
# min-task-size=1 even a grid of two blocks uses both cores. bf16 casts
# are expanded to integer code because x86 has no bf16 conversion
# instructions and the JIT would need compiler-rt for them.
# async-parallel-for turns the block loop into an scf.for inside an outlined
# function, so tile-hoist-allocas then moves the tiles to that function's
# entry (one allocation per task, not one per block).
CPU_TO_LLVM = (
    "async-parallel-for{async-dispatch=true num-workers=2 min-task-size=1}",
    "tile-hoist-allocas",
    "async-to-async-runtime",
    "async-runtime-ref-counting",
    "async-runtime-ref-counting-opt",
    "convert-async-to-llvm",
    "arith-expand{include-bf16=true}",
    "convert-scf-to-cf",
    "convert-vector-to-llvm",
    "expand-strided-metadata",
    "finalize-memref-to-llvm",
    "convert-math-to-llvm",
    "convert-arith-to-llvm",
    "convert-func-to-llvm",
    "convert-cf-to-llvm",
    "reconcile-unrealized-casts",
)

register_pipeline(
    "tile-to-cpu",
    "Lower tile kernels to the LLVM dialect for the cpu target (multi-core via the async runtime)",
    lambda: ",".join(CPU_TILE_LOWERING + CPU_TO_LLVM),
)
