"""The `ascend` dialect: each op becomes an instruction for its pipe, or a scalar-unit step.

At issue time a step reads its operands, cuts the numpy views it will touch
(clipping GM regions for edge tiles), computes the byte regions for race
detection and the fixed part of its cost from the profile, and puts an
`Instr` into the pipe's queue; the scheduler applies `effect` when the pipe
starts it. Costs (cycles, all parameters of the profile):

- DMA (MTE2/MTE3/FIX to or from GM): start-up + the GM transfer, whose rate
  the L2 model decides when the instruction starts;
- on-chip moves (MTE1, L1/UB paths, V copies, the fixpipe into L1 or UB):
  start-up + bytes / path bandwidth; a dual-destination fixpipe (`dual_dst`,
  the AIC writing half of the rows into each AIV's UB) moves all of its bytes
  on the AIC's FIX pipe at the l0c->ub rate;
- mmad: start-up + (M, N rounded up to 16) x (K rounded up to C0) / MACs per cycle;
- vector ops: one start-up per 255 repeats + one cycle-per-repeat per
  256 bytes of the widest operand.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np
from mlir import ir

from tilec.sim import layout
from tilec.sim.diagnostics import fail
from tilec.sim.dtypes import ElementType, element_type
from tilec.sim.instruction import (
    COPY_PIPES,
    CROSS_SET,
    CROSS_WAIT,
    EXEC,
    FIX,
    MARK,
    MTE1,
    MTE2,
    PIPE_IDS,
    PIPE_NAMES,
    PIPES_OF_CORE,
    SET,
    WAIT,
    Instr,
    M,
    S,
    V,
)
from tilec.sim.interpreter import Compiler, compiles, keyword, location, memory_space
from tilec.sim.memory import Buffer, region
from tilec.sim.memref_ops import segments, twin_view, vector_ubs
from tilec.targets.ascend.machine import mmad_orders_itself


def _sizes(op: ir.Operation) -> list[int]:
    return list(op.attributes["sizes"])


def _element(value: ir.Value, where: str) -> ElementType:
    element = element_type(value.type.element_type)
    if element is None:
        raise fail(where, f"the simulator cannot store elements of type "
                          f"{value.type.element_type}")
    return element


def _startup(c: Compiler, pipe: int) -> int:
    return c.profile.startup_cycles[PIPE_NAMES[pipe].lower()]


def _require_space(value: ir.Value, spaces: tuple[str, ...], what: str, where: str) -> str:
    space = memory_space(value.type)
    if space not in spaces:
        raise fail(where, f"{what} must be in {' or '.join(spaces)}, not {space}")
    return space


def _gm_box(buffer: Buffer, offsets: list[int], sizes: list[int]):
    """The part of a region of a GM buffer that exists: (index into the
    buffer, index into the region), or None when nothing does."""
    outer, inner = [], []
    for offset, size, extent in zip(offsets, sizes, buffer.array.shape, strict=True):
        lo, hi = max(offset, 0), min(offset + size, extent)
        if hi <= lo:
            return None
        outer.append(slice(lo, hi))
        inner.append(slice(lo - offset, hi - offset))
    return tuple(outer), tuple(inner)


def _local_box(buffer: Buffer, offsets: list[int], sizes: list[int], where: str,
               what: str) -> tuple[slice, ...]:
    """The index of a region that must lie inside an on-chip buffer."""
    for dim, (offset, size, extent) in enumerate(
            zip(offsets, sizes, buffer.array.shape, strict=True)):
        if offset < 0 or offset + size > extent:
            raise fail(where, f"{what}: [{offset}, {offset + size}) of dimension {dim} is outside "
                              f"the {buffer.arena.space} buffer ({extent} elements)")
    return tuple(slice(o, o + n) for o, n in zip(offsets, sizes, strict=True))


def _regions(*pairs: tuple[Buffer, np.ndarray]) -> tuple:
    found = (region(buffer.arena, array) for buffer, array in pairs)
    return tuple(r for r in found if r is not None)


# -- grid -------------------------------------------------------------------------


@compiles("ascend.block_idx", "ascend.block_num", "ascend.sub_block_idx")
def _grid(c: Compiler, op: ir.Operation) -> None:
    out = c.slot(op.results[0])
    nxt = c.pc + 1
    name = op.operation.name
    if name == "ascend.block_idx":
        def step(core) -> int:
            core.env[out] = core.block_idx
            return nxt
    elif name == "ascend.block_num":
        def step(core) -> int:
            core.env[out] = core.machine.block_dim
            return nxt
    else:
        def step(core) -> int:
            core.env[out] = core.sub if core.kind == "aiv" else 0
            return nxt
    c.emit(step)


# -- data movement --------------------------------------------------------------------


@compiles("ascend.copy")
def _copy(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    (src,), src_offsets, (dst,), dst_offsets = segments(op)
    sizes = _sizes(op)
    src_space, dst_space = memory_space(src.type), memory_space(dst.type)
    path = f"{src_space}->{dst_space}"
    if (src_space, dst_space) not in c.profile.copy_paths:
        raise fail(where, f"ascend.copy {src_space} -> {dst_space} is not a data path of the "
                          f"{c.profile.name} profile")
    pipe = COPY_PIPES[src_space, dst_space]
    atomic = "atomic_add" in op.attributes
    if atomic and (src_space, dst_space) != ("ub", "gm"):
        raise fail(where, f"ascend.copy atomic_add needs a ub -> gm path, not "
                          f"{src_space} -> {dst_space}")
    suffix = " atomic_add" if atomic else ""
    site = c.site(op, f"ascend.copy {src_space} -> {dst_space}{suffix}")
    if atomic:
        site = dataclasses.replace(site, atomic=True)
        element = _element(dst, where)
    startup = _startup(c, pipe)
    bandwidth = c.profile.bandwidth.get(path)
    src_slot, dst_slot = c.slot(src), c.slot(dst)
    src_offset_slots, dst_offset_slots = c.slots_of(src_offsets), c.slots_of(dst_offsets)
    nxt = c.pc + 1

    def from_gm(source: Buffer, target: Buffer, so: list[int], do: list[int]) -> Instr:
        local = target.array[_local_box(target, do, sizes, where, "ascend.copy destination")]
        box = _gm_box(source, so, sizes)
        if box is None:
            def effect() -> None:
                local[...] = 0
            read = None
        else:
            outer, inner = box
            remote = source.array[outer]
            if remote.shape == local.shape:
                def effect() -> None:
                    local[...] = remote
            else:
                def effect() -> None:
                    local[...] = 0
                    local[inner] = remote
            read = region(source.arena, remote)
        return Instr(EXEC, pipe, site, cycles=startup, effect=effect,
                     reads=() if read is None else (read,), writes=_regions((target, local)),
                     gm_read=read, path=path, nbytes=0 if read is None else read.nbytes)

    def to_gm(source: Buffer, target: Buffer, so: list[int], do: list[int]) -> Instr:
        local = source.array[_local_box(source, so, sizes, where, "ascend.copy source")]
        box = _gm_box(target, do, sizes)
        if box is None:
            return Instr(EXEC, pipe, site, cycles=startup, reads=_regions((source, local)),
                         path=path)
        outer, inner = box
        remote, part = target.array[outer], local[inner]

        if atomic:
            def effect() -> None:
                # The core's add happens in the GM-side unit: one rounding per element.
                remote[...] = element.store(element.values(remote) + element.values(part))
        else:
            def effect() -> None:
                remote[...] = part

        written = region(target.arena, remote)
        return Instr(EXEC, pipe, site, cycles=startup, effect=effect,
                     reads=_regions((source, part)), writes=(written,), gm_write=written,
                     path=path, nbytes=written.nbytes)

    def on_chip(source: Buffer, target: Buffer, so: list[int], do: list[int]) -> Instr:
        a = source.array[_local_box(source, so, sizes, where, "ascend.copy source")]
        b = target.array[_local_box(target, do, sizes, where, "ascend.copy destination")]

        def effect() -> None:
            b[...] = a

        return Instr(EXEC, pipe, site, cycles=startup + math.ceil(a.nbytes / bandwidth),
                     effect=effect, reads=_regions((source, a)), writes=_regions((target, b)),
                     path=path, nbytes=a.nbytes)

    make = from_gm if src_space == "gm" else to_gm if dst_space == "gm" else on_chip

    def step(core) -> int:
        env = core.env
        core.issue(make(env[src_slot], env[dst_slot], [env[i] for i in src_offset_slots],
                        [env[i] for i in dst_offset_slots]))
        return nxt

    c.emit(step)


@compiles("ascend.copy_nd2nz")
def _copy_nd2nz(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    view = op.opview
    src, offsets, dst, dst_row = view.src, list(view.src_offsets), view.dst, view.dst_row
    rows, cols = _sizes(op)
    element = _element(src, where)
    c0 = layout.c0(element.itemsize)
    transpose, zz = "transpose" in op.attributes, "zz" in op.attributes
    # `dst` may be the tile of a larger matrix: the region fills its leading corner and
    # the rest is zero (`padded` is the whole tile, row-major)
    held = tuple(dst.type.shape)
    if transpose:  # Dn2Nz: the Nz of the region's transpose
        least = layout.nz_shape(cols, rows, c0)
        padded = (held[0] * c0, held[1] * layout.FRACTAL_ROWS)
        pack = lambda m: layout.nd_to_nz(m.T, c0)  # noqa: E731
    elif zz:  # one Nd2Nz matrix per 16 rows
        least = layout.zz_shape(rows, cols, c0)
        padded = (held[0] * layout.FRACTAL_ROWS, held[1] * c0)
        pack = lambda m: layout.nd_to_zz(m, c0)  # noqa: E731
    else:
        least = layout.nz_shape(rows, cols, c0)
        padded = (held[1] * layout.FRACTAL_ROWS, held[0] * c0)
        pack = lambda m: layout.nd_to_nz(m, c0)  # noqa: E731
    if len(held) != 4 or held[2:] != least[2:] or held[0] < least[0] or held[1] < least[1]:
        raise fail(where, f"ascend.copy_nd2nz of {rows}x{cols} needs an L1 buffer of shape "
                          f"at least {'x'.join(map(str, least))}, not {dst.type}")
    form = " dn2nz" if transpose else " zz" if zz else ""
    site = c.site(op, f"ascend.copy_nd2nz{form} gm -> l1")
    # The Zz layout takes one Nd2Nz DMA per 16-row block, each with its start-up; the
    # Dn2Nz reads the same GM rows as an Nd2Nz of the region (no public rate of its own).
    # The zero fill of a tile larger than the region runs on MTE2 ahead of the DMA.
    startup = _startup(c, MTE2) * ((least[0] if zz else 1) + (held != least and dst_row is None))
    src_slot, dst_slot, offset_slots = c.slot(src), c.slot(dst), c.slots_of(offsets)
    row_slot = None if dst_row is None else c.slot(dst_row)
    width = min(layout.ceil_to(cols, c0), padded[1])  # a row's 32-byte blocks
    nxt = c.pc + 1

    def step(core) -> int:
        env = core.env
        source: Buffer = env[src_slot]
        target: Buffer = env[dst_slot]
        box = _gm_box(source, [env[i] for i in offset_slots], [rows, cols])
        first = None if row_slot is None else env[row_slot]  # read at issue, as the DMA does
        nz = target.array
        if box is None:
            remote, inner, read = None, None, None
        else:
            outer, inner = box
            remote = source.array[outer]
            read = region(source.arena, remote)

        def effect() -> None:
            if row_slot is None:  # the region fills the leading corner, the rest is zero
                tile = np.zeros(padded, dtype=nz.dtype)
                if remote is not None:
                    tile[inner] = remote
            else:  # only the region's rows (to their blocks' ends); past the tile: dropped
                tile = layout.nz_to_nd(nz).copy()
                part = np.zeros((rows, width), dtype=nz.dtype)
                if remote is not None:
                    part[inner] = remote
                low, high = max(0, -first), min(rows, padded[0] - first)
                if high > low:
                    tile[first + low:first + high, :width] = part[low:high]
            nz[...] = pack(tile)

        core.issue(Instr(EXEC, MTE2, site, cycles=startup, effect=effect,
                         reads=() if read is None else (read,), writes=_regions((target, nz)),
                         gm_read=read, path="gm->l1",
                         nbytes=0 if read is None else read.nbytes))
        return nxt

    c.emit(step)


def _blocks(extent: int, per_block: int) -> int:
    return -(-extent // per_block)


def _compile_load(c: Compiler, op: ir.Operation, to_l0a: bool) -> None:
    """`load_l0a` (Nz -> Zz) and `load_l0b` (Nz -> Zn): whole fractals move; with `zz`
    the L1 tile is Zz (LoadDataWithTranspose of 16 x 16 squares)."""
    where = location(op)
    src, dst = list(op.operands)
    transpose = "transpose" in op.attributes
    zz = "zz" in op.attributes
    element = _element(src, where)
    c0 = layout.c0(element.itemsize)
    rows, cols = _sizes(op)  # M x K for L0A, K x N for L0B
    r16 = layout.FRACTAL_ROWS
    if to_l0a:
        out_rows, out_cols = layout.ceil_to(rows, r16), layout.ceil_to(cols, c0)
        dst_blocks = (out_rows // r16, out_cols // c0)
        pack = lambda m: layout.nd_to_zz(m, c0)  # noqa: E731
    else:
        out_rows, out_cols = layout.ceil_to(rows, c0), layout.ceil_to(cols, r16)
        dst_blocks = (out_rows // c0, out_cols // r16)
        pack = lambda m: layout.nd_to_zn(m, c0)  # noqa: E731
    # The L1 tile is the Nz (or Zz) layout of the operand (rows x cols), or of its
    # transpose.
    held = (cols, rows) if transpose else (rows, cols)
    src_blocks = ((_blocks(held[0], r16), _blocks(held[1], c0)) if zz
                  else (_blocks(held[1], c0), _blocks(held[0], r16)))
    unpack = layout.zz_to_nd if zz else layout.nz_to_nd
    for what, value, blocks in (("source", src, src_blocks), ("destination", dst, dst_blocks)):
        have = tuple(value.type.shape[:2])
        if have[0] < blocks[0] or have[1] < blocks[1]:
            raise fail(where, f"{op.operation.name} {rows}x{cols}: the {what} needs at least "
                              f"{blocks[0]}x{blocks[1]} fractals, {value.type} has "
                              f"{have[0]}x{have[1]}")
    path = "l1->l0a" if to_l0a else "l1->l0b"
    bandwidth = c.profile.bandwidth[path]
    startup = _startup(c, MTE1)
    site = c.site(op, op.operation.name + (" transpose" if transpose else "")
                  + (" zz" if zz else ""))
    src_slot, dst_slot = c.slot(src), c.slot(dst)
    nxt = c.pc + 1

    def step(core) -> int:
        env = core.env
        source: Buffer = env[src_slot]
        target: Buffer = env[dst_slot]
        nz = source.array[:src_blocks[0], :src_blocks[1]]
        out = target.array[:dst_blocks[0], :dst_blocks[1]]

        def effect() -> None:
            matrix = unpack(nz)
            if transpose:
                matrix = matrix.T
            out[...] = pack(layout.fit(matrix, out_rows, out_cols))

        core.issue(Instr(EXEC, MTE1, site, cycles=startup + math.ceil(out.nbytes / bandwidth),
                         effect=effect, reads=_regions((source, nz)),
                         writes=_regions((target, out)), path=path, nbytes=out.nbytes))
        return nxt

    c.emit(step)


@compiles("ascend.load_l0a")
def _load_l0a(c: Compiler, op: ir.Operation) -> None:
    _compile_load(c, op, to_l0a=True)


@compiles("ascend.load_l0b")
def _load_l0b(c: Compiler, op: ir.Operation) -> None:
    _compile_load(c, op, to_l0a=False)


@compiles("ascend.mmad")
def _mmad(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    a, b, acc = list(op.operands)
    m, n, k = _sizes(op)
    init = "init" in op.attributes
    left, right, out = _element(a, where), _element(b, where), _element(acc, where)
    rate = c.profile.macs_per_cycle(left.name)
    if rate is None:
        raise fail(where, f"the cube of the {c.profile.name} profile has no {left.name} mode")
    c0 = layout.c0(left.itemsize)
    m1, n1, k1 = _blocks(m, 16), _blocks(n, 16), _blocks(k, c0)
    # Integer products are exact in float64 and BLAS makes them fast.
    compute = np.float64 if out.kind == "int" else np.float32
    cycles = _startup(c, M) + math.ceil(m1 * 16 * n1 * 16 * k1 * c0 / rate)
    site = c.site(op, "ascend.mmad" + (" init" if init else ""))
    ordered = mmad_orders_itself(m, n)
    slots = c.slots_of([a, b, acc])
    nxt = c.pc + 1

    def step(core) -> int:
        env = core.env
        ba, bb, bc = (env[s] for s in slots)
        za = ba.array[:m1, :k1]
        zb = bb.array[:k1, :n1]
        nz = bc.array[:n1, :m1]

        def effect() -> None:
            lhs = left.values(layout.zz_to_nd(za))[:, :k].astype(compute)
            rhs = right.values(layout.zn_to_nd(zb))[:k, :].astype(compute)
            product = lhs @ rhs
            if not init:
                product += out.values(layout.nz_to_nd(nz))
            nz[...] = layout.nd_to_nz(out.store(product), 16)

        reads = _regions((ba, za), (bb, zb)) + (() if init else _regions((bc, nz)))
        core.issue(Instr(EXEC, M, site, cycles=cycles, effect=effect, reads=reads,
                         writes=_regions((bc, nz)), macs=m * n * k, ordered=ordered))
        return nxt

    c.emit(step)


@compiles("ascend.fixpipe")
def _fixpipe(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    src, dst, *offsets = list(op.operands)
    m, n = _sizes(op)
    relu = "relu" in op.attributes
    dual = "dual_dst" in op.attributes
    source_type, target_type = _element(src, where), _element(dst, where)
    space = memory_space(dst.type)
    if space not in c.profile.fixpipe_destinations:
        raise fail(where, f"the fixpipe of the {c.profile.name} profile cannot write {space}")
    m1, n1 = _blocks(m, 16), _blocks(n, 16)
    startup = _startup(c, FIX)
    path = f"l0c->{space}"
    site = c.site(op, f"ascend.fixpipe l0c -> {space}" + (" relu" if relu else "")
                  + (" dual_dst" if dual else ""))
    src_slot, dst_slot, offset_slots = c.slot(src), c.slot(dst), c.slots_of(offsets)
    c0 = layout.c0(target_type.itemsize)
    nxt = c.pc + 1

    def values(nz: np.ndarray) -> np.ndarray:
        matrix = source_type.values(layout.nz_to_nd(nz))[:m, :n]
        return np.maximum(matrix, 0) if relu else matrix

    def to_gm(source: Buffer, nz: np.ndarray, target: Buffer, offs: list[int]) -> Instr:
        box = _gm_box(target, offs, [m, n])
        if box is None:
            return Instr(EXEC, FIX, site, cycles=startup, reads=_regions((source, nz)),
                         path=path)
        outer, inner = box
        remote = target.array[outer]

        def effect() -> None:
            remote[...] = target_type.store(values(nz)[inner])

        written = region(target.arena, remote)
        return Instr(EXEC, FIX, site, cycles=startup, effect=effect,
                     reads=_regions((source, nz)), writes=(written,), gm_write=written,
                     path=path, nbytes=written.nbytes)

    def to_ub(source: Buffer, nz: np.ndarray, target: Buffer, offs: list[int]) -> Instr:
        out = target.array[_local_box(target, offs, [m, n], where, "ascend.fixpipe destination")]

        def effect() -> None:
            out[...] = target_type.store(values(nz))

        return Instr(EXEC, FIX, site,
                     cycles=startup + math.ceil(out.nbytes / c.profile.bandwidth[path]),
                     effect=effect, reads=_regions((source, nz)),
                     writes=_regions((target, out)), path=path, nbytes=out.nbytes)

    def to_l1(source: Buffer, nz: np.ndarray, target: Buffer, offs: list[int]) -> Instr:
        row, col = offs
        r1, c1 = row // 16, col // c0
        blocks = target.array[c1:_blocks(col + n, c0), r1:_blocks(row + m, 16)]
        if (row < 0 or col < 0 or blocks.shape[0] * c0 < col + n - c1 * c0
                or blocks.shape[1] * 16 < row + m - r1 * 16):
            raise fail(where, f"ascend.fixpipe: {m}x{n} at [{row}, {col}] does not fit in "
                              f"the l1 buffer of shape {target.array.shape}")

        def effect() -> None:
            matrix = layout.nz_to_nd(blocks)
            matrix[row - r1 * 16:row - r1 * 16 + m, col - c1 * c0:col - c1 * c0 + n] = \
                target_type.store(values(nz))
            blocks[...] = layout.nd_to_nz(matrix, c0)

        return Instr(EXEC, FIX, site,
                     cycles=startup + math.ceil(m * n * target_type.itemsize
                                                / c.profile.bandwidth[path]),
                     effect=effect, reads=_regions((source, nz)),
                     writes=_regions((target, blocks)), path=path,
                     nbytes=m * n * target_type.itemsize)

    def to_both_ubs(core, source: Buffer, nz: np.ndarray, target: Buffer,
                    offs: list[int]) -> Instr:
        """Rows [s M/2, (s+1) M/2) into sub-block s's UB, at the same bytes of each."""
        arenas = vector_ubs(core, where)
        if target.arena is not arenas[0]:
            raise fail(where, "ascend.fixpipe dual_dst writes a UB buffer of the AIC (the bytes "
                              "it names in both AIVs' UBs)")
        half = m // 2
        first = target.array[_local_box(target, offs, [half, n], where,
                                        "ascend.fixpipe destination")]
        outs = [first, twin_view(first, arenas[0], arenas[1])]

        def effect() -> None:
            matrix = target_type.store(values(nz))
            for sub, out in enumerate(outs):
                out[...] = matrix[sub * half:(sub + 1) * half]

        nbytes = 2 * first.nbytes
        return Instr(EXEC, FIX, site,
                     cycles=startup + math.ceil(nbytes / c.profile.bandwidth[path]),
                     effect=effect, reads=_regions((source, nz)),
                     writes=tuple(region(a, o) for a, o in zip(arenas, outs, strict=True)),
                     path=path, nbytes=nbytes)

    make = {"gm": to_gm, "ub": to_ub, "l1": to_l1}[space]

    def step(core) -> int:
        env = core.env
        source: Buffer = env[src_slot]
        nz, target, offs = source.array[:n1, :m1], env[dst_slot], [env[i] for i in offset_slots]
        core.issue(to_both_ubs(core, source, nz, target, offs) if dual
                   else make(source, nz, target, offs))
        return nxt

    c.emit(step)


# -- vector ------------------------------------------------------------------------


def vector_cycles(profile, count: int, itemsize: int) -> int:
    repeats = -(-count * itemsize // profile.vector_bytes_per_repeat)
    instructions = max(1, -(-repeats // profile.vector_max_repeats))
    return instructions * profile.startup_cycles["v"] + repeats * profile.vector_cycles_per_repeat


def _compile_vector(c: Compiler, op: ir.Operation, text: str, outputs: list[ir.Value],
                    inputs: list[ir.Value], scalars: list[ir.Value],
                    compute: Callable[..., list[np.ndarray]]) -> None:
    """A V-pipe op on whole UB buffers: `compute(*input values, *scalars)`
    returns the values of `outputs`, stored with their element types."""
    where = location(op)
    for value in (*outputs, *inputs):
        _require_space(value, ("ub",), f"every buffer of {op.operation.name}", where)
    out_types = [_element(v, where) for v in outputs]
    in_types = [_element(v, where) for v in inputs]
    itemsize = max(t.itemsize for t in (*out_types, *in_types))
    site = c.site(op, text)
    out_slots, in_slots, scalar_slots = (c.slots_of(outputs), c.slots_of(inputs),
                                         c.slots_of(scalars))
    profile = c.profile
    nxt = c.pc + 1

    def step(core) -> int:
        env = core.env
        targets = [env[s] for s in out_slots]
        sources = [env[s] for s in in_slots]
        constants = [env[s] for s in scalar_slots]
        count = max(b.array.size for b in (*targets, *sources))

        def effect() -> None:
            values = [t.values(b.array) for t, b in zip(in_types, sources, strict=True)]
            results = compute(*values, *constants)
            for element, buffer, result in zip(out_types, targets, results, strict=True):
                buffer.array[...] = element.store(_shaped(result, buffer.array.shape))

        core.issue(Instr(EXEC, V, site, cycles=vector_cycles(profile, count, itemsize),
                         effect=effect, reads=_regions(*((b, b.array) for b in sources)),
                         writes=_regions(*((b, b.array) for b in targets)), path="v",
                         nbytes=count * itemsize))
        return nxt

    c.emit(step)


def _shaped(result: object, shape: tuple[int, ...]) -> np.ndarray:
    """A result in the shape of its buffer: reshaped (a reduction's (R,) into
    (R, 1)) or broadcast (a scalar)."""
    result = np.asarray(result)
    if result.size == int(np.prod(shape)):
        return result.reshape(shape)
    return np.broadcast_to(result, shape)


def _int_division(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.trunc(np.divide(a, b, dtype=np.float64)).astype(a.dtype)


def _binary(kind: str, is_float: bool) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    if kind == "div":
        return np.divide if is_float else _int_division
    return {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum,
            "min": np.minimum}[kind]


@compiles("ascend.vbin")
def _vbin(c: Compiler, op: ir.Operation) -> None:
    kind = keyword(op.attributes["kind"])
    dst, a, b = list(op.operands)
    fn = _binary(kind, isinstance(dst.type.element_type, ir.FloatType))
    _compile_vector(c, op, f"ascend.vbin {kind}", [dst], [a, b], [],
                    lambda x, y: [fn(x, y)])


@compiles("ascend.vbins")
def _vbins(c: Compiler, op: ir.Operation) -> None:
    kind = keyword(op.attributes["kind"])
    dst, src, scalar = list(op.operands)
    fn = {"adds": np.add, "muls": np.multiply, "maxs": np.maximum, "mins": np.minimum}[kind]
    element = _element(src, location(op))
    dtype = element.compute_dtype.type
    _compile_vector(c, op, f"ascend.vbins {kind}", [dst], [src], [scalar],
                    lambda x, s: [fn(x, dtype(s))])


_UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "exp": np.exp, "ln": np.log, "abs": np.abs, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "relu": lambda x: np.maximum(x, 0),
    "rec": lambda x: 1 / x, "neg": np.negative,
}


@compiles("ascend.vunary")
def _vunary(c: Compiler, op: ir.Operation) -> None:
    kind = keyword(op.attributes["kind"])
    dst, src = list(op.operands)
    fn = _UNARY[kind]
    _compile_vector(c, op, f"ascend.vunary {kind}", [dst], [src], [], lambda x: [fn(x)])


@compiles("ascend.vdup")
def _vdup(c: Compiler, op: ir.Operation) -> None:
    dst, scalar = list(op.operands)
    _compile_vector(c, op, "ascend.vdup", [dst], [], [scalar], lambda s: [s])


def _rounder(mode: str) -> Callable[[np.ndarray], np.ndarray]:
    return {"none": np.rint, "rint": np.rint, "floor": np.floor, "ceil": np.ceil,
            "trunc": np.trunc,
            "round": lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5)}[mode]


@compiles("ascend.vcast")
def _vcast(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    dst, src = list(op.operands)
    mode = keyword(op.attributes["round"]) if "round" in op.attributes else "none"
    target, source = _element(dst, where), _element(src, where)
    if target.is_float and source.is_float and mode not in ("none", "rint"):
        raise fail(where, f"ascend.vcast: rounding '{mode}' between float types is not "
                          f"modelled (only none/rint, to nearest even)")
    if target.is_float:
        fn = lambda x: [x]  # noqa: E731
    else:
        rounding = _rounder(mode)
        info = np.iinfo(target.storage) if target.kind != "bool" else None

        def fn(x: np.ndarray) -> list[np.ndarray]:
            if not source.is_float:
                return [x]
            rounded = rounding(x)
            return [rounded if info is None else np.clip(rounded, info.min, info.max)]
    text = f"ascend.vcast {source.name} -> {target.name}" + (f" {mode}" if mode != "none" else "")
    _compile_vector(c, op, text, [dst], [src], [], fn)


@compiles("ascend.vreduce")
def _vreduce(c: Compiler, op: ir.Operation) -> None:
    kind = keyword(op.attributes["kind"])
    dst, src = list(op.operands)
    element = _element(src, location(op))
    # Sums accumulate in float32 at least, as the hardware's reduction tree does.
    wide = np.float32 if element.is_float and element.itemsize < 4 else None
    fn = {"sum": lambda x: np.sum(x, axis=-1, dtype=wide), "max": lambda x: np.max(x, axis=-1),
          "min": lambda x: np.min(x, axis=-1)}[kind]
    _compile_vector(c, op, f"ascend.vreduce {kind}", [dst], [src], [], lambda x: [fn(x)])


@compiles("ascend.vbrcb")
def _vbrcb(c: Compiler, op: ir.Operation) -> None:
    dst, src = list(op.operands)
    shape = tuple(dst.type.shape)
    _compile_vector(c, op, "ascend.vbrcb", [dst], [src], [],
                    lambda x: [np.broadcast_to(np.reshape(x, (*shape[:-1], 1)), shape)])


_COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
            "gt": np.greater, "ge": np.greater_equal}


@compiles("ascend.vcmp")
def _vcmp(c: Compiler, op: ir.Operation) -> None:
    kind = keyword(op.attributes["kind"])
    mask, a, b = list(op.operands)
    fn = _COMPARE[kind]
    _compile_vector(c, op, f"ascend.vcmp {kind}", [mask], [a, b], [], lambda x, y: [fn(x, y)])


@compiles("ascend.vsel")
def _vsel(c: Compiler, op: ir.Operation) -> None:
    dst, mask, a, b = list(op.operands)
    _compile_vector(c, op, "ascend.vsel", [dst], [mask, a, b], [],
                    lambda m, x, y: [np.where(m != 0, x, y)])


# -- synchronization ------------------------------------------------------------------


def _check_pipe(core, pipe: int, site) -> None:
    if pipe not in PIPES_OF_CORE[core.kind]:
        raise fail(site.location, f"{site.text}: {core.name} has no "
                                  f"{PIPE_NAMES[pipe].lower()} pipe")


@compiles("ascend.set_flag", "ascend.wait_flag")
def _flag(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    src, dst = (PIPE_IDS[keyword(op.attributes[name])] for name in ("src", "dst"))
    event = ir.IntegerAttr(op.attributes["event"]).value
    name = op.operation.name
    if not 0 <= event < c.profile.flag_event_ids:
        raise fail(where, f"{name}: event {event} is not in [0, {c.profile.flag_event_ids})")
    key = (src, dst, event)
    if name == "ascend.set_flag":
        c.flags_set.add(key)
    site = c.site(op, f"{name} {PIPE_NAMES[src].lower()} -> {PIPE_NAMES[dst].lower()}, {event}")
    pc = c.pc
    nxt = pc + 1
    if name == "ascend.set_flag":
        if src == S:
            def step(core) -> int:
                _check_pipe(core, dst, site)
                core.machine.set_flag(core, S, key, site)
                return nxt
        else:
            instr = Instr(SET, src, site, key=key)

            def step(core) -> int:
                _check_pipe(core, src, site)
                _check_pipe(core, dst, site)
                core.issue(instr)
                return nxt
    elif dst == S:
        def step(core) -> int:
            machine = core.machine
            if machine.try_wait(core, S, key):
                core.scalar_waited(site)
                return nxt
            return machine.stall(core, "flag", site, pc, key)
    else:
        instr = Instr(WAIT, dst, site, key=key)

        def step(core) -> int:
            _check_pipe(core, src, site)
            _check_pipe(core, dst, site)
            core.issue(instr)
            return nxt
    c.emit(step)


def _stall_until_drained(core, site, pc: int) -> bool:
    """Stalls the scalar unit at `pc` unless every pipe of `core` is idle now (True: stalled)."""
    machine = core.machine
    when = core.drained_at()
    if when is not None and when <= machine.now:
        return False
    machine.stall(core, "drain", site, pc)
    if when is not None:
        machine.schedule(when, machine.resume, core, core.stall)
    return True


@compiles("ascend.pipe_barrier")
def _pipe_barrier(c: Compiler, op: ir.Operation) -> None:
    pipe_name = keyword(op.attributes["pipe"])
    site = c.site(op, f"ascend.pipe_barrier {pipe_name}")
    pc = c.pc
    nxt = pc + 1
    if pipe_name == "all":
        def step(core) -> int:
            if _stall_until_drained(core, site, pc):
                return -1
            core.join_all_pipes()
            return nxt
    elif pipe_name == "s":
        def step(core) -> int:
            return nxt
    else:
        instr = Instr(MARK, PIPE_IDS[pipe_name], site)

        def step(core) -> int:
            _check_pipe(core, instr.pipe, site)
            core.issue(instr)
            return nxt
    c.emit(step)


def _check_cross_core_flag(c: Compiler, where, flag: int) -> None:
    if not 0 <= flag < c.profile.cross_core_flag_ids:
        raise fail(where, f"cross-core flag {flag} is not in [0, {c.profile.cross_core_flag_ids})")


@compiles("ascend.cross_core_set_flag")
def _cross_core_set_flag(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    mode = ir.IntegerAttr(op.attributes["mode"]).value
    flag = ir.IntegerAttr(op.attributes["flag"]).value
    pipe = PIPE_IDS[keyword(op.attributes["pipe"])]
    modes = c.profile.cross_core_modes
    if mode not in modes:
        raise fail(where, f"cross-core mode {mode} does not exist on the {c.profile.name} "
                          f"profile (modes: {', '.join(map(str, sorted(modes)))})")
    _check_cross_core_flag(c, where, flag)
    site = c.site(op, f"ascend.cross_core_set_flag mode {mode}, "
                      f"{PIPE_NAMES[pipe].lower()}, {flag}")
    instr = Instr(CROSS_SET, pipe, site, key=(mode, flag))
    c.cross_sets.add((c.core_scope, mode, flag))
    nxt = c.pc + 1

    def step(core) -> int:
        _check_pipe(core, pipe, site)
        if pipe == S:
            core.machine.cross_set(core, S, instr)
        else:
            core.issue(instr)
        return nxt

    c.emit(step)


@compiles("ascend.cross_core_wait_flag")
def _cross_core_wait_flag(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    flag = ir.IntegerAttr(op.attributes["flag"]).value
    pipe = PIPE_IDS[keyword(op.attributes["pipe"])] if "pipe" in op.attributes else S
    _check_cross_core_flag(c, where, flag)
    text = f"ascend.cross_core_wait_flag {flag}" + (
        f", {PIPE_NAMES[pipe].lower()}" if pipe != S else "")
    site = c.site(op, text)
    pc = c.pc
    nxt = pc + 1
    if pipe == S:
        def step(core) -> int:
            machine = core.machine
            if machine.try_cross_wait(core, S, flag):
                core.scalar_waited(site)
                return nxt
            return machine.stall(core, "cross", site, pc, flag)
    else:
        instr = Instr(CROSS_WAIT, pipe, site, key=(flag,))

        def step(core) -> int:
            _check_pipe(core, pipe, site)
            core.issue(instr)
            return nxt
    c.emit(step)


@compiles("ascend.sync_all")
def _sync_all(c: Compiler, op: ir.Operation) -> None:
    site = c.site(op, "ascend.sync_all")
    pc = c.pc
    nxt = pc + 1

    def step(core) -> int:
        if _stall_until_drained(core, site, pc):
            return -1
        return core.machine.sync_all_arrive(core, site, nxt)

    c.emit(step)
