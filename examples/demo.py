"""A tour of tilec as it stands: a DSL GEMM compiled and run on the cpu
target, a tile kernel built op by op from Python, passes over the GEMM
example in the tile dialect, and an Ascend kernel simulated with race
checking.

Run with `make demo` (or `python examples/demo.py` inside the venv).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from mlir.dialects import arith, func, memref

from tilec import ir
from tilec.dialects import tile
from tilec.passes import run_pipeline

HERE = Path(__file__).resolve().parent
# The hand-written, double-buffered Ascend kernel that the simulator tests use.
ASCEND_VADD = HERE.parent / "test" / "Simulator" / "Inputs" / "vadd-double-buffer.mlir"
TILE = 256


def build_scale_kernel() -> ir.Module:
    """y = 2 * x in tiles of 256 elements, built op by op with the generated builders."""
    f32, index = ir.F32Type.get(), ir.IndexType.get()
    vector = tile.memref_type([ir.ShapedType.get_dynamic_size()], f32)
    local = tile.memref_type([TILE], f32, "local")
    module = ir.Module.create()
    with ir.InsertionPoint(module.body):
        fn = func.FuncOp("scale", ir.FunctionType.get([vector, vector, index], []))
        x, y, blocks = fn.add_entry_block().arguments
        with ir.InsertionPoint(fn.entry_block):
            kernel = tile.KernelOp([blocks], 128)
            (bx,) = kernel.region.blocks.append(index).arguments
            with ir.InsertionPoint(kernel.region.blocks[0]):
                zero = arith.constant(index, 0)
                start = arith.muli(bx, arith.constant(index, TILE))
                buf = tile.alloc(local)
                tile.copy(x, [start], buf, [zero])
                body = tile.ParallelOp([TILE])
                (i,) = body.region.blocks.append(index).arguments
                with ir.InsertionPoint(body.region.blocks[0]):
                    value = memref.load(buf, [i])
                    memref.store(arith.mulf(value, arith.constant(f32, 2.0)), buf, [i])
                    tile.yield_()
                tile.copy(buf, [zero], y, [start])
                tile.yield_()
            func.ReturnOp([])
    module.operation.verify()
    return module


def run_dsl_gemm() -> float:
    """examples/gemm.py's f16 GEMM + ReLU on a ragged shape, against numpy."""
    sys.path.insert(0, str(HERE))
    from gemm import matmul

    import tilec

    m, n, k = 300, 200, 100
    kernel = tilec.compile(matmul(m, n, k, in_dtype="float16", relu=True))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    kernel(a, b, c)
    expected = np.maximum(a.astype(np.float32) @ b.astype(np.float32), 0)
    error = float(np.abs(c - expected).max())
    print(f"f16 GEMM + ReLU {m}x{n}x{k} on cpu: compiled in {kernel.compile_seconds:.2f} s, "
          f"{len(kernel.stages())} stages, max error vs numpy {error:.2e}")
    return error


def main() -> int:
    print("== 1. A DSL kernel on the cpu target ==")
    gemm_error = run_dsl_gemm()

    with ir.make_context(), ir.Location.unknown():
        print("== 2. A kernel built op by op from Python ==")
        print(build_scale_kernel())

        print("== 3. examples/gemm.mlir through tile-verify-kernels and tile-cleanup ==")
        gemm = ir.parse_module((HERE / "gemm.mlir").read_text(), "examples/gemm.mlir")
        run_pipeline(gemm, "tile-verify-kernels{target=cuda},tile-cleanup", timing=True)
        print(gemm)

    print("== 4. An Ascend vector add, simulated ==")
    from tilec.sim import simulate

    n = 1000
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    y = rng.standard_normal(n, dtype=np.float32)
    z = np.zeros(n, dtype=np.float32)
    result = simulate(
        ASCEND_VADD, {"x": x, "y": y, "z": z, "n": n}, profile="910b", block_dim=4
    )
    print(result.report())
    error = float(np.max(np.abs(result.outputs["z"] - (x + y))))
    print(f"max |z - (x + y)| = {error:.3g}")
    return 0 if error == 0.0 and gemm_error < 1e-3 else 1


if __name__ == "__main__":
    sys.exit(main())
