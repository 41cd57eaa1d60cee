"""The SIMT emulator (simt.py) with sm_90a's warpgroup MMA, for the Hopper tests.

`wgmma.mma_async` reads its operands from shared memory through 64-bit
matrix descriptors; the emulator decodes each descriptor by the PTX ISA's
rules (9.7.15.5.1.2: start address, leading / stride byte offsets, the
swizzle mode's Swizzle<B, 4, 3> on the shared address) independently of how
the lowering built it, so a wrong descriptor or a writer that stores the
operand differently from what wgmma reads gives wrong numbers. Shared
memory starts at a 1024-byte aligned address 0, as the kernel's dynamic
shared memory does on the GPU (tile-cuda-extern-shared-memory), and a
workgroup memref's aligned pointer is its shared address. A wgmma runs
per warp: warp w of a warpgroup computes rows 16 (w % 4) .. + 15 of the
m64 tile, its lanes holding the D fragment of the PTX ISA (register i of
lane l: row l / 4 + 8 (i % 4 / 2), column 8 (i / 4) + 2 (l % 4) + i % 2).
The copies are done when issued, so fences, commits and waits do nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from mlir import ir
from simt import _BF16, EmulationError, _Compiler, _Ctx, _run_block

_MASK64 = (1 << 64) - 1
_SWIZZLE_BYTES = {0: 0, 1: 128, 2: 64, 3: 32}
_WGMMA_TYPES = {"f16": np.dtype(np.float16), "bf16": _BF16}


def _decode(descriptor: int) -> tuple[int, int, int, int]:
    """(start address, leading byte offset, stride byte offset, swizzle bytes)."""
    value = int(descriptor) & _MASK64
    field = lambda shift: ((value >> shift) & 0x3FFF) << 4  # noqa: E731
    return field(0), field(16), field(32), _SWIZZLE_BYTES[value >> 62]


def _swizzled(address: np.ndarray, swizzle: int) -> np.ndarray:
    """Swizzle<B, 4, 3> of shared addresses: bits 4.. XOR-ed with bits 7..."""
    mask = swizzle // 16 - 1
    return address ^ (((address >> 7) & mask) << 4)


def operand(smem: np.ndarray, descriptor: int, rows: int, k: int, k_major: bool,
            dtype: np.dtype) -> np.ndarray:
    """The rows x k operand (M or N by K) a descriptor describes, as float64."""
    start, leading, stride, swizzle = _decode(descriptor)
    if swizzle == 0:
        raise EmulationError("only swizzled wgmma operands are emulated")
    size = dtype.itemsize
    per_row = swizzle // size  # elements of one swizzle row
    r, c = np.meshgrid(np.arange(rows), np.arange(k), indexing="ij")
    if k_major:
        offset = (r % 8) * swizzle + (r // 8) * stride + c * size
    else:
        offset = (r % per_row) * size + (r // per_row) * leading
        offset = offset + (c % 8) * swizzle + (c // 8) * stride
    address = _swizzled(start + offset, swizzle)
    if address.max() + size > smem.size:
        raise EmulationError(f"wgmma operand past the shared memory ({address.max()})")
    picked = np.stack([smem[address + i] for i in range(size)], axis=-1)
    return picked.reshape(-1).view(dtype).reshape(rows, k).astype(np.float64)


class HopperCompiler(_Compiler):
    """simt's compiler with the ops the sm_90a lowerings add."""

    def _memref_extract_aligned_pointer_as_index(self, op, ins, outs):
        (out,) = outs
        (source,) = ins

        def run(env):
            array, smem = env[source], env["ctx"].smem
            start = array.ctypes.data - smem.ctypes.data
            inside = 0 <= start < smem.size
            env[out] = np.int64(start if inside else array.ctypes.data)

        return False, run

    def _arith_shrui(self, op, ins, outs):
        (out,) = outs
        value, amount = ins

        def run(env):
            shifted = (int(env[value]) & _MASK64) >> int(env[amount])
            env[out] = np.int64(shifted - (1 << 64) if shifted >= 1 << 63 else shifted)

        return False, run

    def _llvm_mlir_undef(self, op, ins, outs):
        """An accumulator struct (wgmma's are all f32), NaN until written."""
        (out,) = outs
        fields = str(op.results[0].type).count("f32")

        def run(env):
            env[out] = tuple([np.float32(np.nan)] * fields)

        return False, run

    def _llvm_insertvalue(self, op, ins, outs):
        (position,) = tuple(ir.DenseI64ArrayAttr(op.attributes["position"]))
        container, value = ins
        (out,) = outs

        def run(env):
            fields = list(env[container])
            fields[position] = env[value]
            env[out] = tuple(fields)

        return False, run

    def _nothing(self, op, ins, outs):
        return False, lambda env: None

    _nvvm_fence_proxy = _nothing
    _nvvm_wgmma_fence_aligned = _nothing
    _nvvm_wgmma_commit_group_sync_aligned = _nothing
    _nvvm_wgmma_wait_group_sync_aligned = _nothing

    def _nvvm_wgmma_mma_async(self, op, ins, outs):
        accumulator, desc_a, desc_b = ins
        (out,) = outs
        shape = str(op.attributes["shape"])
        n = int(shape.split("n = ")[1].split(",")[0])
        k = int(shape.split("k = ")[1].split(">")[0])
        kind = str(op.attributes["typeA"]).split("<")[1].rstrip(">")
        if kind not in _WGMMA_TYPES or _WGMMA_TYPES[kind] is None:
            raise EmulationError(f"wgmma of {kind} is not emulated")
        dtype = _WGMMA_TYPES[kind]
        k_major_a = "row" in str(op.attributes["layoutA"])
        k_major_b = "col" in str(op.attributes["layoutB"])

        def collective(lanes: list[dict]) -> list:
            smem = lanes[0]["ctx"].smem
            warp = lanes[0]["tid"] // 32 % 4
            for env in lanes:
                if env[desc_a] != lanes[0][desc_a] or env[desc_b] != lanes[0][desc_b]:
                    raise EmulationError(f"{op.location}: wgmma descriptors differ across lanes")
            a = operand(smem, lanes[0][desc_a], 64, k, k_major_a, dtype)[16 * warp : 16 * warp + 16]
            b = operand(smem, lanes[0][desc_b], n, k, k_major_b, dtype)
            d = np.zeros((16, n))
            for lane, env in enumerate(lanes):
                for i, value in enumerate(env[accumulator]):
                    d[lane // 4 + 8 * (i % 4 // 2), 8 * (i // 4) + 2 * (lane % 4) + i % 2] = value
            d += a @ b.T
            return [
                tuple(np.float32(d[lane // 4 + 8 * (i % 4 // 2), 8 * (i // 4) + 2 * (lane % 4)
                                   + i % 2]) for i in range(n // 2))
                for lane in range(32)
            ]

        def run(env):
            env[out] = yield ("warp", op, collective)

        return True, run


def run_launches(module: ir.Module, entry: str, args: Sequence[object]) -> None:
    """Runs every gpu.launch of `entry` (host code evaluated too) on `args`,
    each block with its own 1024-byte aligned shared memory."""
    func = next(op for op in module.body.operations
                if ir.StringAttr(op.attributes["sym_name"]).value == entry)
    compiler = HopperCompiler()
    env: dict = {}
    block = func.regions[0].blocks[0]
    for value, arg in zip(block.arguments, args, strict=True):
        env[compiler.slot(value)] = arg if isinstance(arg, np.ndarray) else np.int64(arg)
    env["globals"] = [arg for arg in args if isinstance(arg, np.ndarray)]
    for op in block.operations:
        op = op.operation
        if op.name == "func.return":
            return
        if op.name != "gpu.launch":
            yields, fn = compiler.op(op)
            assert not yields
            fn(env)
            continue
        operands = [compiler.slot(v) for v in op.operands]
        grid = [int(env[s]) for s in operands[:3]]
        threads = int(env[operands[3]])
        smem_bytes = int(env[operands[6]]) if len(operands) > 6 else 0
        body_block = op.regions[0].blocks[0]
        launch_args = [compiler.slot(a) for a in body_block.arguments]
        body = compiler.block(body_block)
        for bz in range(grid[2]):
            for by in range(grid[1]):
                for bx in range(grid[0]):
                    raw = np.full(smem_bytes + 1024, 0xFF, np.uint8)  # garbage until written
                    skip = -raw.ctypes.data % 1024
                    smem = raw[skip : skip + smem_bytes]
                    ctx = _Ctx((bx, by, bz), smem, threads, tuple(grid))
                    _run_block(body, env, ctx, launch_args[:3], launch_args[3:6],
                               launch_args[6:])
