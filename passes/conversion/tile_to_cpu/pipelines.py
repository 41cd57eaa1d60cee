"""The `tile-to-cpu` pipeline: tile IR to the LLVM dialect for one cpu target."""

from __future__ import annotations

from tilec.passes.conversion.lowering import Phase
from tilec.passes.conversion.tile_to_cpu.convert_tile_to_cpu import ConvertTileToCpuPass
from tilec.passes.registry import register_pipeline
from tilec.targets import target_of
from tilec.targets.cpu import CpuTarget


def _op_stages() -> tuple[str, ...]:
    """The `ops` of each convert-tile-to-cpu run: one run per phase of the cpu
    lowerings, so each op's lowering is a stage of its own (`kernel.ir(...)`,
    --mlir-print-ir-after-all), and one last run for the structure around the
    ops (loops, barriers, tiles and the grid, from `Phase.LOOPS` on), which
    shows little apart. The pass orders the ops of one run itself."""
    runs = [(phase, ",".join(names)) for phase, names in ConvertTileToCpuPass.declared_phases()]
    structure = ",".join(ops for phase, ops in runs if phase >= Phase.LOOPS)
    return (*(ops for phase, ops in runs if phase < Phase.LOOPS), structure)


OP_STAGES = _op_stages()


def tile_to_cpu(target: CpuTarget) -> str:
    """The pipeline text for `target`.

    After the tile ops, upstream MLIR takes scf/vector/memref to the LLVM
    dialect. The block grid (an scf.parallel) is split over the async
    runtime's worker threads, one task per core; with min-task-size=1 even
    a grid of two blocks uses both cores. async-parallel-for turns the block
    loop into an scf.for inside an outlined function, so
    tile-cpu-hoist-allocas then moves the tiles to that function's entry (one
    allocation per task, not one per block). bf16 casts are expanded to
    integer code because x86 has no bf16 conversion instructions and the JIT
    would need compiler-rt for them. Bools become bytes on tile IR, before
    the tile ops are lowered (tile-widen-bools); 8-bit floats are
    computed on in f32 (their math extended before tile-cpu-expand-exp, so
    an f8 exp is the polynomial too) and stored as bytes once no tile op is
    left (tile-cpu-emulate-fp8). `lower-affine` lowers the offsets of subviews
    (a thread's row of a per-thread tile, `tilec.language.threads`). A
    tilelang-ascend expert kernel of one kind of core runs as sequential code
    (tile-cpu-inline-core-scopes). A pipelined loop prefetches the global
    reads of its next iteration, spread over the loops of its lowered GEMM
    (tile-cpu-prefetch-copies, after the tile.gemm stage). The x86vector ops
    of a bf16 gemm on AVX512-BF16 (vdpbf16ps) lower with the vector ops.
    A gemm whose operand is a whole-tile copy read by nothing else reads the
    copied tile itself (tile-cpu-forward-copies). A function with many
    gemms calls one shared function per distinct gemm instead of holding
    them all (tile-cpu-outline-gemms): LLVM's loop passes take time
    quadratic in a function's length.
    """
    variant = "" if target.variant == CpuTarget.variants[0] else f" target={target.spec}"
    after_gemm = OP_STAGES.index("tile.gemm") + 1
    tile_passes = [
        f"tile-verify-kernels{{target={target.spec}}}",
        "tile-cpu-inline-core-scopes",
        "tile-canonicalize-ops",
        "tile-guard-accesses",
        "tile-widen-bools",
        "tile-cpu-forward-copies",
        "tile-cpu-outline-gemms",
        *(f"convert-tile-to-cpu{{ops={ops}{variant}}}" for ops in OP_STAGES[:after_gemm]),
        "tile-cpu-prefetch-copies",
        *(f"convert-tile-to-cpu{{ops={ops}{variant}}}" for ops in OP_STAGES[after_gemm:]),
        "math-extend-to-supported-types{extra-types=f16,bf16 target-type=f32}",
        "tile-cpu-expand-exp",
        "tile-cpu-guard-division",
        "arith-emulate-unsupported-floats{source-types=f8E4M3FN,f8E5M2 target-type=f32}",
        "tile-cpu-emulate-fp8",
        "tile-cpu-erase-scopes",
        "canonicalize",
        "cse",
    ]
    to_llvm = [
        f"async-parallel-for{{async-dispatch=true num-workers={target.cores} min-task-size=1}}",
        "tile-cpu-hoist-allocas",
        "async-to-async-runtime",
        "async-runtime-ref-counting",
        "async-runtime-ref-counting-opt",
        "convert-async-to-llvm",
        "arith-expand{include-bf16=true}",
        "convert-scf-to-cf",
        "convert-vector-to-llvm{enable-x86vector=true}",
        "expand-strided-metadata",
        "lower-affine",
        "finalize-memref-to-llvm",
        "convert-math-to-llvm",
        "convert-arith-to-llvm",
        # The compare-and-swap loop of a memref.generic_atomic_rmw (an 8-bit float atomic
        # add) is only lowered once its body is LLVM.
        "finalize-memref-to-llvm",
        "convert-func-to-llvm",
        "convert-cf-to-llvm",
        "reconcile-unrealized-casts",
    ]
    return ",".join(tile_passes + to_llvm)


register_pipeline(
    "tile-to-cpu",
    "Lower tile kernels to the LLVM dialect for the cpu target (multi-core via the async runtime)",
    lambda target=CpuTarget.name: tile_to_cpu(target_of(CpuTarget, target)),
    {"target": "the cpu target: cpu:avx2 (default) or cpu:avx512"},
)
