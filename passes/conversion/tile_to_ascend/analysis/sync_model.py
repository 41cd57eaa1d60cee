"""What tile-ascend-inject-sync sees of a kernel: a tree of ops with their pipe and bytes.

The sync pass reasons about structured control flow only (straight-line
blocks, `scf.for`, `scf.if`), so a kernel body becomes a tree of `Block`s
whose items are `OpNode` (an op on one pipe touching byte ranges),
`LoopNode`, `IfNode` and `FenceNode` (`ascend.pipe_barrier all`).

Bytes: an access names a root and a byte range in it.
- A planned on-chip buffer (`memref.alloc {ascend.offset = N}`) is a range of
  its memory space, so two planned buffers whose ranges overlap (reuse) are
  the same bytes.
- An unplanned `memref.alloc` is a root of its own.
- A GM argument is a root of its own (different arguments do not alias).
- A memref the pass cannot trace stands for any byte of its memory space.
Views (`memref.subview`, casts, reshapes, `memref.view`) keep the root; the
offset and strides in the view's type place it. A dynamic offset or stride
makes the access cover the whole root: conservative, never wrong. A GM access
at run-time offsets with static strides also keeps its first byte as a linear
form of SSA values (`sync_offsets`), which tells the instances of two such
accesses apart where the loops around them allow it.
The ops of the two copies of a loop marked `ascend.twin_copies` are paired
(`Model.twins`), so that the sync pass can give a hazard and its twin one flag.
The pipe of each op is the one the dialect defines (`getPipe()` in C++, the
same table the simulator executes), with the pipe numbering of the machine
model (`tilec.targets.ascend.machine`), which also says which pipes order
their own dependent instructions on the kind of core the body runs on.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable

import numpy as np
from mlir import ir

from tilec.passes.conversion.tile_to_ascend.analysis.sync_offsets import (
    Relation,
    Symbolic,
    constant,
    linear,
)
from tilec.passes.registry import PassFailure, emit_error
from tilec.sim.memory import Region, overlap
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.machine import (
    COPY_PIPES,
    FIX,
    MTE1,
    MTE2,
    PIPE_NAMES,
    M,
    S,
    V,
    mmad_orders_itself,
)

_UNBOUNDED = 1 << 62
_MAX_RUNS = 1 << 16
"""Above this many runs an access is summarized by its bounding range."""

_VECTOR_OPS = frozenset({"ascend.vbin", "ascend.vbins", "ascend.vunary", "ascend.vdup",
                         "ascend.vcast", "ascend.vreduce", "ascend.vbrcb", "ascend.vcmp",
                         "ascend.vsel"})
"""V-pipe ops: the first memref operand is written, the others are read."""

_SCALAR_ONLY = frozenset({"ascend.block_idx", "ascend.block_num", "ascend.sub_block_idx"})
_VIEWS = frozenset({"memref.subview", "memref.cast", "memref.collapse_shape",
                    "memref.expand_shape", "memref.reinterpret_cast",
                    "memref.memory_space_cast", "memref.assume_alignment"})
_NO_ACCESS = _VIEWS | {"memref.alloc", "memref.alloca", "memref.dealloc", "memref.dim",
                       "memref.view"}
"""Ops with memref operands that touch no element (allocation, views, shapes)."""
_FLAG_OPS = frozenset({"ascend.set_flag", "ascend.wait_flag"})

_ids = itertools.count()

TWIN_COPIES_ATTR = "ascend.twin_copies"
"""On an `scf.for` whose body runs two of its iterations one after the other, the
second under an `scf.if` when the trip count may be odd (the grid loop that
tile-ascend-multi-buffer gives two L0C slots): the ops of the two copies are
twins (`Model.twins`)."""


def pipe_name(pipe: int) -> str:
    return PIPE_NAMES[pipe].lower()


def space_of(value: ir.Value) -> str:
    """`gm`, `ub`, ... of a memref value (no memory space: GM)."""
    space = ir.MemRefType(value.type).memory_space
    if space is None:
        return "gm"
    text = str(space)
    return text[text.index("<") + 1:text.index(">")].strip() if "<" in text else "gm"


@dataclasses.dataclass(frozen=True, eq=False)
class Access:
    """Bytes of one root that an op reads or writes."""

    root: tuple
    space: str
    region: Region
    write: bool
    symbolic: Symbolic | None = None
    """The bytes as a run-time range, where `region` is the whole root."""

    def conflicts(self, other: Access,
                  relation: Callable[[], Relation] | None = None) -> bool:
        """Whether this access and a later one `other` touch a common byte, one of
        them writing it (`relation`: how the two instances relate, if known; asked
        only where both ranges are run-time ones)."""
        if not (self.write or other.write) or self.space != other.space:
            return False
        if self.root[0] == "any" or other.root[0] == "any":
            return True
        if self.root != other.root:
            return False
        if relation is not None and self.symbolic is not None and other.symbolic is not None:
            return not relation().disjoint(self.symbolic, other.symbolic)
        return overlap(self.region, other.region) is not None


@dataclasses.dataclass(eq=False)
class Node:
    op: ir.Operation
    parent: Block | None = None
    index: int = 0
    pos: int = 0
    """Pre-order position in the kernel: program order."""


@dataclasses.dataclass(eq=False)
class OpNode(Node):
    pipe: int = S
    accesses: tuple[Access, ...] = ()
    ordered: bool = False
    """The hardware orders it after the earlier ops of its pipe it depends on
    (a large mmad), on a pipe that otherwise overlaps them."""
    handoff: bool = False
    """A cross-core flag: its accesses stand for the other core's, so it has
    no hazard with the ops of its own pipe."""

    def conflicts(self, other: OpNode, relation: Callable[[], Relation] | None = None) -> bool:
        """Whether this op and a later one touch a common byte, one of them writing it."""
        return any(a.conflicts(b, relation) for a in self.accesses for b in other.accesses)


@dataclasses.dataclass(eq=False)
class LoopNode(Node):
    body: Block | None = None


@dataclasses.dataclass(eq=False)
class IfNode(Node):
    branches: list[Block] = dataclasses.field(default_factory=list)


@dataclasses.dataclass(eq=False)
class FenceNode(Node):
    """`ascend.pipe_barrier`: of one pipe, or of all (`pipe` None)."""

    pipe: int | None = None


@dataclasses.dataclass(eq=False)
class Block:
    """A block of the kernel; `block` is None for the absent else of an `scf.if`
    (created when a sync needs it)."""

    block: ir.Block | None
    owner: Node | None
    branch: int = 0
    items: list[Node] = dataclasses.field(default_factory=list)
    id: int = dataclasses.field(default_factory=lambda: next(_ids))

    def enclosing(self) -> list[Block]:
        """This block and every block around it, innermost first."""
        chain: list[Block] = []
        block: Block | None = self
        while block is not None:
            chain.append(block)
            block = block.owner.parent if block.owner is not None else None
        return chain


def _fail(op: ir.Operation, message: str) -> PassFailure:
    return emit_error(op, f"tile-ascend-inject-sync: {message}")


@dataclasses.dataclass(frozen=True)
class _Root:
    key: tuple
    base: int | None
    """Byte address of the traced view's base in the root (None: unknown)."""
    whole: tuple[int, int]


class Model:
    """The tree of one kernel body (a function, or one `ascend.core` region)."""

    def __init__(self, func: ir.Operation, block: ir.Block, ordered: frozenset[int],
                 scoped_handoffs: bool = True):
        self.func = func
        self.ordered = ordered
        """The pipes whose dependent ops the hardware orders where this body runs."""
        self.scoped_handoffs = scoped_handoffs
        self.has_scoped_handoffs = False
        """Whether a flag got the bytes it guards (so an unscoped model differs)."""
        self.arguments = list(func.regions[0].blocks[0].arguments)
        self.nodes: list[OpNode] = []
        self._allocs: list[ir.Operation] = []
        self._pos = itertools.count()
        self.root = self._block(block, None, 0)
        self.twins: dict[OpNode, OpNode] = {}
        """Each op of a loop marked `TWIN_COPIES_ATTR` and the same op of the other copy."""
        self.copy_of: dict[OpNode, tuple[LoopNode, int]] = {}
        """Such an op's loop and copy (0 or 1)."""
        self._find_twins(self.root)

    def _find_twins(self, block: Block) -> None:
        for node in block.items:
            if isinstance(node, LoopNode):
                if TWIN_COPIES_ATTR in node.op.attributes:
                    self._pair_copies(node)
                self._find_twins(node.body)
            elif isinstance(node, IfNode):
                for branch in node.branches:
                    self._find_twins(branch)

    def _pair_copies(self, loop: LoopNode) -> None:
        """Pairs the ops of the two copies of the body: the items before a last
        `scf.if` without else and that if's items, or the two halves of the body
        (an even trip count). Bodies of any other shape get no twins."""
        items = loop.body.items
        last = items[-1] if items else None
        if isinstance(last, IfNode) and not last.branches[1].items:
            copies = (items[:-1], last.branches[0].items)
        else:
            half = len(items) // 2
            copies = (items[:half], items[half:])
        pairs: list[tuple[OpNode, OpNode]] = []
        if not _same_shape(*copies, pairs):
            return
        for first, second in pairs:
            self.twins[first], self.twins[second] = second, first
            self.copy_of[first], self.copy_of[second] = (loop, 0), (loop, 1)

    # -- structure ------------------------------------------------------------

    def _block(self, block: ir.Block | None, owner: Node | None, branch: int) -> Block:
        result = Block(block, owner, branch)
        if block is None:
            return result
        for op in block.operations:
            node = self._node(op.operation)
            if node is None:
                continue
            node.parent, node.index = result, len(result.items)
            result.items.append(node)
        return result

    def _node(self, op: ir.Operation) -> Node | None:
        name = op.name
        if name in ("scf.yield", "func.return"):
            return None
        if name == "scf.for":
            node = LoopNode(op, pos=next(self._pos))
            node.body = self._block(op.regions[0].blocks[0], node, 0)
            return node
        if name == "scf.while":
            # Scalar code only in the test region (no node): the loop is its body,
            # run any number of times, as an scf.for with dynamic bounds.
            if self._block(op.regions[0].blocks[0], None, 0).items:
                raise _fail(op, "cannot synchronize a 'scf.while' whose condition region "
                                "touches buffers (not supported yet)")
            node = LoopNode(op, pos=next(self._pos))
            node.body = self._block(op.regions[1].blocks[0], node, 0)
            return node
        if name == "scf.if":
            node = IfNode(op, pos=next(self._pos))
            for index, region in enumerate(op.regions):
                blocks = list(region.blocks)
                node.branches.append(self._block(blocks[0] if blocks else None, node, index))
            return node
        if name == "ascend.pipe_barrier":
            pipe = self._pipe_attr(op, all_pipes=True)
            return None if pipe == S else FenceNode(op, pos=next(self._pos), pipe=pipe)
        if name in _FLAG_OPS:
            raise _fail(op, f"'{name}' is already in the kernel: the pass synchronizes "
                            f"ascend IR that has no flags yet")
        if name == "ascend.core":
            return None  # its own scope: analyzed separately
        if op.regions and name not in ("ascend.core",):
            raise _fail(op, f"cannot synchronize across '{name}' (only scf.for, scf.while "
                            f"and scf.if are supported)")
        found = self._op(op)
        if found is None:
            return None
        pipe, accesses = found
        ordered = name == "ascend.mmad" and mmad_orders_itself(*list(op.attributes["sizes"])[:2])
        node = OpNode(op, pos=next(self._pos), pipe=pipe, accesses=tuple(accesses),
                      ordered=ordered, handoff=name.startswith("ascend.cross_core_"))
        self.nodes.append(node)
        return node

    # -- pipes and accesses -----------------------------------------------------

    def _op(self, op: ir.Operation) -> tuple[int, list[Access]] | None:
        name = op.name
        operands = list(op.operands)
        if name == "ascend.copy":
            src, dst = operands[0], self._dst_of_copy(op)
            key = (space_of(src), space_of(dst))
            pipe = COPY_PIPES.get(key)
            if pipe is None:
                raise _fail(op, f"no pipe copies {key[0]} -> {key[1]}")
            src_offsets, dst_offsets = self._copy_offsets(op)
            sizes = list(op.attributes["sizes"])
            return pipe, [self.access(src, False, src_offsets, sizes),
                          self.access(dst, True, dst_offsets, sizes)]
        if name == "ascend.copy_nd2nz":
            sizes = list(op.attributes["sizes"])
            view = op.opview
            return MTE2, [self.access(view.src, False, list(view.src_offsets), sizes),
                          self.access(view.dst, True)]
        if name in ("ascend.load_l0a", "ascend.load_l0b"):
            return MTE1, [self.access(operands[0], False), self.access(operands[1], True)]
        if name == "ascend.mmad":
            a, b, c = operands
            accesses = [self.access(a, False), self.access(b, False), self.access(c, True)]
            if "init" not in op.attributes:
                accesses.append(self.access(c, False))
            return M, accesses
        if name == "ascend.fixpipe":
            src, dst, *offsets = operands
            sizes = list(op.attributes["sizes"])
            box = (offsets, sizes) if space_of(dst) == "gm" else (None, None)
            return FIX, [self.access(src, False), self.access(dst, True, *box)]
        if name in _VECTOR_OPS:
            memrefs = [v for v in operands if isinstance(v.type, ir.MemRefType)]
            return V, [self.access(memrefs[0], True),
                       *(self.access(v, False) for v in memrefs[1:])]
        if name in ("memref.load", "memref.store"):
            buffer, *indices = operands[1:] if name == "memref.store" else operands
            return S, [self.access(buffer, name == "memref.store", indices,
                                   [1] * len(indices))]
        if name == "ascend.cross_core_set_flag":
            return self._pipe_attr(op), self._handed_over(op, False)
        if name == "ascend.cross_core_wait_flag":
            pipe = self._pipe_attr(op) if "pipe" in op.attributes else S
            # A wait on the scalar unit stalls the issue of everything after it.
            return None if pipe == S else (pipe, self._handed_over(op, True))
        if name in _SCALAR_ONLY or name in _NO_ACCESS:
            return None
        if any(isinstance(v.type, ir.MemRefType) for v in operands):
            raise _fail(op, f"cannot synchronize '{name}': its pipe and memory accesses are "
                            f"unknown")
        return None

    @staticmethod
    def _pipe_attr(op: ir.Operation, all_pipes: bool = False) -> int | None:
        """The op's `pipe` attribute (None for `all`, where `all_pipes` allows it)."""
        text = str(op.attributes["pipe"])
        name = text[text.index("<") + 1:text.index(">")].strip() if "<" in text else text
        if all_pipes and name == "all":
            return None
        return [p.lower() for p in PIPE_NAMES].index(name)

    @staticmethod
    def _copy_segments(op: ir.Operation) -> list[list[ir.Value]]:
        sizes = list(op.attributes["operandSegmentSizes"])
        operands, groups, start = list(op.operands), [], 0
        for size in sizes:
            groups.append(operands[start:start + size])
            start += size
        return groups

    def _dst_of_copy(self, op: ir.Operation) -> ir.Value:
        return self._copy_segments(op)[2][0]

    def _copy_offsets(self, op: ir.Operation) -> tuple[list[ir.Value], list[ir.Value]]:
        groups = self._copy_segments(op)
        return groups[1], groups[3]

    def _handed_over(self, op: ir.Operation, write: bool) -> list[Access]:
        """What a cross-core flag hands over: a set stands for a read of it
        (after the writes the other core is to see), a wait for a write
        (before the accesses that must follow). A ring's flag names its
        workspace argument, or the [lo, hi) bytes of a ring in UB; any
        other flag stands for all of GM. Unscoped (`scoped_handoffs`
        false), a ring's flag stands for all of its memory (every workspace
        argument, in GM): more ordering, fewer flags pending at once, and
        still none against the kernel's own tensors, which no ring holds."""
        guarded = op.attributes.get(ascend_attr.GUARDS, None)
        in_ub = isinstance(guarded, ir.DenseI64ArrayAttr)
        if guarded is None:
            return [self._any("ub" if in_ub else "gm", write)]
        if in_ub:
            if not self.scoped_handoffs:
                return [self._any("ub", write)]
            bounds = list(guarded)  # [lo, hi) of each ring sharing the flag
            self.has_scoped_handoffs = True
            return [Access(("space", "ub"), "ub", Region(None, lo, hi, hi - lo, None), write)
                    for lo, hi in zip(bounds[::2], bounds[1::2], strict=True)]
        marks = list(ir.ArrayAttr(guarded)) if isinstance(guarded, ir.ArrayAttr) else [guarded]
        numbers = [ir.IntegerAttr(mark).value for mark in marks]
        if self.scoped_handoffs:
            self.has_scoped_handoffs = True
        else:
            numbers = self._workspace_arguments()
        return [Access(("arg", number), "gm", Region(None, 0, _UNBOUNDED, _UNBOUNDED, None),
                       write) for number in numbers]

    def _workspace_arguments(self) -> list[int]:
        """The positions of the kernel's GM workspace arguments (its rings' memory)."""
        func = self.func
        attrs = ir.ArrayAttr(func.attributes["arg_attrs"]) if "arg_attrs" in func.attributes \
            else []
        return [n for n, attr in enumerate(attrs)
                if ascend_attr.WORKSPACE in ir.DictAttr(attr)]

    def _any(self, space: str, write: bool) -> Access:
        return Access(("any", space), space, Region(None, 0, _UNBOUNDED, _UNBOUNDED, None),
                      write)

    def _alloc_number(self, op: ir.Operation) -> int:
        """A stable name of an unplanned alloc (Python wrappers of one op differ)."""
        for number, known in enumerate(self._allocs):
            if known == op:
                return number
        self._allocs.append(op)
        return len(self._allocs) - 1

    def _trace(self, value: ir.Value) -> _Root:
        owner = value.owner
        if isinstance(owner, ir.Block):
            if value in self.arguments:
                return _Root(("arg", self.arguments.index(value)), 0, (0, _UNBOUNDED))
            return _Root(("any", space_of(value)), None, (0, _UNBOUNDED))
        op = owner.operation
        if op.name in ("memref.alloc", "memref.alloca"):
            memref = ir.MemRefType(value.type)
            nbytes = int(np.prod(memref.shape, dtype=np.int64)) * _itemsize(memref)
            if ascend_attr.OFFSET in op.attributes:
                offset = ascend_attr.integer(op, ascend_attr.OFFSET)
                return _Root(("space", space_of(value)), offset, (offset, offset + nbytes))
            return _Root(("alloc", self._alloc_number(op)), 0, (0, nbytes))
        if op.name in _VIEWS:
            return self._trace(op.operands[0])
        if op.name == "memref.view":
            root = self._trace(op.operands[0])
            shift = constant(op.operands[1])
            base = None if root.base is None or shift is None else root.base + shift
            return _Root(root.key, base, root.whole)
        return _Root(("any", space_of(value)), None, (0, _UNBOUNDED))

    def access(self, value: ir.Value, write: bool, offsets: list[ir.Value] | None = None,
               sizes: list[int] | None = None) -> Access:
        """The bytes of `value` (the box `sizes` at `offsets`, default the whole view)."""
        root = self._trace(value)
        space = space_of(value)
        if root.key[0] == "any":
            return self._any(space, write)
        whole = Region(None, root.whole[0], root.whole[1], root.whole[1] - root.whole[0], None)
        region = self._box(value, root, offsets, sizes) if root.base is not None else None
        symbolic = None
        if region is None and root.key[0] == "arg" and offsets is not None and sizes is not None:
            symbolic = _symbolic(value, root, offsets, sizes)
        return Access(root.key, space, region or whole, write, symbolic)

    @staticmethod
    def _box(value: ir.Value, root: _Root, offsets: list[ir.Value] | None,
             sizes: list[int] | None) -> Region | None:
        memref = ir.MemRefType(value.type)
        strides, offset = memref.get_strides_and_offset()
        dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
        if offset == dynamic or dynamic in strides:
            return None
        shape = list(memref.shape)
        starts = [0] * len(shape) if offsets is None else [constant(v) for v in offsets]
        extents = shape if sizes is None else list(sizes)
        if None in starts or len(starts) != len(strides) or len(extents) != len(strides):
            return None
        if any(e < 0 for e in extents):
            return None
        if 0 in extents:
            return Region(None, root.base, root.base, 0, None)
        itemsize = _itemsize(memref)
        first = root.base + (offset + sum(o * s for o, s in zip(starts, strides,
                                                                 strict=True))) * itemsize
        dims = [(n, s * itemsize) for n, s in zip(extents, strides, strict=True) if n != 1]
        run = itemsize
        while dims and dims[-1][1] == run:
            run *= dims[-1][0]
            dims.pop()
        count = int(np.prod([n for n, _ in dims], dtype=np.int64)) if dims else 1
        if not dims:
            return Region(None, first, first + run, run, None)
        last = first + sum((n - 1) * s for n, s in dims)
        if count > _MAX_RUNS or any(s < 0 for _, s in dims):
            lo = min(first, last)
            hi = max(first, last) + run
            return Region(None, lo, hi, hi - lo, None)
        run_starts = np.zeros(1, dtype=np.int64) + first
        for n, stride in dims:
            run_starts = np.add.outer(run_starts, np.arange(n, dtype=np.int64) * stride).ravel()
        run_starts.sort()
        return Region(None, int(run_starts[0]), int(run_starts[-1]) + run, run, run_starts)


def _same_shape(first: list[Node], second: list[Node],
                pairs: list[tuple[OpNode, OpNode]]) -> bool:
    """Whether two lists of items are copies of one another (the same ops on the
    same pipes, in the same loops and ifs); collects the pairs of ops."""
    if len(first) != len(second):
        return False
    for a, b in zip(first, second, strict=True):
        if type(a) is not type(b) or a.op.name != b.op.name:
            return False
        if isinstance(a, OpNode):
            if a.pipe != b.pipe:
                return False
            pairs.append((a, b))
        elif isinstance(a, FenceNode):
            if a.pipe != b.pipe:
                return False
        elif isinstance(a, LoopNode):
            if not _same_shape(a.body.items, b.body.items, pairs):
                return False
        elif len(a.branches) != len(b.branches) or not all(
                _same_shape(x.items, y.items, pairs)
                for x, y in zip(a.branches, b.branches, strict=True)):
            return False
    return True


def hazard_bytes(producer: OpNode, consumer: OpNode) -> frozenset:
    """The bytes on which two ops conflict, as a comparable key: twins whose hazard
    is on the same bytes (buffers both copies share) may share a flag."""
    return frozenset((_access_key(a), _access_key(b)) for a in producer.accesses
                     for b in consumer.accesses if a.conflicts(b))


def _access_key(access: Access) -> tuple:
    region = access.region
    starts = None if region.starts is None else region.starts.tobytes()
    symbolic = None if access.symbolic is None else (
        frozenset(access.symbolic.terms.items()), access.symbolic.const, access.symbolic.span)
    return (access.root, access.space, access.write, region.lo, region.hi, region.length,
            starts, symbolic)


def _symbolic(value: ir.Value, root: _Root, offsets: list[ir.Value],
              sizes: list[int]) -> Symbolic | None:
    """The run-time bytes of the box `sizes` at `offsets` of a view with static strides."""
    memref = ir.MemRefType(value.type)
    strides, offset = memref.get_strides_and_offset()
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    if root.base is None or offset == dynamic or dynamic in strides or \
            len(offsets) != len(strides) or any(s < 0 for s in strides) or \
            any(n < 0 for n in sizes):
        return None
    itemsize = _itemsize(memref)
    terms: dict[ir.Value, int] = {}
    const = root.base + offset * itemsize
    for index, stride in zip(offsets, strides, strict=True):
        atoms, shift = linear(index)
        const += shift * stride * itemsize
        for atom, coeff in atoms.items():
            terms[atom] = terms.get(atom, 0) + coeff * stride * itemsize
    span = 0 if 0 in sizes else (sum((n - 1) * s for n, s in zip(sizes, strides,
                                                                 strict=True)) + 1) * itemsize
    return Symbolic({a: c for a, c in terms.items() if c}, const, span)


def _itemsize(memref: ir.MemRefType) -> int:
    element = memref.element_type
    width = getattr(element, "width", None)
    if width is None:
        width = ir.FloatType(element).width if isinstance(element, ir.FloatType) else 8
    return max(1, width // 8)


def loops_around(block: Block) -> list[LoopNode]:
    """The loops whose body contains `block`, innermost first."""
    return [b.owner for b in block.enclosing() if isinstance(b.owner, LoopNode)]


def common_block(a: Node, b: Node) -> Block:
    """The innermost block that contains both nodes."""
    around_a = a.parent.enclosing()
    ids = {blk.id for blk in b.parent.enclosing()}
    return next(blk for blk in around_a if blk.id in ids)


def item_in(node: Node, block: Block) -> tuple[Node, list[tuple[Node, Block]]]:
    """The item of `block` that holds `node`, and the constructs in between
    (innermost first) with the block of each that leads to `node`."""
    chain: list[tuple[Node, Block]] = []
    while node.parent is not block:
        inner = node.parent
        chain.append((inner.owner, inner))
        node = inner.owner
    return node, chain
