"""`memref` ops: placing buffers in on-chip memories, views, and scalar loads/stores.

A view (`subview`, `cast`, `collapse_shape`, `expand_shape`) is a numpy view
of the same bytes and costs nothing. A UB buffer of an AIC (a mix kernel's
ring that the 950's fixpipe writes) names the same planned bytes of both AIVs'
UBs: its value is a view of sub-block 0's, and the race detector sees the
fixpipe's writes there. `memref.load`/`memref.store` are the
scalar unit touching memory: they run on the S pipe at the current time, take
`profile.scalar_*_access_cycles`, and are checked for races like any pipe op.
"""

from __future__ import annotations

import numpy as np
from mlir import ir

from tilec.sim.diagnostics import fail
from tilec.sim.dtypes import element_type
from tilec.sim.interpreter import Compiler, compiles, location, memory_space
from tilec.sim.memory import Arena, Buffer, Region, address
from tilec.targets.ascend import attributes as ascend_attr

_DYNAMIC = ir.ShapedType.get_dynamic_size()
_SPACES_OF = {"aic": ("l1", "l0a", "l0b", "l0c", "bt", "fb"), "aiv": ("ub",)}


def arena_of(core, space: str, where: str) -> Arena:
    """The `space` memory of `core`, created on first use."""
    arena = core.arenas.get(space)
    if arena is None:
        if space not in _SPACES_OF[core.kind]:
            raise fail(where, f"{core.name} has no {space} memory "
                              f"(the {core.kind.upper()} owns {', '.join(_SPACES_OF[core.kind])})")
        profile = core.machine.profile
        core.machine.budget.charge_memory(profile.capacity[space],
                                          f"the {space} of {core.name}", where)
        data = np.zeros(profile.capacity[space], dtype=np.uint8)
        arena = Arena(space, data, core.name,
                      usable=ascend_attr.usable_bytes(profile, space, core.machine.program.func),
                      alignment=profile.alignment[space])
        core.arenas[space] = arena
    return arena


def segments(op: ir.Operation) -> list[list[ir.Value]]:
    """Operands grouped by `operandSegmentSizes`."""
    sizes = list(op.attributes["operandSegmentSizes"])
    operands = list(op.operands)
    groups, start = [], 0
    for size in sizes:
        groups.append(operands[start:start + size])
        start += size
    return groups


@compiles("memref.alloc", "memref.alloca")
def _alloc(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    memref = op.results[0].type
    space = memory_space(memref)
    if space == "gm":
        raise fail(where, "GM buffers come from the kernel's arguments; "
                          "memref.alloc places buffers in on-chip memories only")
    if not memref.has_static_shape or len(op.operands):
        raise fail(where, f"on-chip buffers need a static shape, not {memref}")
    element = element_type(memref.element_type)
    if element is None:
        raise fail(where, f"the simulator cannot store elements of type {memref.element_type}")
    shape = tuple(memref.shape)
    nbytes = int(np.prod(shape, dtype=np.int64)) * element.itemsize
    label = f"{memref} allocated at {where}"
    planned = _planned_offset(op, where)
    out = c.slot(op.results[0])
    nxt = c.pc + 1

    def step(core) -> int:
        if core.kind == "aic" and space == "ub":
            _alloc_in_vector_ubs(core, out, planned, nbytes, label, element, shape, where)
            return nxt
        arena = arena_of(core, space, where)
        if planned is not None:
            problem = arena.place(planned, nbytes, label)
            if problem is not None:
                raise fail(where, f"memref.alloc of {nbytes} bytes at ascend.offset {planned} "
                                  f"in the {space} of {core.name}: {problem}")
            offset = planned
        else:
            offset = arena.allocate(nbytes, label)
        if offset is None:
            count = len(arena.allocations)
            raise fail(where, f"memref.alloc of {nbytes} bytes does not fit in the {space} of "
                              f"{core.name}: {arena.used_bytes()} of {arena.usable} usable "
                              f"bytes are taken by {count} buffer{'' if count == 1 else 's'}")
        array = arena.data[offset:offset + nbytes].view(element.storage).reshape(shape)
        core.env[out] = Buffer(array, arena, element, arena.allocation_at(offset, nbytes, label))
        return nxt

    c.emit(step)


def vector_ubs(core, where: str) -> list[Arena]:
    """The UBs of the two AIVs of an AIC's AI core (in a mix kernel), by sub-block."""
    aivs = core.machine.siblings(core) if core.machine.program.core_kind == "mix" else []
    if len(aivs) != 2:
        raise fail(where, f"{core.name} has no ub memory: a UB buffer of the AIC names the UBs "
                          f"of its AIVs, which only a mix kernel has")
    return [arena_of(aiv, "ub", where) for aiv in aivs]


def _alloc_in_vector_ubs(core, out: int, planned: int | None, nbytes: int, label: str,
                         element, shape: tuple[int, ...], where: str) -> None:
    """A UB buffer of the AIC (the 950's fixpipe into UB writes it): the same
    bytes of both AIVs' UBs, which their own plan reserves at that offset, so
    the buffer's value is a view of sub-block 0's and a dual-destination
    fixpipe finds sub-block 1's at the same address."""
    if planned is None:
        raise fail(where, "a UB buffer of the AIC needs the offset the memory planner gave it "
                          "(ascend.offset): it names bytes of the AIVs' UBs")
    arenas = vector_ubs(core, where)
    for arena in arenas:
        problem = arena.place(planned, nbytes, label)
        if problem is not None:
            raise fail(where, f"memref.alloc of {nbytes} bytes at ascend.offset {planned} "
                              f"in the ub of {arena.owner}: {problem}")
    arena = arenas[0]
    array = arena.data[planned:planned + nbytes].view(element.storage).reshape(shape)
    core.env[out] = Buffer(array, arena, element, arena.allocation_at(planned, nbytes, label))


def twin_view(array: np.ndarray, arena: Arena, twin: Arena) -> np.ndarray:
    """The view of `twin`'s bytes that `array` is of `arena`'s (same offset and strides)."""
    return np.ndarray(array.shape, array.dtype, buffer=twin.data,
                      offset=address(array) - arena.base, strides=array.strides)


def _planned_offset(op: ir.Operation, where: str) -> int | None:
    """The byte offset the memory planner gave this alloc (`ascend.offset`), if any."""
    if ascend_attr.OFFSET not in op.attributes:
        return None
    attr = op.attributes[ascend_attr.OFFSET]
    if not isinstance(attr, ir.IntegerAttr):
        raise fail(where, f"ascend.offset must be an integer byte offset, not {attr}")
    return ir.IntegerAttr(attr).value


@compiles("memref.dealloc")
def _dealloc(c: Compiler, op: ir.Operation) -> None:
    source = c.slot(op.operands[0])
    where = location(op)
    nxt = c.pc + 1

    def step(core) -> int:
        buffer: Buffer = core.env[source]
        allocation = buffer.allocation
        if (allocation is None or address(buffer.array) - buffer.arena.base != allocation.offset
                or not buffer.arena.free(allocation)):
            raise fail(where, "memref.dealloc of a buffer that memref.alloc did not return")
        return nxt

    c.emit(step)


def _keep_mask(sizes: list[int], result_shape: list[int]) -> list[bool]:
    """Which source dims a rank-reducing subview keeps: static unit dims are
    dropped, from the left, until the ranks agree, except where the result
    has a static unit dim there too (a `?` in the result is never a dropped
    dim: [1, 1, ?, 32] -> [?, 32] drops the first two)."""
    keep, j, to_drop = [], 0, len(sizes) - len(result_shape)
    for size in sizes:
        if to_drop > 0 and size == 1 and not (j < len(result_shape) and result_shape[j] == 1):
            keep.append(False)
            to_drop -= 1
        else:
            keep.append(True)
            j += 1
    return keep


def _offsets_sizes_strides(c: Compiler, op: ir.Operation, *dynamic_groups):
    """A resolver for the mixed static/dynamic offsets (kind 0), sizes (1) and
    strides (2) of a view op: static values from its attributes, `?` ones
    read from the core's environment when the view runs."""
    static = [list(op.attributes[name]) for name in
              ("static_offsets", "static_sizes", "static_strides")]
    dynamic = [c.slots_of(group) for group in dynamic_groups]

    def resolve(env: list, kind: int) -> list[int]:
        slots = iter(dynamic[kind])
        return [env[next(slots)] if v == _DYNAMIC else v for v in static[kind]]

    return resolve


@compiles("memref.subview")
def _subview(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    source_value, dyn_offsets, dyn_sizes, dyn_strides = segments(op)
    source = c.slot(source_value[0])
    resolve = _offsets_sizes_strides(c, op, dyn_offsets, dyn_sizes, dyn_strides)
    keep = _keep_mask(list(op.attributes["static_sizes"]), list(op.results[0].type.shape))
    out = c.slot(op.results[0])
    nxt = c.pc + 1

    def step(core) -> int:
        env = core.env
        buffer: Buffer = env[source]
        offsets, sizes, strides = resolve(env, 0), resolve(env, 1), resolve(env, 2)
        index = []
        for dim, (o, n, s, extent) in enumerate(
                zip(offsets, sizes, strides, buffer.array.shape, strict=True)):
            if o < 0 or n < 0 or (n > 0 and o + (n - 1) * s >= extent):
                raise fail(where, f"memref.subview: dimension {dim} takes [{o}, {o + n * s}) "
                                  f"step {s} of a dimension of size {extent}")
            index.append(slice(o, o + (n - 1) * s + 1, s) if keep[dim] or n != 1 else o)
        env[out] = buffer.view(buffer.array[tuple(index)])
        return nxt

    c.emit(step)


@compiles("memref.cast")
def _cast(c: Compiler, op: ir.Operation) -> None:
    c.emit_compute(lambda buffer: buffer, c.slot(op.results[0]), c.slots_of(op.operands))


@compiles("memref.dim")
def _dim(c: Compiler, op: ir.Operation) -> None:
    where = location(op)

    def dim(buffer: Buffer, i: int) -> int:
        shape = buffer.array.shape
        if not 0 <= i < len(shape):  # undefined behaviour in MLIR: an error here
            raise fail(where, f"memref.dim of dimension {i} of a rank-{len(shape)} memref")
        return shape[i]

    c.emit_compute(dim, c.slot(op.results[0]), c.slots_of(op.operands))


def _reshaped(buffer: Buffer, shape: tuple[int, ...], where: str) -> Buffer:
    array = buffer.array.view()
    try:
        array.shape = shape
    except AttributeError:
        raise fail(where, f"cannot view the strided buffer {buffer.array.shape} as {shape} "
                          f"without a copy") from None
    return buffer.view(array)


@compiles("memref.collapse_shape")
def _collapse_shape(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    groups = [[ir.IntegerAttr(i).value for i in group]
              for group in op.attributes["reassociation"]]

    def collapse(buffer: Buffer) -> Buffer:
        shape = buffer.array.shape
        new = tuple(int(np.prod([shape[i] for i in group], dtype=np.int64)) for group in groups)
        return _reshaped(buffer, new, where)

    c.emit_compute(collapse, c.slot(op.results[0]), c.slots_of(op.operands[:1]))


@compiles("memref.expand_shape")
def _expand_shape(c: Compiler, op: ir.Operation) -> None:
    where = location(op)
    static = list(op.attributes["static_output_shape"])
    source, *dynamic = c.slots_of(op.operands)

    def expand(buffer: Buffer, *sizes: int) -> Buffer:
        values = iter(sizes)
        shape = tuple(next(values) if v == _DYNAMIC else v for v in static)
        return _reshaped(buffer, shape, where)

    c.emit_compute(expand, c.slot(op.results[0]), [source, *dynamic])


def _allocation_start(buffer: Buffer) -> int:
    """Byte offset in its arena of the allocation that holds `buffer` (0 for GM)."""
    return 0 if buffer.allocation is None else buffer.allocation.offset


def _allocation_end(buffer: Buffer) -> int:
    if buffer.allocation is None:
        return buffer.arena.data.nbytes
    return buffer.allocation.offset + buffer.allocation.nbytes


@compiles("memref.view")
def _view(c: Compiler, op: ir.Operation) -> None:
    """A typed view at a byte shift into a 1-D i8 buffer (static memory planning)."""
    where = location(op)
    source, shift, *sizes = c.slots_of(op.operands)
    result = op.results[0].type
    element = element_type(result.element_type)
    static = list(result.shape)

    def view(buffer: Buffer, offset: int, *dynamic: int) -> Buffer:
        values = iter(dynamic)
        shape = tuple(next(values) if d == _DYNAMIC else d for d in static)
        nbytes = int(np.prod(shape, dtype=np.int64)) * element.itemsize
        raw = buffer.array.view(np.uint8)
        if offset < 0 or offset + nbytes > raw.nbytes:
            raise fail(where, f"memref.view of {nbytes} bytes at byte {offset} is outside "
                              f"its {raw.nbytes}-byte source")
        return Buffer(raw[offset:offset + nbytes].view(element.storage).reshape(shape),
                      buffer.arena, element, buffer.allocation)

    c.emit_compute(view, c.slot(op.results[0]), [source, shift, *sizes])


@compiles("memref.reinterpret_cast")
def _reinterpret_cast(c: Compiler, op: ir.Operation) -> None:
    """Offset, sizes and strides (in elements) from the start of the source's allocation."""
    where = location(op)
    (source,), dyn_offsets, dyn_sizes, dyn_strides = segments(op)
    resolve = _offsets_sizes_strides(c, op, dyn_offsets, dyn_sizes, dyn_strides)
    source_slot = c.slot(source)
    out = c.slot(op.results[0])
    nxt = c.pc + 1

    def step(core) -> int:
        env = core.env
        buffer: Buffer = env[source_slot]
        (offset,), sizes, strides = resolve(env, 0), resolve(env, 1), resolve(env, 2)
        itemsize = buffer.array.itemsize
        start = _allocation_start(buffer) + offset * itemsize
        last = start + itemsize * (1 + sum((n - 1) * s for n, s in zip(sizes, strides,
                                                                        strict=True)))
        if offset < 0 or any(s < 0 for s in strides) or last > _allocation_end(buffer):
            raise fail(where, f"memref.reinterpret_cast reaches byte {last} of a buffer that "
                              f"ends at byte {_allocation_end(buffer)}")
        flat = buffer.arena.data[start:last].view(buffer.array.dtype)
        array = np.lib.stride_tricks.as_strided(
            flat, shape=sizes, strides=[s * itemsize for s in strides])
        env[out] = buffer.view(array)
        return nxt

    c.emit(step)


def _element_region(buffer: Buffer, index: tuple[int, ...], where: str) -> Region:
    shape = buffer.array.shape
    for dim, (i, extent) in enumerate(zip(index, shape, strict=True)):
        if not 0 <= i < extent:
            raise fail(where, f"index {i} is out of bounds for dimension {dim} of size {extent}")
    offset = address(buffer.array) - buffer.arena.base + sum(
        i * s for i, s in zip(index, buffer.array.strides, strict=True))
    return Region(buffer.arena, offset, offset + buffer.array.itemsize,
                  buffer.array.itemsize, None)


def _access_cycles(core, buffer: Buffer) -> int:
    profile = core.machine.profile
    if buffer.arena.space == "gm":
        return profile.scalar_gm_access_cycles
    return profile.scalar_local_access_cycles


def _emit_scalar_access(c: Compiler, op: ir.Operation, memref: int, indices: list[int],
                        is_write: bool, effect) -> None:
    """A scalar read or write of one element on the S pipe: checked against
    the buffer, recorded for race detection, timed, then `effect(env, buffer,
    index)` does the data movement."""
    site = c.site(op)
    nxt = c.pc + 1

    def step(core) -> int:
        env = core.env
        buffer: Buffer = env[memref]
        index = tuple(env[i] for i in indices)
        region = (_element_region(buffer, index, site.location),)
        cycles = _access_cycles(core, buffer)
        machine = core.machine
        machine.scalar_access(core, site, () if is_write else region,
                              region if is_write else (), cycles)
        effect(env, buffer, index)
        if machine.advance(core, cycles):
            return nxt
        core.pc = nxt
        return -1

    c.emit(step)


@compiles("memref.load")
def _load(c: Compiler, op: ir.Operation) -> None:
    memref, *indices = c.slots_of(op.operands)
    out = c.slot(op.results[0])
    result_type = op.results[0].type
    element = element_type(result_type)
    to_value = _scalar_reader(result_type)

    def read(env: list, buffer: Buffer, index: tuple) -> None:
        env[out] = to_value(element, buffer.array[index])

    _emit_scalar_access(c, op, memref, indices, False, read)


def _scalar_reader(t: ir.Type):
    if isinstance(t, ir.FloatType):
        return lambda element, raw: element.values(np.asarray([raw]))[0]
    return lambda element, raw: int(raw)


@compiles("memref.store")
def _store(c: Compiler, op: ir.Operation) -> None:
    value, memref, *indices = c.slots_of(op.operands)
    element = element_type(op.operands[0].type)

    def write(env: list, buffer: Buffer, index: tuple) -> None:
        buffer.array[index] = element.store(np.asarray([env[value]]))[0]

    _emit_scalar_access(c, op, memref, indices, True, write)

