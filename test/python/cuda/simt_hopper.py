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
A and B are f16, bf16 or 8-bit floats (e4m3, e5m2: k32, each operand
read as the type its instruction names), decoded exactly (ml_dtypes) and
multiplied in float64 into the f32 accumulator.
The cp.async copies are done when issued, so fences, commits and waits do
nothing; the TMA ones are not.

TMA and mbarriers: the host's tensor map (a cast marked `tile.cuda_tma`)
is made from the call's array with the driver's own arguments
(`tensor_map_arguments`: dims and byte strides innermost first, box,
swizzle; None where the driver would pass no map, and a copy through it is
an error). A `cp.async.bulk.tensor` is queued on its mbarrier and lands
only when a thread waits on that barrier, so a read of a slot before its
wait, or a refill of a slot before its readers are done, gives wrong
numbers. A box lands by the PTX ISA's rules: element (b0, b1, ..) of the
box (an element of the map's data type: fp8 tensors go as UINT8) reads
the tensor at coordinates + b (zero outside the tensor, also before its
start), and goes to byte `dst + (row * box0 + b0) * size` (row:
the outer box indices, row-major) with the swizzle on that address
(bits 4.. XOR-ed with bits 7.., 128/64/32-byte modes); then it completes
its bytes on the barrier. An mbarrier counts arrivals and transaction
bytes per phase; `try_wait.parity p` returns once the current phase's
parity is not p. Threads waiting on an mbarrier are parked while the
others run; when no thread can go on and some wait, the emulator reports
a deadlock instead of spinning. For warp specialization, a named barrier
(`bar.sync id, count`) goes on once `count` threads are at it, a warp op
(wgmma, setmaxnreg) once its warp's 32 lanes are, so producer and consumer
warpgroups run different code between them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import simt
from mlir import ir
from simt import _BF16, _FP8, EmulationError, _Compiler, _Ctx

from tilec.backends.cuda.tensor_maps import TensorMapArguments, TmaDescriptor, tensor_map_arguments
from tilec.passes.conversion.tile_to_cuda.ops.tma_copy import TMA_DESCRIPTOR

_MASK64 = (1 << 64) - 1
_SWIZZLE_BYTES = {0: 0, 1: 128, 2: 64, 3: 32}
# CUtensorMapSwizzle (the driver API's numbering, not the descriptors').
_TENSOR_MAP_SWIZZLE_BYTES = {0: 0, 1: 32, 2: 64, 3: 128}
# Bytes of an element per CUtensorMapDataType (UINT8 .. BFLOAT16): what a box moves, whatever
# the array's dtype (fp8 goes as UINT8).
_TENSOR_MAP_ELEMENT_BYTES = {0: 1, 1: 2, 2: 4, 3: 4, 4: 8, 5: 8, 6: 2, 7: 4, 8: 8, 9: 2}
# wgmma operand types. The NVVM verifier holds the rest of the PTX ISA's rules (k16 for the
# 16-bit types, k32 and K-major operands for the 8-bit floats, which may mix: e4m3 by e5m2).
_WGMMA_TYPES = {"f16": np.dtype(np.float16), "bf16": _BF16, "e4m3": _FP8.get("f8E4M3FN"),
                "e5m2": _FP8.get("f8E5M2")}


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


class _TensorMap:
    """A host tensor map: the array and the driver's encoding arguments (None: not encodable)."""

    def __init__(self, array: np.ndarray, arguments: TensorMapArguments | None):
        self.array, self.arguments = array, arguments


class _Mbarrier:
    """An mbarrier's phase, pending arrivals and transaction bytes, and the
    TMA boxes queued on it (they land when a thread waits on it)."""

    def __init__(self, count: int):
        self.count, self.pending, self.tx, self.phase = count, count, 0, 0
        self.queued: list = []

    def _advance(self) -> None:
        if self.pending == 0 and self.tx == 0:
            self.phase += 1
            self.pending = self.count

    def arrive(self, tx: int) -> None:
        if self.pending == 0:
            raise EmulationError("more arrivals on an mbarrier than it expects")
        self.tx += tx
        self.pending -= 1
        self._advance()

    def complete_tx(self, tx: int) -> None:
        self.tx -= tx
        self._advance()

    def done(self, parity: int) -> bool:
        for land in self.queued:
            land()
        self.queued.clear()
        return self.phase % 2 != parity


def _swizzle_address(address: np.ndarray, swizzle: int) -> np.ndarray:
    return address if swizzle == 0 else _swizzled(address, swizzle)


def land_box(smem: np.ndarray, tensor_map: _TensorMap, dst: int, coords: Sequence[int]) -> int:
    """Writes one TMA box into shared memory by the PTX ISA's rules; returns its bytes."""
    arguments = tensor_map.arguments
    if arguments is None:
        raise EmulationError("a TMA copy through a tensor map the driver could not encode")
    size = _TENSOR_MAP_ELEMENT_BYTES[arguments.data_type]
    box, dims = arguments.box, arguments.dims
    swizzle = _TENSOR_MAP_SWIZZLE_BYTES[arguments.swizzle]
    if dst % 128 or box[0] * size % 16 or max(box) > 256 or (swizzle and box[0] * size > swizzle):
        raise EmulationError(f"a TMA box {box} to shared address {dst} the hardware rejects")
    grid = np.meshgrid(*[np.arange(b) for b in reversed(box)], indexing="ij")
    inner_first = [g.reshape(-1) for g in reversed(grid)]
    inside = np.ones(inner_first[0].shape, bool)
    offset = np.zeros(inner_first[0].shape, np.int64)
    for d, (b, c) in enumerate(zip(inner_first, coords, strict=True)):
        g = b + int(c)
        inside &= (g >= 0) & (g < dims[d])
        offset += g * (size if d == 0 else arguments.strides[d - 1])
    raw = tensor_map.array.reshape(-1).view(np.uint8)
    last = int(np.where(inside, offset, 0).max()) + size
    if last > raw.size:
        raise EmulationError(f"a TMA box reads {last} bytes of a {raw.size}-byte array")
    element = np.arange(inner_first[0].size)
    address = _swizzle_address(dst + element * size, swizzle)
    if address.max() + size > smem.size:
        raise EmulationError(f"a TMA box past the shared memory ({address.max()})")
    for i in range(size):
        smem[address + i] = np.where(inside, raw[np.where(inside, offset, 0) + i], 0)
    return int(np.prod(box)) * size


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
        """A 64-bit logical shift on Python ints (descriptor arithmetic on addresses, which
        may not fit an int64 view); narrower ones as simt's, in their own width."""
        if op.results[0].type != ir.IntegerType.get_signless(64) and \
                not isinstance(op.results[0].type, ir.IndexType):
            return super()._arith_shrui(op, ins, outs)
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

    def _builtin_unrealized_conversion_cast(self, op, ins, outs):
        """On the host: a TMA tensor map of the array, made as the driver makes it."""
        if TMA_DESCRIPTOR not in op.attributes:
            raise EmulationError("the emulator has no 'builtin.unrealized_conversion_cast'")
        (source,) = ins
        (out,) = outs
        spec = ir.DictAttr(op.attributes[TMA_DESCRIPTOR])

        def run(env):
            array = env[source]
            descriptor = TmaDescriptor.of(0, spec)
            env[out] = _TensorMap(array, tensor_map_arguments(descriptor, array.shape,
                                                              array.ctypes.data))

        return False, run

    def _mbarrier(self, env, slot) -> _Mbarrier:
        found = env["ctx"].mbarriers.get(int(env[slot]))
        if found is None:
            raise EmulationError(f"no mbarrier initialized at shared address {int(env[slot])}")
        return found

    def _nvvm_mbarrier_init(self, op, ins, outs):
        address, count = ins

        def run(env):
            barriers = env["ctx"].mbarriers
            if int(env[address]) in barriers:
                raise EmulationError("mbarrier.init of a valid mbarrier (not invalidated)")
            barriers[int(env[address])] = _Mbarrier(int(env[count]))

        return False, run

    def _nvvm_mbarrier_inval(self, op, ins, outs):
        (address,) = ins

        def run(env):
            barrier = self._mbarrier(env, address)
            if barrier.queued:
                raise EmulationError("mbarrier.inval with TMA copies never waited for")
            del env["ctx"].mbarriers[int(env[address])]

        return False, run

    def _nvvm_mbarrier_arrive_expect_tx(self, op, ins, outs):
        address, tx = ins[:2]

        def run(env):
            self._mbarrier(env, address).arrive(int(env[tx]))
            for slot in outs:
                env[slot] = np.int64(0)

        return False, run

    def _nvvm_cp_async_bulk_tensor_shared_cluster_global(self, op, ins, outs):
        sizes = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        dst, descriptor = ins[0], ins[1]
        coords = ins[2 : 2 + sizes[2]]
        barrier = ins[2 + sizes[2]]
        if any(sizes[4:]):
            raise EmulationError("only tile-mode TMA loads without multicast are emulated")

        def run(env):
            ctx, tensor_map = env["ctx"], env[descriptor]
            at, where = int(env[dst]), [int(env[c]) for c in coords]
            target = self._mbarrier(env, barrier)

            def land():
                target.complete_tx(land_box(ctx.smem, tensor_map, at, where))

            target.queued.append(land)

        return False, run

    def _nvvm_mbarrier_try_wait_parity(self, op, ins, outs):
        address, parity = ins[:2]

        def run(env):
            barrier = self._mbarrier(env, address)
            yield ("mbarrier", op, lambda: barrier.done(int(env[parity]) % 2))

        return True, run

    _nvvm_fence_mbarrier_init = _nothing

    def _nvvm_barrier(self, op, ins, outs):
        """bar.sync id, count: a named barrier of `count` threads."""
        barrier_id, count = ins

        def run(env):
            yield ("barrier", op, int(env[barrier_id]), int(env[count]))

        return True, run

    def _nvvm_setmaxregister(self, op, ins, outs):
        """Register reallocation: all of a warpgroup's threads must make it together."""

        def collective(lanes: list[dict]) -> list:
            return [None] * len(lanes)

        def run(env):
            yield ("warp", op, collective)

        return True, run

    def _nvvm_mbarrier_arrive(self, op, ins, outs):
        (address,) = ins

        def run(env):
            self._mbarrier(env, address).arrive(0)
            for slot in outs:
                env[slot] = np.int64(0)

        return False, run
    _nvvm_wgmma_fence_aligned = _nothing
    _nvvm_wgmma_commit_group_sync_aligned = _nothing
    _nvvm_wgmma_wait_group_sync_aligned = _nothing

    def _nvvm_wgmma_mma_async(self, op, ins, outs):
        accumulator, desc_a, desc_b = ins
        (out,) = outs
        shape = str(op.attributes["shape"])
        n = int(shape.split("n = ")[1].split(",")[0])
        k = int(shape.split("k = ")[1].split(">")[0])
        kind_a, kind_b, kind_d = (str(op.attributes[f"type{x}"]).split("<")[1].rstrip(">")
                                  for x in "ABD")
        for kind in (kind_a, kind_b):
            if kind not in _WGMMA_TYPES or _WGMMA_TYPES[kind] is None:
                raise EmulationError(f"wgmma of {kind} is not emulated")
        if kind_d != "f32":
            raise EmulationError(f"wgmma into {kind_d} accumulators is not emulated")
        dtype_a, dtype_b = _WGMMA_TYPES[kind_a], _WGMMA_TYPES[kind_b]
        k_major_a = "row" in str(op.attributes["layoutA"])
        k_major_b = "col" in str(op.attributes["layoutB"])

        def collective(lanes: list[dict]) -> list:
            smem = lanes[0]["ctx"].smem
            warp = lanes[0]["tid"] // 32 % 4
            for env in lanes:
                if env[desc_a] != lanes[0][desc_a] or env[desc_b] != lanes[0][desc_b]:
                    raise EmulationError(f"{op.location}: wgmma descriptors differ across lanes")
            a = operand(smem, lanes[0][desc_a], 64, k, k_major_a, dtype_a)
            a = a[16 * warp : 16 * warp + 16]
            b = operand(smem, lanes[0][desc_b], n, k, k_major_b, dtype_b)
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


def _barrier_of(stop: tuple, threads: int) -> tuple[int, int]:
    """(barrier id, threads it waits for) of a barrier stop: gpu.barrier is
    barrier 0 of the whole block, nvvm.barrier names its own."""
    return (stop[2], stop[3]) if len(stop) > 2 else (0, threads)


def _release(stopped: dict[int, tuple], threads: list, sends: dict[int, object]) -> list[int]:
    """The stopped threads that can go on: every thread a named barrier
    waits for is at it, or every lane of a warp is at the same warp op."""
    released: list[int] = []
    barriers: dict[int, list[int]] = {}
    for tid, stop in stopped.items():
        if stop[0] == "barrier":
            barriers.setdefault(_barrier_of(stop, len(threads))[0], []).append(tid)
    for tids in barriers.values():
        count = _barrier_of(stopped[tids[0]], len(threads))[1]
        places = {str(stopped[t][1].location) for t in tids}
        if len(tids) > count or (len(tids) == count and len(places) != 1):
            raise EmulationError(f"threads of a block stopped at different places: {places}")
        if len(tids) == count:
            released += tids
    for warp in range(0, len(threads), 32):
        lanes = range(warp, min(warp + 32, len(threads)))
        stops = [stopped.get(lane) for lane in lanes]
        if any(s is None or s[0] != "warp" for s in stops):
            continue
        places = {str(s[1].location) for s in stops}
        if len(places) != 1:
            raise EmulationError(f"lanes of a warp stopped at different warp ops: {places}")
        results = stops[0][2]([threads[lane][0] for lane in lanes])
        for lane, value in zip(lanes, results, strict=True):
            sends[lane] = value
        released += list(lanes)
    for tid in released:
        del stopped[tid]
    return released


def _run_block(body, launch_env: dict, ctx: _Ctx, block_args: list[int],
               thread_args: list[int], sizes: list[int]) -> None:
    """simt's block scheduler with mbarrier waits and named barriers: a
    thread waiting on an mbarrier is parked until its phase completes, a
    barrier goes on once every thread it counts is there (all of the block
    for gpu.barrier), a warp op once the warp's 32 lanes are."""
    ctx.mbarriers = {}
    threads = simt.start_threads(body, launch_env, ctx, block_args, thread_args, sizes)
    live = set(range(len(threads)))
    runnable = sorted(live)
    sends: dict[int, object] = {}
    waiting: dict[int, tuple] = {}
    stopped: dict[int, tuple] = {}
    rounds = 0
    while live:
        # Alternating the order of the threads makes a missing barrier show either way.
        order = runnable if rounds % 2 == 0 else list(reversed(runnable))
        rounds += 1
        for tid in order:
            thread = threads[tid][1]
            try:
                stop = thread.send(sends.pop(tid)) if tid in sends else next(thread)
            except StopIteration:
                live.discard(tid)
                continue
            (waiting if stop[0] == "mbarrier" else stopped)[tid] = stop
        runnable = [tid for tid, stop in sorted(waiting.items()) if stop[2]()]
        for tid in runnable:
            del waiting[tid]
        runnable += _release(stopped, threads, sends)
        runnable.sort()
        if runnable or not live:
            continue
        if waiting:
            places = sorted({str(stop[1].location) for stop in waiting.values()})
            raise EmulationError(
                f"deadlock: {len(waiting)} threads wait for mbarrier phases that cannot "
                f"complete ({'; '.join(places)}), {len(stopped)} are at barriers or warp ops, "
                f"{len(threads) - len(live)} left the kernel"
            )
        if len(live) != len(threads):
            raise EmulationError(f"{len(threads) - len(live)} threads left the kernel while "
                                 "others wait at a barrier or warp op")
        places = {str(s[1].location) for s in stopped.values()}
        raise EmulationError(f"threads of a block stopped at different places: {places}")
    left = [b for b in ctx.mbarriers.values() if b.queued]
    if left:
        raise EmulationError(f"{len(left)} mbarriers have TMA copies nobody waited for")


def run_launches(module: ir.Module, entry: str, args: Sequence[object]) -> None:
    """Runs every gpu.launch of `entry` (host code evaluated too) on `args`,
    each block with its own 1024-byte aligned shared memory."""
    simt.run_launches(module, entry, args, compiler=HopperCompiler(), run_block=_run_block,
                      smem_alignment=1024)
