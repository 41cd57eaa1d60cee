"""A small SIMT emulator of convert-tile-to-cuda's output, for the tests.

There is no GPU here, so the tests run the lowered kernels on numpy: the
host function's `gpu.launch` runs block by block, each thread of a block a
Python generator over the kernel body. A thread stops at `gpu.barrier`
until every thread of its block is there (a barrier some threads never
reach is an error), and at the warp-wide ops (`nvgpu.ldmatrix`,
`nvgpu.mma.sync`) until its whole warp is there; those ops then run with
the 32 lanes' operands together, with the fragment layouts of the PTX ISA
(ldmatrix: lane l addresses row l % 8 of matrix l / 8 and receives row
lane / 4, columns 2 (lane % 4) + {0, 1} of each matrix, transposed with
.trans; m16n8k16: a0..a3 = (g, 2t), (g + 8, 2t), (g, 2t + 8), (g + 8, 2t + 8),
b0, b1 = (2t, g), (2t + 8, g), c0..c3 = (g, 2t), (g + 8, 2t) with g = lane / 4,
t = lane % 4, each a pair of consecutive columns (a, c) or rows (b)).
Atomic adds are plain adds (the threads take turns), `red` (inline PTX on
a byte address) included. `cp.async` copies at once (zero-filling past its
source count), so the emulator checks the index arithmetic, layouts, bounds and barriers of a
kernel, not the timing of its asynchronous copies. Between two barriers the
threads run one after the other, in alternating order, so a missing
barrier gives wrong numbers. With a `trace` list, every shared-memory
address an `ldmatrix` lane, a `cp.async` thread or a scalar load uses is
recorded in it (`SharedAccess`), for the bank-conflict checks.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from mlir import ir

try:
    import ml_dtypes

    _BF16 = np.dtype(ml_dtypes.bfloat16)
    # The 8-bit floats (wgmma operands), decoded exactly by ml_dtypes.
    _FP8 = {"f8E4M3FN": np.dtype(ml_dtypes.float8_e4m3fn),
            "f8E5M2": np.dtype(ml_dtypes.float8_e5m2)}
except ImportError:  # pragma: no cover
    _BF16, _FP8 = None, {}


class EmulationError(Exception):
    pass


def _dtype(type_: ir.Type) -> np.dtype:
    text = str(type_)
    table = {"f16": np.float16, "f32": np.float32, "f64": np.float64, "i1": np.bool_,
             "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
             "index": np.int64}
    if text == "bf16":
        return _BF16
    if text in _FP8:
        return _FP8[text]
    return np.dtype(table[text])


_Thread = Iterator[tuple]


@dataclass(frozen=True)
class SharedAccess:
    """One shared-memory access (16 bytes, or one element for ld.shared): by
    which op, thread and where (bytes from the start of the block's shared memory)."""

    kind: str  # "ldmatrix", "cp.async" or "ld.shared" (a memref.load)
    op: str  # the op's location
    block: tuple[int, int, int]
    thread: int
    address: int


class _Ctx:
    """What the threads of one block share."""

    def __init__(self, block_ids: tuple[int, int, int], smem: np.ndarray, threads: int,
                 grid: tuple[int, ...], trace: list[SharedAccess] | None = None):
        self.block_ids = block_ids
        self.grid = grid
        self.smem = smem
        self.threads = threads
        self.trace = trace

    def record(self, kind: str, op: ir.Operation, thread: int, array: np.ndarray,
               where: Sequence[int]) -> None:
        if self.trace is None or array.base is None:
            return
        address = array.ctypes.data + int(np.dot(where, array.strides)) - self.smem.ctypes.data
        if 0 <= address < self.smem.size:
            self.trace.append(SharedAccess(kind, str(op.location), self.block_ids, thread,
                                           address))


class _Compiler:
    """Turns ops into closures over a per-thread environment (a dict)."""

    def __init__(self) -> None:
        self.slots: dict[ir.Value, int] = {}

    def slot(self, value: ir.Value) -> int:
        if value not in self.slots:
            self.slots[value] = len(self.slots)
        return self.slots[value]

    def block(self, block: ir.Block) -> list[tuple[bool, Callable]]:
        return [self.op(op.operation) for op in block.operations]

    def op(self, op: ir.Operation) -> tuple[bool, Callable]:
        name = op.name
        ins = [self.slot(v) for v in op.operands]
        outs = [self.slot(v) for v in op.results]
        handler = getattr(self, "_" + name.replace(".", "_"), None)
        if handler is not None:
            return handler(op, ins, outs)
        dialect, _, short = name.partition(".")
        if dialect in ("arith", "math"):
            return self._elementwise(op, short, ins, outs)
        raise EmulationError(f"the emulator has no '{name}'")

    # --- scalars -----------------------------------------------------------

    def _arith_constant(self, op, ins, outs):
        attr = op.attributes["value"]
        result_type = op.results[0].type
        if isinstance(attr, ir.DenseElementsAttr):
            shape = ir.VectorType(result_type).shape
            element = ir.VectorType(result_type).element_type
            splat = ir.DenseElementsAttr(attr).get_splat_value()
            value = np.full(shape, _scalar_of(splat), _dtype(element))
        else:
            value = _dtype(result_type).type(_scalar_of(attr))
        (out,) = outs

        def run(env):
            env[out] = value

        return False, run

    def _elementwise(self, op, short, ins, outs):
        result_type = op.results[0].type
        element = ir.VectorType(result_type).element_type if isinstance(
            result_type, ir.VectorType) else result_type
        dtype = _dtype(element)
        predicate = None
        if "predicate" in op.attributes:
            predicate = ir.IntegerAttr(op.attributes["predicate"]).value
        fn = _ELEMENTWISE.get(short)
        if short in ("cmpi", "cmpf"):
            table = _CMPI if short == "cmpi" else _CMPF
            unsigned = short == "cmpi" and predicate >= 6
            compare = table[predicate]

            def fn(a, b, compare=compare, unsigned=unsigned):
                if unsigned:
                    a, b = np.uint64(np.int64(a)), np.uint64(np.int64(b))
                return np.bool_(compare(a, b))
        elif fn is None:
            raise EmulationError(f"the emulator has no '{op.name}'")
        (out,) = outs

        def run(env):
            with np.errstate(all="ignore"):
                value = fn(*[env[i] for i in ins])
            env[out] = np.asarray(value).astype(dtype)[()] if not isinstance(
                value, np.ndarray) or value.ndim == 0 else value.astype(dtype)

        return False, run

    def _arith_extui(self, op, ins, outs):
        """Zero extension: the operand's bits, read unsigned."""
        operand = op.operands[0].type
        element = ir.VectorType(operand).element_type if isinstance(
            operand, ir.VectorType) else operand
        mask = (1 << ir.IntegerType(element).width) - 1
        dtype = _dtype(ir.VectorType(op.results[0].type).element_type if isinstance(
            op.results[0].type, ir.VectorType) else op.results[0].type)
        (source,) = ins
        (out,) = outs

        def run(env):
            env[out] = (np.asarray(env[source]).astype(np.int64) & mask).astype(dtype)[()]

        return False, run

    def _arith_bitcast(self, op, ins, outs):
        """The operand's bits as the result type (an f8's byte, an f32's i32)."""
        source, target = (_dtype(_element_of(v.type)) for v in (op.operands[0], op.results[0]))
        (value,) = ins
        (out,) = outs

        def run(env):
            env[out] = np.asarray(env[value], source).view(target)[()]

        return False, run

    def _arith_shrui(self, op, ins, outs):
        """Logical right shift: the bits of the operand's width, unsigned."""
        dtype = _dtype(op.results[0].type)
        unsigned = np.dtype(f"u{dtype.itemsize}")
        value, amount = ins
        (out,) = outs

        def run(env):
            bits = np.asarray(env[value], dtype).view(unsigned)
            env[out] = (bits >> unsigned.type(env[amount])).view(dtype)[()]

        return False, run

    # --- memory ------------------------------------------------------------

    def _memref_load(self, op, ins, outs):
        buffer, *indices = ins
        (out,) = outs

        def run(env):
            array = env[buffer]
            where = tuple(int(env[i]) for i in indices)
            _check_bounds(array, where, op)
            if "ctx" in env:
                env["ctx"].record("ld.shared", op, env["tid"], array, where)
            env[out] = array[where]

        return False, run

    def _memref_store(self, op, ins, outs):
        value, buffer, *indices = ins

        def run(env):
            array = env[buffer]
            where = tuple(int(env[i]) for i in indices)
            _check_bounds(array, where, op)
            array[where] = env[value]

        return False, run

    def _memref_atomic_rmw(self, op, ins, outs):
        value, buffer, *indices = ins
        (out,) = outs

        def run(env):
            array = env[buffer]
            where = tuple(int(env[i]) for i in indices)
            _check_bounds(array, where, op)
            env[out] = array[where]
            array[where] = array[where] + env[value]

        return False, run

    def _memref_extract_strided_metadata(self, op, ins, outs):
        """A buffer is its own base: offset 0, strides in elements (the aligned
        pointer of a buffer is the address of its first element)."""
        (source,) = ins
        base, offset, *rest = outs

        def run(env):
            array = env[source]
            env[base], env[offset] = array, np.int64(0)
            values = [*array.shape, *(s // array.itemsize for s in array.strides)]
            for slot, value in zip(rest, values, strict=True):
                env[slot] = np.int64(value)

        return False, run

    def _memref_dim(self, op, ins, outs):
        buffer, dim = ins
        (out,) = outs

        def run(env):
            env[out] = np.int64(env[buffer].shape[int(env[dim])])

        return False, run

    def _memref_alloca(self, op, ins, outs):
        type_ = ir.MemRefType(op.results[0].type)
        shape, dtype = list(type_.shape), _dtype(type_.element_type)
        (out,) = outs

        def run(env):
            # Uninitialized in hardware: NaN shows a read before a write.
            env[out] = np.full(shape, np.nan if dtype.kind == "f" else 0, dtype)

        return False, run

    def _memref_alloc(self, op, ins, outs):
        """A global workspace allocated by the host function."""
        type_ = ir.MemRefType(op.results[0].type)
        dtype = _dtype(type_.element_type)
        sizes = iter(ins)
        (out,) = outs

        def run(env):
            shape = [int(env[next(sizes)]) if ir.ShapedType.is_dynamic_size(s) else s
                     for s in type_.shape]
            env[out] = np.full(shape, np.nan if dtype.kind == "f" else 0, dtype)
            env["globals"].append(env[out])

        return False, run

    def _memref_dealloc(self, op, ins, outs):
        return False, lambda env: None

    def _memref_view(self, op, ins, outs):
        source, shift = ins[0], ins[1]
        type_ = ir.MemRefType(op.results[0].type)
        shape, dtype = list(type_.shape), _dtype(type_.element_type)
        size = math.prod(shape) * dtype.itemsize
        (out,) = outs

        def run(env):
            start = int(env[shift])
            raw = env[source][start : start + size]
            if raw.size != size:
                raise EmulationError(f"{op.location}: view past the dynamic shared memory")
            env[out] = raw.view(dtype).reshape(shape)

        return False, run

    def _memref_expand_shape(self, op, ins, outs):
        """A reshaped view (the DSL's lower-rank tiles of T.copy / T.atomic_add)."""
        shape = list(ir.MemRefType(op.results[0].type).shape)
        source, *dynamic = ins
        (out,) = outs

        def run(env):
            sizes = iter(dynamic)
            target = [int(env[next(sizes)]) if ir.ShapedType.is_dynamic_size(s) else s
                      for s in shape]
            view = env[source].view()
            view.shape = target  # raises rather than copy: the result aliases the source
            env[out] = view

        return False, run

    def _memref_collapse_shape(self, op, ins, outs):
        """Merged dims of a contiguous buffer (a tile seen as one row), aliasing it."""
        groups = [len(g) for g in ir.ArrayAttr(op.attributes["reassociation"])]
        (source,) = ins
        (out,) = outs

        def run(env):
            view, shape, dim = env[source].view(), [], 0
            for count in groups:
                shape.append(int(np.prod(view.shape[dim : dim + count])))
                dim += count
            view.shape = shape  # raises rather than copy: the result aliases the source
            env[out] = view

        return False, run

    def _memref_cast(self, op, ins, outs):
        """The same buffer under a less static type (a thread's own row of a tile)."""
        (source,) = ins
        (out,) = outs

        def run(env):
            env[out] = env[source]

        return False, run

    def _memref_reinterpret_cast(self, op, ins, outs):
        """A view of the buffer's elements (from its first) at static or dynamic offset,
        sizes and strides, aliasing them (`T.reinterpret`, strided views)."""
        counts = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        source, *dynamic = ins
        static = [list(ir.DenseI64ArrayAttr(op.attributes[name]))
                  for name in ("static_offsets", "static_sizes", "static_strides")]
        assert sum(counts[1:]) == len(dynamic)
        dynamic_marks = (ir.ShapedType.get_dynamic_stride_or_offset(),
                         ir.ShapedType.get_dynamic_size())
        (out,) = outs

        def run(env):
            values = iter(env[slot] for slot in dynamic)
            (offset,), sizes, strides = (
                [int(next(values)) if v in dynamic_marks else v for v in part] for part in static)
            flat = env[source].reshape(-1)  # raises rather than copy a strided source
            itemsize = flat.itemsize
            env[out] = np.lib.stride_tricks.as_strided(
                flat[offset:], sizes, [stride * itemsize for stride in strides])

        return False, run

    def _memref_subview(self, op, ins, outs):
        """A strided window of a buffer (a thread's row of a per-thread tile), aliasing it;
        unit dims the result type drops are dropped from the left."""
        counts = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
        source, *dynamic = ins
        static = [list(ir.DenseI64ArrayAttr(op.attributes[name]))
                  for name in ("static_offsets", "static_sizes", "static_strides")]
        assert sum(counts[1:]) == len(ins) - 1
        rank = len(ir.MemRefType(op.results[0].type).shape)
        dynamic_offset = ir.ShapedType.get_dynamic_stride_or_offset()
        dynamic_size = ir.ShapedType.get_dynamic_size()
        (out,) = outs

        def run(env):
            values = iter(env[slot] for slot in dynamic)
            offsets, sizes, strides = (
                [int(next(values)) if v in (dynamic_offset, dynamic_size) else v for v in part]
                for part in static)
            view = env[source][tuple(slice(o, o + (n - 1) * t + 1, t)
                                     for o, n, t in zip(offsets, sizes, strides, strict=True))]
            drop = view.ndim - rank
            index = []
            for size in view.shape:
                if drop and size == 1:
                    index.append(0)
                    drop -= 1
                else:
                    index.append(slice(None))
            env[out] = view[tuple(index)]

        return False, run

    def _memref_extract_aligned_pointer_as_index(self, op, ins, outs):
        (out,) = outs
        (source,) = ins

        def run(env):
            env[out] = np.int64(env[source].ctypes.data)

        return False, run

    # --- control flow -------------------------------------------------------

    def _scf_yield(self, op, ins, outs):
        def run(env):
            env["yield"] = [env[i] for i in ins]

        return False, run

    def _scf_for(self, op, ins, outs):
        lower, upper, step, *inits = ins
        block = op.regions[0].blocks[0]
        iv, *carried = [self.slot(a) for a in block.arguments]
        body = self.block(block)

        def run(env):
            values = [env[i] for i in inits]
            i, end, by = int(env[lower]), int(env[upper]), int(env[step])
            while i < end:
                env[iv] = np.int64(i)
                for slot, value in zip(carried, values, strict=True):
                    env[slot] = value
                yield from _run(body, env)
                values = env["yield"]
                i += by
            for slot, value in zip(outs, values, strict=True):
                env[slot] = value

        return True, run

    def _scf_condition(self, op, ins, outs):
        condition, *passed = ins

        def run(env):
            env["condition"] = bool(env[condition])
            env["yield"] = [env[i] for i in passed]

        return False, run

    def _scf_while(self, op, ins, outs):
        """Loop-carried values through both regions, as scf.while passes them."""
        before, after = (op.regions[i].blocks[0] for i in (0, 1))
        before_args = [self.slot(a) for a in before.arguments]
        after_args = [self.slot(a) for a in after.arguments]
        test, body = self.block(before), self.block(after)

        def run(env):
            values = [env[i] for i in ins]
            while True:
                for slot, value in zip(before_args, values, strict=True):
                    env[slot] = value
                yield from _run(test, env)
                values = env["yield"]
                if not env["condition"]:
                    break
                for slot, value in zip(after_args, values, strict=True):
                    env[slot] = value
                yield from _run(body, env)
                values = env["yield"]
            for slot, value in zip(outs, values, strict=True):
                env[slot] = value

        return True, run

    def _scf_execute_region(self, op, ins, outs):
        body = self.block(op.regions[0].blocks[0])

        def run(env):
            yield from _run(body, env)
            for slot, value in zip(outs, env.get("yield", []), strict=False):
                env[slot] = value

        return True, run

    def _scf_if(self, op, ins, outs):
        (condition,) = ins
        then = self.block(op.regions[0].blocks[0])
        otherwise = self.block(op.regions[1].blocks[0]) if op.regions[1].blocks else []

        def run(env):
            yield from _run(then if env[condition] else otherwise, env)
            if outs:
                for slot, value in zip(outs, env["yield"], strict=True):
                    env[slot] = value

        return True, run

    # --- gpu ---------------------------------------------------------------

    def _gpu_thread_id(self, op, ins, outs):
        (out,) = outs

        def run(env):
            env[out] = np.int64(env["tid"])

        return False, run

    def _gpu_block_id(self, op, ins, outs):
        dimension = "xyz".index(str(op.attributes["dimension"]).split()[-1].strip(">")[-1])
        (out,) = outs

        def run(env):
            env[out] = np.int64(env["ctx"].block_ids[dimension])

        return False, run

    def _gpu_dynamic_shared_memory(self, op, ins, outs):
        (out,) = outs

        def run(env):
            env[out] = env["ctx"].smem

        return False, run

    def _gpu_barrier(self, op, ins, outs):
        def run(env):
            yield ("barrier", op)

        return True, run

    def _gpu_terminator(self, op, ins, outs):
        return False, lambda env: None

    # --- vector ------------------------------------------------------------

    def _vector_extract(self, op, ins, outs):
        position = tuple(ir.DenseI64ArrayAttr(op.attributes["static_position"]))
        (source,) = ins
        (out,) = outs

        def run(env):
            env[out] = np.array(env[source][position])[()]

        return False, run

    def _vector_insert(self, op, ins, outs):
        position = tuple(ir.DenseI64ArrayAttr(op.attributes["static_position"]))
        value, dest = ins
        (out,) = outs

        def run(env):
            result = np.array(env[dest])
            result[position] = env[value]
            env[out] = result

        return False, run

    def _vector_from_elements(self, op, ins, outs):
        type_ = ir.VectorType(op.results[0].type)
        shape, dtype = type_.shape, _dtype(type_.element_type)
        (out,) = outs

        def run(env):
            env[out] = np.array([env[i] for i in ins], dtype).reshape(shape)

        return False, run

    def _vector_create_mask(self, op, ins, outs):
        """Lanes below each dim's bound set (the masks of the edge chunks of copies)."""
        shape = ir.VectorType(op.results[0].type).shape
        (out,) = outs

        def run(env):
            mask = np.ones(shape, np.bool_)
            for dim, slot in enumerate(ins):
                lanes = np.arange(shape[dim]).reshape([-1 if d == dim else 1
                                                       for d in range(len(shape))])
                mask &= lanes < int(env[slot])
            env[out] = mask

        return False, run

    def _vector_broadcast(self, op, ins, outs):
        type_ = ir.VectorType(op.results[0].type)
        shape, dtype = type_.shape, _dtype(type_.element_type)
        (source,) = ins
        (out,) = outs

        def run(env):
            env[out] = np.broadcast_to(np.asarray(env[source], dtype), shape).copy()

        return False, run

    def _vector_to_elements(self, op, ins, outs):
        (source,) = ins

        def run(env):
            for slot, value in zip(outs, np.ravel(env[source]), strict=True):
                env[slot] = value

        return False, run

    # --- nvgpu ---------------------------------------------------------------

    def _nvgpu_device_async_copy(self, op, ins, outs):
        dst_rank = ir.MemRefType(op.operands[0].type).rank
        src_rank = ir.MemRefType(op.operands[1 + dst_rank].type).rank
        dst, dst_idx = ins[0], ins[1 : 1 + dst_rank]
        src, src_idx = ins[1 + dst_rank], ins[2 + dst_rank : 2 + dst_rank + src_rank]
        count_slot = ins[2 + dst_rank + src_rank] if len(ins) > 2 + dst_rank + src_rank else None
        lanes = ir.IntegerAttr(op.attributes["dstElements"]).value
        (out,) = outs

        def run(env):
            source, target = env[src], env[dst]
            count = lanes if count_slot is None else int(env[count_slot])
            d = tuple(int(env[i]) for i in dst_idx)
            s = tuple(int(env[i]) for i in src_idx)
            if not 0 <= count <= lanes:
                raise EmulationError(f"{op.location}: cp.async of {count} elements")
            _check_bounds(target, (*d[:-1], d[-1] + lanes - 1), op)
            if count:
                _check_bounds(source, (*s[:-1], s[-1] + count - 1), op)
            env["ctx"].record("cp.async", op, env["tid"], target, d)
            row = np.zeros(lanes, target.dtype)
            row[:count] = source[(*s[:-1], slice(s[-1], s[-1] + count))]
            target[(*d[:-1], slice(d[-1], d[-1] + lanes))] = row
            env[out] = None

        return False, run

    def _nvgpu_device_async_create_group(self, op, ins, outs):
        (out,) = outs

        def run(env):
            env[out] = None

        return False, run

    def _nvgpu_device_async_wait(self, op, ins, outs):
        return False, lambda env: None

    # The copies are done when issued: commit and wait have nothing to do.
    _nvvm_cp_async_commit_group = _nvgpu_device_async_wait
    _nvvm_cp_async_wait_group = _nvgpu_device_async_wait

    def _gpu_shuffle(self, op, ins, outs):
        value, offset, width = ins
        mode = str(op.attributes["mode"])
        if "xor" not in mode:
            raise EmulationError(f"only xor shuffles are emulated, not {mode}")
        result, valid = outs

        def collective(lanes: list[dict]) -> list:
            values = [env[value] for env in lanes]
            out = []
            for lane, env in enumerate(lanes):
                source = lane ^ int(env[offset])
                inside = source < int(env[width])
                out.append((values[source] if inside else values[lane], np.bool_(inside)))
            return out

        def run(env):
            env[result], env[valid] = yield ("warp", op, collective)

        return True, run

    def _nvgpu_ldmatrix(self, op, ins, outs):
        buffer, *indices = ins
        tiles = ir.IntegerAttr(op.attributes["numTiles"]).value
        transpose = ir.BoolAttr(op.attributes["transpose"]).value
        dtype = _dtype(ir.VectorType(op.results[0].type).element_type)
        # A row is 16 bytes; each lane receives one 32-bit word of a row per matrix.
        per_row, per_word = 16 // dtype.itemsize, 4 // dtype.itemsize
        if transpose and dtype.itemsize != 2:
            raise EmulationError(f"{op.location}: ldmatrix.trans of {dtype} elements")
        (out,) = outs

        def collective(lanes: list[dict]) -> list:
            rows = []
            for lane in range(8 * tiles):
                env = lanes[lane]
                array = env[buffer]
                where = [int(env[i]) for i in indices]
                _check_bounds(array, (*where[:-1], where[-1] + per_row - 1), op)
                env["ctx"].record("ldmatrix", op, env["tid"], array, where)
                rows.append(array[(*where[:-1], slice(where[-1], where[-1] + per_row))])
            matrices = [np.array(rows[8 * q : 8 * q + 8]) for q in range(tiles)]
            if transpose:
                matrices = [m.T for m in matrices]
            word = [slice(per_word * (t % 4), per_word * (t % 4 + 1)) for t in range(32)]
            return [np.array([m[t // 4, word[t]] for m in matrices], dtype) for t in range(32)]

        def run(env):
            env[out] = yield ("warp", op, collective)

        return True, run

    def _nvgpu_mma_sync(self, op, ins, outs):
        a_slot, b_slot, c_slot = ins
        shape = [ir.IntegerAttr(s).value for s in ir.ArrayAttr(op.attributes["mmaShape"])]
        element = str(ir.VectorType(op.operands[0].type).element_type)
        if (shape, element) not in (([16, 8, 16], "f16"), ([16, 8, 32], "i8")):
            raise EmulationError(f"mma.sync {shape} of {element} is not emulated")
        accumulator = _dtype(ir.VectorType(op.results[0].type).element_type)
        (out,) = outs

        def collective(lanes: list[dict]) -> list:
            d = _mma([(env[a_slot], env[b_slot], env[c_slot]) for env in lanes], accumulator)
            return [np.array(pairs, accumulator) for pairs in d]

        def run(env):
            env[out] = yield ("warp", op, collective)

        return True, run

    def _nvvm_mma_sync(self, op, ins, outs):
        """bf16 m16n8k16 on 32-bit registers (two bf16 each)."""
        if _BF16 is None or "bf16" not in str(op.attributes["multiplicandAPtxType"]):
            raise EmulationError("only bf16 nvvm.mma.sync is emulated")
        a_slots, b_slots, c_slots = ins[:4], ins[4:6], ins[6:10]
        (out,) = outs

        def unpack(words):
            return np.array(words, np.int32).view(_BF16).reshape(len(words), 2)

        def collective(lanes: list[dict]) -> list:
            d = _mma([
                (unpack([env[s] for s in a_slots]), unpack([env[s] for s in b_slots]),
                 np.array([env[s] for s in c_slots], np.float32).reshape(2, 2))
                for env in lanes
            ])
            return [tuple(np.float32(v) for v in np.ravel(pairs)) for pairs in d]

        def run(env):
            env[out] = yield ("warp", op, collective)

        return True, run

    def _llvm_call_intrinsic(self, op, ins, outs):
        """The approximate math of tile-cuda-fast-math, computed exactly."""
        name = ir.StringAttr(op.attributes["intrin"]).value
        fn = _INTRINSICS.get(name)
        if fn is None:
            raise EmulationError(f"the emulator has no intrinsic '{name}'")
        (out,) = outs

        def run(env):
            env[out] = np.float32(fn(*[env[i] for i in ins]))

        return False, run

    def _llvm_inttoptr(self, op, ins, outs):
        (source,) = ins
        (out,) = outs

        def run(env):
            env[out] = np.int64(env[source])

        return False, run

    _llvm_addrspacecast = _llvm_inttoptr

    def _llvm_inline_asm(self, op, ins, outs):
        """`red.global.add.<type> [$0], $1;` (atomic_add's reductions): adds in
        the element type at a byte address inside one of the kernel's arguments."""
        text = ir.StringAttr(op.attributes["asm_string"]).value
        match = _RED.fullmatch(text)
        if match is None:
            raise EmulationError(f"the emulator has no inline PTX '{text}'")
        dtype, lanes = _RED_TYPES[match.group(1)]
        address_slot, value_slot = ins

        def run(env):
            address, value = int(env[address_slot]), env[value_slot]
            addend = np.asarray(value).reshape(1).view(dtype) if lanes == 2 else value
            target = _global_at(env["globals"], address, dtype, lanes, op)
            target += np.asarray(addend, dtype).reshape(lanes)

        return False, run

    def _llvm_extractvalue(self, op, ins, outs):
        (position,) = tuple(ir.DenseI64ArrayAttr(op.attributes["position"]))
        (source,) = ins
        (out,) = outs

        def run(env):
            env[out] = env[source][position]

        return False, run

    def _vector_bitcast(self, op, ins, outs):
        dtype = _dtype(ir.VectorType(op.results[0].type).element_type)
        (source,) = ins
        (out,) = outs

        def run(env):
            env[out] = np.ascontiguousarray(env[source]).view(dtype)

        return False, run


_F32 = np.dtype(np.float32)


def _mma(lanes: list[tuple], accumulator: np.dtype = _F32) -> list[list]:
    """m16n8kK from each lane's (A, B, C) fragments: the D fragment pairs per
    lane. A register holds w elements (2 of 16 bits: K = 16; 4 of 8 bits:
    K = 32): a_i at row g + 8 (i % 2), columns w t + K/2 (i // 2) + 0..w-1;
    b_i at rows w t + K/2 i + 0..w-1, column g."""
    width = len(np.asarray(lanes[0][0][0]))
    k = 8 * width
    exact = np.int64 if accumulator.kind == "i" else np.float64
    a = np.zeros((16, k), exact)
    b = np.zeros((k, 8), exact)
    c = np.zeros((16, 8), exact)
    for lane, (ra, rb, rc) in enumerate(lanes):
        g, t = lane // 4, lane % 4
        for i in range(4):
            col = width * t + k // 2 * (i // 2)
            a[g + 8 * (i % 2), col : col + width] = np.asarray(ra[i], exact)
        for i in range(2):
            row = width * t + k // 2 * i
            b[row : row + width, g] = np.asarray(rb[i], exact)
        for i, row in enumerate([g, g + 8]):
            c[row, 2 * t : 2 * t + 2] = np.asarray(rc[i], exact)
    d = (a @ b + c).astype(accumulator)
    return [[d[lane // 4, 2 * (lane % 4) : 2 * (lane % 4) + 2],
             d[lane // 4 + 8, 2 * (lane % 4) : 2 * (lane % 4) + 2]] for lane in range(32)]


_RED = re.compile(r"red\.global\.add\.(?:noftz\.)?(\w+) \[\$0\], \$1;")
_RED_TYPES = {"f32": (np.dtype(np.float32), 1), "f64": (np.dtype(np.float64), 1),
              "u32": (np.dtype(np.int32), 1), "u64": (np.dtype(np.int64), 1),
              "f16": (np.dtype(np.float16), 1), "f16x2": (np.dtype(np.float16), 2)}
if _BF16 is not None:
    _RED_TYPES.update({"bf16": (_BF16, 1), "bf16x2": (_BF16, 2)})


def _global_at(arrays: list[np.ndarray], address: int, dtype: np.dtype, lanes: int,
               op: ir.Operation) -> np.ndarray:
    """The `lanes` elements at byte `address`, as a view into the argument
    holding them (an error when none does, or the address is misaligned)."""
    size = dtype.itemsize * lanes
    for array in arrays:
        start = array.ctypes.data
        inside = start <= address and address + size <= start + array.nbytes
        if inside and array.dtype == dtype and array.flags.c_contiguous:
            if (address - start) % size:
                raise EmulationError(f"{op.location}: {size}-byte access at a misaligned address")
            first = (address - start) // dtype.itemsize
            return array.reshape(-1)[first : first + lanes]
    raise EmulationError(f"{op.location}: address {address:#x} is outside the arguments")


def _run(instructions, env) -> _Thread:
    for yields, fn in instructions:
        if yields:
            yield from fn(env)
        else:
            fn(env)


def _check_bounds(array: np.ndarray, where: tuple[int, ...], op: ir.Operation) -> None:
    if len(where) != array.ndim or any(not 0 <= w < s for w, s in zip(where, array.shape,
                                                                       strict=True)):
        raise EmulationError(f"{op.location}: {op.name} at {where} outside {array.shape}")


def _scalar_of(attr: ir.Attribute):
    if isinstance(attr, ir.BoolAttr):
        return bool(ir.BoolAttr(attr).value)
    if isinstance(attr, ir.IntegerAttr):
        return ir.IntegerAttr(attr).value
    return ir.FloatAttr(attr).value


def _unsigned(a) -> int:
    """An integer's bits read unsigned, for the unsigned comparisons."""
    value = np.asarray(a)
    return int(value.view(f"u{value.dtype.itemsize}")) if value.dtype.kind == "i" else int(a)


def _element_of(type_: ir.Type) -> ir.Type:
    """The element type of a vector type, or the type itself."""
    return ir.VectorType(type_).element_type if isinstance(type_, ir.VectorType) else type_


def _trunc_div(a, b):
    return np.int64(int(a / b)) if b else np.int64(0)


def _ceil_div(a, b):
    return np.int64(-(-int(a) // int(b)))


_ELEMENTWISE: dict[str, Callable] = {
    "addi": lambda a, b: a + b, "subi": lambda a, b: a - b, "muli": lambda a, b: a * b,
    "divui": lambda a, b: np.int64(int(a) // int(b)),
    "remui": lambda a, b: np.int64(int(a) % int(b)),
    "divsi": _trunc_div, "remsi": lambda a, b: np.int64(math.fmod(int(a), int(b))),
    "ceildivsi": _ceil_div, "ceildivui": _ceil_div,
    "floordivsi": lambda a, b: np.int64(int(a) // int(b)),
    "andi": lambda a, b: a & b, "ori": lambda a, b: a | b, "xori": lambda a, b: a ^ b,
    "shli": lambda a, b: a << b, "shrsi": lambda a, b: a >> b,
    "maxsi": max, "minsi": min, "maxui": lambda a, b: max(a, b, key=_unsigned),
    "minui": lambda a, b: min(a, b, key=_unsigned),
    "addf": lambda a, b: a + b, "subf": lambda a, b: a - b, "mulf": lambda a, b: a * b,
    "divf": lambda a, b: a / b, "negf": lambda a: -a, "remf": np.fmod,
    "maximumf": lambda a, b: np.maximum(a, b), "minimumf": lambda a, b: np.minimum(a, b),
    "maxnumf": np.fmax, "minnumf": np.fmin,
    "select": lambda c, a, b: np.where(c, a, b),
    "extf": lambda a: a, "truncf": lambda a: a, "sitofp": lambda a: a, "uitofp": lambda a: a,
    "fptosi": lambda a: np.trunc(a), "fptoui": lambda a: np.trunc(a),
    "index_cast": lambda a: a, "index_castui": lambda a: a, "extsi": lambda a: a,
    "trunci": lambda a: a,
    "exp": np.exp, "exp2": np.exp2, "log": np.log, "log2": np.log2, "sqrt": np.sqrt,
    "rsqrt": lambda a: 1 / np.sqrt(a), "absf": np.abs, "absi": np.abs, "tanh": np.tanh,
    "fma": lambda a, b, c: a * b + c, "floor": np.floor, "ceil": np.ceil,
    "sin": np.sin, "cos": np.cos, "powf": np.power, "copysign": np.copysign,
}
_INTRINSICS: dict[str, Callable] = {"llvm.nvvm.lg2.approx.f": np.log2, "llvm.tanh": np.tanh}
_CMPI = [lambda a, b: a == b, lambda a, b: a != b, lambda a, b: a < b, lambda a, b: a <= b,
         lambda a, b: a > b, lambda a, b: a >= b, lambda a, b: a < b, lambda a, b: a <= b,
         lambda a, b: a > b, lambda a, b: a >= b]
# arith.cmpf: false oeq ogt oge olt ole one ord ueq ugt uge ult ule une uno true.
_CMPF = [lambda a, b: False, lambda a, b: a == b, lambda a, b: a > b, lambda a, b: a >= b,
         lambda a, b: a < b, lambda a, b: a <= b,
         lambda a, b: a != b and not (np.isnan(a) or np.isnan(b)),
         lambda a, b: not (np.isnan(a) or np.isnan(b)),
         lambda a, b: a == b or np.isnan(a) or np.isnan(b),
         lambda a, b: not a <= b, lambda a, b: not a < b, lambda a, b: not a >= b,
         lambda a, b: not a > b, lambda a, b: a != b,
         lambda a, b: np.isnan(a) or np.isnan(b), lambda a, b: True]


def start_threads(body, launch_env: dict, ctx: _Ctx, block_args: list[int],
                  thread_args: list[int], sizes: list[int]) -> list[tuple[dict, object]]:
    """Each thread of the block's environment (its ids and the launch sizes)
    and its generator over `body`, not started."""
    threads = []
    for tid in range(ctx.threads):
        env = dict(launch_env)
        env["tid"] = tid
        env["ctx"] = ctx
        for slot, value in zip(block_args, ctx.block_ids, strict=True):
            env[slot] = np.int64(value)
        for slot, value in zip(thread_args, (tid, 0, 0), strict=True):
            env[slot] = np.int64(value)
        for slot, value in zip(sizes, (*ctx.grid, ctx.threads, 1, 1), strict=True):
            env[slot] = np.int64(value)
        threads.append((env, _run(body, env)))
    return threads


def _run_block(body, launch_env: dict, ctx: _Ctx, block_args: list[int],
               thread_args: list[int], sizes: list[int]) -> None:
    threads = start_threads(body, launch_env, ctx, block_args, thread_args, sizes)
    pending = {tid: None for tid in range(len(threads))}
    sends: dict[int, object] = {}
    rounds = 0
    while pending:
        stops: dict[int, tuple] = {}
        # Between barriers each thread runs its whole segment; alternating
        # the order of the threads makes a missing barrier show either way.
        order = list(pending) if rounds % 2 == 0 else list(reversed(pending))
        rounds += 1
        for tid in order:
            _, thread = threads[tid]
            try:
                stops[tid] = thread.send(sends.pop(tid, None)) if tid in sends else next(thread)
            except StopIteration:
                del pending[tid]
        if not stops:
            break
        if len(stops) != len(threads):
            raise EmulationError(f"{len(threads) - len(stops)} threads left the kernel while "
                                 "others wait at a barrier or warp op")
        kinds = {(s[0], s[1].location.__str__()) for s in stops.values()}
        if len(kinds) != 1:
            raise EmulationError(f"threads of a block stopped at different places: {kinds}")
        kind = next(iter(kinds))[0]
        if kind == "warp":
            collective = next(iter(stops.values()))[2]
            for warp in range(0, len(threads), 32):
                results = collective([threads[t][0] for t in range(warp, warp + 32)])
                for lane, value in enumerate(results):
                    sends[warp + lane] = value


def run_launches(module: ir.Module, entry: str, args: Sequence[object],
                 trace: list[SharedAccess] | None = None, *, compiler: _Compiler | None = None,
                 run_block: Callable[..., None] | None = None,
                 smem_alignment: int = 1) -> None:
    """Runs every gpu.launch of `entry` (host code evaluated too) on `args`,
    recording the shared accesses of ldmatrix, cp.async and loads in `trace`.
    The Hopper emulator passes its compiler and block scheduler, and the
    alignment its shared memory needs."""
    func = next(op for op in module.body.operations
                if ir.StringAttr(op.attributes["sym_name"]).value == entry)
    compiler = compiler or _Compiler()
    run_block = run_block or _run_block
    env: dict = {}
    block = func.regions[0].blocks[0]
    for value, arg in zip(block.arguments, args, strict=True):
        # a scalar takes its parameter's type (a float scale stays a float)
        env[compiler.slot(value)] = arg if isinstance(arg, np.ndarray) \
            else _dtype(value.type).type(arg)
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
        if [int(env[s]) for s in operands[4:6]] != [1, 1]:
            raise EmulationError("only 1-D thread blocks are emulated")
        smem_bytes = int(env[operands[6]]) if len(operands) > 6 else 0
        body_block = op.regions[0].blocks[0]
        launch_args = [compiler.slot(a) for a in body_block.arguments]
        body = compiler.block(body_block)
        for bz in range(grid[2]):
            for by in range(grid[1]):
                for bx in range(grid[0]):
                    # garbage until written
                    raw = np.full(smem_bytes + smem_alignment, 0xFF, np.uint8)
                    skip = -raw.ctypes.data % smem_alignment
                    smem = raw[skip : skip + smem_bytes]
                    ctx = _Ctx((bx, by, bz), smem, threads, tuple(grid), trace)
                    run_block(body, env, ctx, launch_args[:3], launch_args[3:6],
                              launch_args[6:])
