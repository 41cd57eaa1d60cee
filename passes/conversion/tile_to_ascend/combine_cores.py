"""tile-ascend-combine-cores: a per-AIV body whose cube work and vector work hand
data through global tensors becomes the cube's and the AIVs' programs, ordered
by cross-core flags (tilelang-ascend's TL_ASCEND_AUTO_CV_COMBINE).

tilelang-ascend's developer mode lets a `T.Kernel(n, is_npu=True) as (cid, vid)`
body mix cube tiles (T.alloc_L1/L0A/L0B/L0C) and vector tiles (T.alloc_ub) and
hand data between them through GM workspaces: its CombineCV pass keeps the cube
ops in the cube core's program and the rest in the vector cores' (each AIV with
its own `vid`), and its cross-core sync pairs, per workspace, the k-th access of
one kind of core with the k-th of the other: the writer sets a flag after its
write, the reader waits for it before its read, whatever their order in the
body. So in sparse_flash_attn_developer the cube's copy of `workspace_1` into L1
at the top of an iteration reads the rows both AIVs gather later in the same
iteration. The body has that meaning only: read sequentially, the cube would
read rows not yet gathered. The DSL marks such a body `ascend.combine_cores`
(`tilec.language.launch`); this pass gives it the form of an expert kernel (one
`T.Scope("C")` and one `T.Scope("V")` program), which tile-ascend-split-scopes
then splits like one the author wrote:

- every op gets a side from the scopes of the tiles it uses (`core_sides`), so
  the tiles must be placed by the author (T.alloc_L1/.../ub): placement from use
  comes later, and a tile of neither kind is a located error;
- allocations and the scalar code both sides share stay outside the programs;
  the rest goes into both, each keeping its side's ops and the loops and
  branches that hold them;
- per global tensor that one side writes and the other reads, the accesses of
  each side in program order form runs of reads or writes, and the k-th run of
  the cube pairs with the k-th run of the vector cores (a read with a write);
- each pair gets a cross-core flag id: in the innermost block holding both runs,
  the writer sets it right after the op holding its last write, the reader waits
  for it right before the op holding its first read. Both ops run once per trip
  of the same loops, so every set meets one wait. Mode 2 everywhere: the AIC's
  set releases the waits of both AIVs, and the AIC's wait needs both AIVs' sets,
  so the cube reads a workspace only after both AIVs wrote their halves;
- runs counted by trips: where a run is in an `scf.for` of static trip count that
  holds none of the other side's accesses of the tensor (the cube's work a loop of
  its own, the AIVs' after it, unrolled as tilec traces `range`:
  example_sparse_flash_attn.py), the k-th hand-over is the k-th trip, as upstream
  pairs loops of equal trip counts. Each side's runs then end where that side
  waits for the other (reads a tensor the other writes), or, when that is not
  enough, also where it signals it; counted once per trip of those loops, the
  k-th run of one side pairs with the k-th of the other when the counts match.
  The runs that pair share a flag: each writer run sets it after its last write
  (in its loop's body), each reader run waits for it before its first read, so
  the k-th set meets the k-th wait. Pairing the loop as one run would make the
  cube wait for every step of the AIVs before its first trip: a deadlock when
  those steps wait for its trips;

The vendor's rules (asc-devkit docs/zh/api/SIMD-API/基础API/同步控制/核间同步/
CrossCoreSetFlag(ISASI).md: mode 2, "after both AIVs ran CrossCoreSetFlag the
instructions after the AIC's CrossCoreWaitFlag run"; a set reports once the
earlier work of its pipe is done, and takes no PIPE_S or PIPE_ALL; its example
examples/01_simd_cpp_api/03_basic_api/05_sync_control/cross_core_set_wait_flag/
has the AIC wait so for its AIVs' `CrossCoreSetFlag<2, PIPE_MTE3>`): the set is
on the pipe of the last write (FIX out of L0C, MTE3 out of UB), which runs it
after that write; the wait on the pipe of the first read (MTE2). The
sync pass orders each against the other GM accesses of its core (a flag without
`ascend.guards` stands for all of GM). tilelang-ascend inserts these "ready"
flags only, so a writer in a loop may overwrite what the reader has not read
yet unless the kernel's other hand-overs hold it back (sparse attention's do:
each core waits for the other every iteration). tilec adds, per `scf.for` body
and direction, a "free" flag: the reader sets it after its last read of the
trip (on MTE2, which runs it once those reads are done), the writer waits for
it before its first write from the second trip on and once after the loop, so
sets and waits balance for any trip count. Not yet: "free" flags where the
innermost block holding a pair is the body of another kind of loop (T.Pipelined,
`while`) or a branch in a loop, or for runs counted by trips; there the kernel's
own order must hold the writer back, and the simulator reports a race where it
does not.

Before (a cube read of rows each AIV writes later in the same iteration):

    tile.kernel blocks(%vid, %cid) in (%c2, %n) ... {ascend.combine_cores, ascend.vid_dim = 0} {
      %k = tile.alloc : memref<32x64xf16, #tile.scope<l1>>
      %r = tile.alloc : memref<64xf16, #tile.scope<ub>>
      scf.for %i = %c0 to %c2 step %c1 {
        tile.copy %ws[%cid, %c0, %c0], %k[%c0, %c0] sizes [1, 32, 64] ...
        tile.gemm ...
        tile.copy %r[%c0], %ws[%cid, %row, %c0] sizes [1, 1, 64] ...   // %row from %vid
      }
    }

After:

    tile.kernel ... {ascend.combine_cores, ascend.vid_dim = 0} {
      %k = tile.alloc ...
      %r = tile.alloc ...
      scf.execute_region {
        scf.for %i = %c0 to %c2 step %c1 {
          ascend.cross_core_wait_flag 0, mte2
          tile.copy %ws[%cid, %c0, %c0], %k[%c0, %c0] ...
          ascend.cross_core_set_flag mode 2, mte2, 1
          tile.gemm ...
        }
        scf.yield
      } {ascend.core_region = #ascend.core<aic>}
      scf.execute_region {
        scf.for %i = %c0 to %c2 step %c1 {
          scf.if %not_first { ascend.cross_core_wait_flag 1, mte3 }
          tile.copy %r[%c0], %ws[%cid, %row, %c0] ...
          ascend.cross_core_set_flag mode 2, mte3, 0
        }
        scf.if %ran { ascend.cross_core_wait_flag 1, mte3 }
        scf.yield
      } {ascend.core_region = #ascend.core<aiv>}
    }
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith, scf

from tilec.dialects import ascend, tile
from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.target_options import target_option
from tilec.passes.conversion.tile_to_ascend.analysis import core_sides
from tilec.passes.registry import Pass, emit_error, register_pass
from tilec.targets import target_of
from tilec.targets.ascend import AscendTarget
from tilec.targets.ascend import attributes as ascend_attr

_MIX_MODE = 2
"""Cross-core mode 2: the AIC with both AIVs of its AI core."""
_FLAGS = "ascend.combine_flags"
"""On the op a flag goes before or after, while the sides are cloned: the flags, each
`side:kind:id:pipe`, kind `set` (after the op), `wait` (before it), `again` (before it,
from the loop's second trip on) or `drain` (after the loop op, when it ran)."""
_KIND = {tile.Scope.l1: "cube", tile.Scope.l0a: "cube", tile.Scope.l0b: "cube",
         tile.Scope.l0c: "cube", tile.Scope.ub: "vector"}
_CORE = {"aic": "the cube", "aiv": "the vector cores"}


@dataclass
class _Access:
    """One op's read or write of a global tensor, and the side that runs it."""

    op: ir.Operation
    side: str  # aic | aiv
    write: bool
    position: int  # in program order


def _scope(value: ir.Value) -> tile.Scope | None:
    if not isinstance(value.type, ir.MemRefType):
        return None
    return tile.scope_of(ir.MemRefType(value.type))


def _kind_of(_op: ir.Operation, value: ir.Value) -> str | None:
    scope = _scope(value)
    return None if scope is None else _KIND.get(scope)


def _result_kind(op: ir.Operation) -> str | None:
    return _kind_of(op, op.results[0]) if op.name == "tile.alloc" else None


def _tensor(value: ir.Value) -> ir.BlockArgument | None:
    """The kernel argument a global memref is (a view of), or None."""
    while isinstance(value, ir.OpResult) and value.owner.name in core_sides.VIEWS:
        value = value.owner.operands[0]
    if _scope(value) is not tile.Scope.global_ or not isinstance(value, ir.BlockArgument):
        return None
    return value


def _accesses(body: ir.Block) -> dict[ir.BlockArgument, list[_Access]]:
    """Each global tensor's accesses by one side, in program order (dicts keep the
    order of insertion: the first tensor accessed first)."""
    found: dict[ir.BlockArgument, list[_Access]] = {}
    for position, op in enumerate(irb.pre_order(body.owner)):
        side = core_sides.side_of(op)
        if side not in ("aic", "aiv"):
            continue
        operands = list(op.operands)
        if op.name in ("tile.copy", "tile.atomic_add"):
            tensors = [x for x in operands if isinstance(x.type, ir.MemRefType)][:2]
            pairs = zip(tensors, (False, True), strict=True)
        elif op.name in ("memref.load", "memref.store"):
            pairs = [(operands[op.name == "memref.store"], op.name == "memref.store")]
        else:
            continue
        for value, write in pairs:
            tensor = _tensor(value)
            if tensor is not None:
                found.setdefault(tensor, []).append(_Access(op, side, write, position))
    return found


def _runs(accesses: list[_Access], ends: tuple[int, ...] = ()) -> list[list[_Access]]:
    """Consecutive accesses of one kind (all reads or all writes) as one run; an op at
    a position of `ends` between two of them (`_breaks`) ends it."""
    runs: list[list[_Access]] = []
    for access in accesses:
        if runs and runs[-1][0].write == access.write and not any(
                runs[-1][-1].position < end < access.position for end in ends):
            runs[-1].append(access)
        else:
            runs.append([access])
    return runs


def _breaks(found: dict[ir.BlockArgument, list[_Access]]) -> list[dict[str, tuple[int, ...]]]:
    """Where a side's runs may end, finer each time: per side, the positions of its
    reads of global tensors the other side writes (where it waits for the other), then
    those and its writes of ones the other side reads (where it signals it)."""
    writers = {t: {a.side for a in accesses if a.write} for t, accesses in found.items()}
    readers = {t: {a.side for a in accesses if not a.write} for t, accesses in found.items()}
    waits, signals = ({side: tuple(a.position for t, accesses in found.items() for a in accesses
                                   if a.side == side and a.write == write
                                   and (readers if write else writers)[t] - {side})
                       for side in ("aic", "aiv")} for write in (False, True))
    return [waits, {side: waits[side] + signals[side] for side in waits}]


def _pairs(accesses: list[_Access]) -> list[tuple[list[_Access], list[_Access]]]:
    """The (writer's run, reader's run) pairs of a tensor's `accesses`, runs not ended
    at waits, or the located error of why they do not pair."""
    sides = {side: _runs([a for a in accesses if a.side == side]) for side in ("aic", "aiv")}
    if not sides["aic"] or not sides["aiv"] or not any(a.write for a in accesses):
        return []
    cube, vector = sides["aic"], sides["aiv"]
    for k, (c, v) in enumerate(zip(cube, vector, strict=False)):
        if c[0].write == v[0].write:
            what = "writes" if c[0].write else "reads"
            raise emit_error(v[0].op, f"tile-ascend-combine-cores: run {k + 1} of the accesses "
                                      f"of this global tensor by each kind of core {what} it on "
                                      f"both: a run of writes on one must meet a run of reads on "
                                      f"the other")
    if len(cube) != len(vector):
        longer = cube if len(cube) > len(vector) else vector
        side = longer[0][0].side
        raise emit_error(longer[min(len(cube), len(vector))][0].op,
                         f"tile-ascend-combine-cores: {_CORE[side]} access this global tensor "
                         f"in {len(longer)} runs of reads or writes but the other kind of core "
                         f"in {min(len(cube), len(vector))}: the k-th run of one pairs with the "
                         f"k-th of the other")
    return [(c, v) if c[0].write else (v, c) for c, v in zip(cube, vector, strict=True)]


def _ancestors(op: ir.Operation, body: ir.Block) -> list[ir.Operation]:
    """`op` and the ops holding it, up to the one directly in `body`."""
    chain = [op]
    while chain[-1].block != body:
        parent = chain[-1].parent
        chain.append(parent.operation if hasattr(parent, "operation") else parent)
    return chain


def _units(first: ir.Operation, then: ir.Operation, body: ir.Block,
           ) -> tuple[ir.Operation, ir.Operation]:
    """The ops holding `first` and `then` directly in the innermost block holding both."""
    others = _ancestors(then, body)
    for mine in _ancestors(first, body):
        theirs = next((o for o in others if o.block == mine.block), None)
        if theirs is None:
            continue
        if theirs == mine:
            raise emit_error(then, "tile-ascend-combine-cores: this access and its partner on "
                                   "the other kind of core are in different branches of one "
                                   "op: no place runs a flag between them as often as both")
        return mine, theirs
    raise AssertionError("the kernel body holds every op")


def _pipe(access: _Access) -> str | None:
    """The pipe a flag of the access is on (None: the scalar unit, for a wait)."""
    op = access.op
    if op.name.startswith("memref."):
        if access.write:
            raise emit_error(op, "tile-ascend-combine-cores: a scalar store to a global tensor "
                                 "the other kind of core reads has no pipe for its cross-core "
                                 "flag (the vendor's CrossCoreSetFlag takes no PIPE_S): copy a "
                                 "tile instead")
        return None
    if not access.write:
        return "mte2"
    return "fix" if _scope(op.operands[0]) is tile.Scope.l0c else "mte3"


def _mark(op: ir.Operation, text: str) -> None:
    marks = list(ir.ArrayAttr(op.attributes[_FLAGS])) if _FLAGS in op.attributes else []
    op.attributes[_FLAGS] = ir.ArrayAttr.get([*marks, ir.StringAttr.get(text)])


@dataclass
class _Pair:
    """A writer's run of writes, the reader's run of reads, and where their flag goes."""

    writes: list[_Access]
    reads: list[_Access]
    after: ir.Operation  # the writer's op its set follows
    before: ir.Operation  # the reader's op its wait precedes


def _mark_flags(body: ir.Block, flag_ids: int) -> None:
    """Marks the op after which each pair's writer sets its flag and the op before
    which its reader waits, then the "free" flags of the pairs in loops."""
    found = _accesses(body)
    breaks = _breaks(found)
    pairs: list[_Pair] = []
    counted: list[tuple[list[_Placed], list[_Placed]]] = []
    for accesses in found.values():
        sides = [[a for a in accesses if a.side == side] for side in ("aic", "aiv")]
        if not all(sides) or not any(a.write for a in accesses):
            continue
        by_trips = next((m for ends in breaks if (m := _matched_by_trips(
            *(_runs(mine, ends[side]) for mine, side in zip(sides, ("aic", "aiv"), strict=True)),
            body))), None)
        if by_trips:
            counted += by_trips
            continue
        for writes, reads in _pairs(accesses):
            pairs.append(_Pair(writes, reads, *_units(writes[-1].op, reads[0].op, body)))
    ids = iter(range(flag_ids))
    for pair in pairs:
        flag = _next_id(ids, pair.reads[0].op, flag_ids)
        _mark(pair.after, f"{pair.writes[-1].side}:set:{flag}:{_pipe(pair.writes[-1])}")
        _mark(pair.before, f"{pair.reads[0].side}:wait:{flag}:{_pipe(pair.reads[0]) or ''}")
    for writers, readers in counted:
        flag = _next_id(ids, readers[0][0][0].op, flag_ids)
        for run, block in writers:
            _mark(_unit(run[-1].op, block), f"{run[-1].side}:set:{flag}:{_pipe(run[-1])}")
        for run, block in readers:
            _mark(_unit(run[0].op, block), f"{run[0].side}:wait:{flag}:{_pipe(run[0]) or ''}")
    _mark_free_flags(pairs, ids, flag_ids)


def _matched(cube: list[list[_Access]], vector: list[list[_Access]],
             ) -> list[tuple[list[_Access], list[_Access]]] | None:
    """(writer's run, reader's run): the k-th run of the cube with the k-th of the
    vector cores, when they have as many and each pair has a writer; else None."""
    if len(cube) != len(vector) or any(c[0].write == v[0].write
                                       for c, v in zip(cube, vector, strict=True)):
        return None
    return [(c, v) if c[0].write else (v, c) for c, v in zip(cube, vector, strict=True)]


_Placed = tuple[list[_Access], ir.Block]
"""A run counted by trips, and the block its flag goes in: the body of the innermost
loop that counts it, else the innermost block holding it and its partners."""


def _matched_by_trips(cube: list[list[_Access]], vector: list[list[_Access]], body: ir.Block,
                      ) -> list[tuple[list[_Placed], list[_Placed]]] | None:
    """Runs counted once per trip of the loops that hold them but none of the other
    side's accesses of the tensor: the k-th run so counted of one side pairs with
    the k-th of the other (a cube loop reading in each trip what one of the vector
    cores' unrolled steps wrote). The runs that pair, directly or through others,
    share a flag: each writer run sets it once per trip and each reader run waits
    for it, so the k-th set meets the k-th wait. None where a count is not static
    or the counts do not match."""
    home = _common_block([a.op for run in (*cube, *vector) for a in run], body)
    sequences = []
    blocks: dict[int, ir.Block] = {}
    for runs in (cube, vector):
        chains = [_loops_of(run, home) for run in runs]
        if any(chain is None for chain in chains):
            return None
        for run, chain in zip(runs, chains, strict=True):
            blocks[id(run)] = chain[-1].regions[0].blocks[0] if chain else home
        sequence = _repeat(list(zip(runs, chains, strict=True)), 0)
        if sequence is None:
            return None
        sequences.append(sequence)
    if len(sequences[0]) == len(cube) and len(sequences[1]) == len(vector):
        return None  # no run repeats: the runs pair as they are (`_pairs`)
    pairs = _matched(*sequences)
    if pairs is None:
        return None
    group = list(range(len(cube) + len(vector)))
    number = {id(run): i for i, run in enumerate((*cube, *vector))}

    def root(i: int) -> int:
        while group[i] != i:
            i = group[i]
        return i

    for writes, reads in pairs:
        group[root(number[id(writes)])] = root(number[id(reads)])
    components: dict[int, tuple[list, list]] = {}
    for run in (*cube, *vector):
        writers, readers = components.setdefault(root(number[id(run)]), ([], []))
        (writers if run[0].write else readers).append((run, blocks[id(run)]))
    return [c for c in components.values() if c[0] and c[1]]


def _common_block(ops: list[ir.Operation], body: ir.Block) -> ir.Block:
    """The innermost block holding all of `ops`."""
    chains = [[o.block for o in _ancestors(op, body)] for op in ops]
    return next(b for b in chains[0] if all(any(b == c for c in chain) for chain in chains))


def _loops_of(run: list[_Access], home: ir.Block) -> tuple[ir.Operation, ...] | None:
    """The `scf.for` loops between `home` and the ops of `run`, outermost first, each
    with a static trip count; None where the ops differ in them, or where something
    other than such a loop holds one of them (a branch, a `while`) and runs it a
    number of times the pass cannot count."""
    found = None
    for access in run:
        loops: list[ir.Operation] = []
        op = access.op
        while op.block != home:
            op = _parent(op)
            if op.name == "scf.for" and _trips(op) is not None:
                loops.append(op)
            elif loops:
                return None
        chain = tuple(reversed(loops))
        if found is not None and (len(chain) != len(found) or any(
                a != b for a, b in zip(chain, found, strict=True))):
            return None
        found = chain
    return found


def _trips(loop: ir.Operation) -> int | None:
    lower, upper, step = (irb.constant_int(v) for v in list(loop.operands)[:3])
    if None in (lower, upper, step) or step <= 0:
        return None
    return max(0, -(-(upper - lower) // step))


def _repeat(runs: list[tuple[list[_Access], tuple[ir.Operation, ...]]], depth: int,
            ) -> list[list[_Access]] | None:
    """The runs in the order they run: those of a loop at `depth` once per trip."""
    order: list[list[_Access]] = []
    i = 0
    while i < len(runs):
        run, chain = runs[i]
        if len(chain) <= depth:
            order.append(run)
            i += 1
            continue
        j = i
        while j < len(runs) and len(runs[j][1]) > depth and runs[j][1][depth] == chain[depth]:
            j += 1
        trip = _repeat(runs[i:j], depth + 1)
        if trip is None:
            return None
        order += trip * _trips(chain[depth])
        i = j
    return order


def _unit(op: ir.Operation, block: ir.Block) -> ir.Operation:
    """The op of `block` that holds `op`."""
    while op.block != block:
        op = _parent(op)
    return op


def _next_id(ids, at: ir.Operation, flag_ids: int) -> int:
    flag = next(ids, None)
    if flag is None:
        raise emit_error(at, f"tile-ascend-combine-cores: more hand-overs through global "
                             f"tensors than the {flag_ids} cross-core flag ids")
    return flag


def _mark_free_flags(pairs: list[_Pair], ids, flag_ids: int) -> None:
    """In the body of an `scf.for`, a writer would write the next trip's data while
    the reader may still read this trip's: per loop body and direction, the reader
    sets a "free" flag after its last read (on MTE2, which runs it once those reads
    are done) and the writer waits for it before its first write from the second
    trip on, and once more after the loop, so that sets and waits balance for any
    trip count."""
    groups: list[list[_Pair]] = []
    for pair in pairs:
        if _parent(pair.after).name != "scf.for":
            continue
        group = next((g for g in groups if g[0].after.block == pair.after.block
                      and g[0].writes[-1].side == pair.writes[-1].side), None)
        if group is None:
            groups.append([pair])
        else:
            group.append(pair)
    for group in groups:
        if any(a.op.name.startswith("memref.") for pair in group for a in pair.reads):
            raise emit_error(group[0].reads[0].op, "tile-ascend-combine-cores: a scalar read "
                                                   "of a global tensor the other kind of core "
                                                   "writes in a loop: copy a tile instead")
        last_read = max((pair.before for pair in group), key=_position)
        first_write = min((pair.after for pair in group), key=_position)
        writer, reader = group[0].writes[-1].side, group[0].reads[0].side
        pipe = _pipe(next(p for p in group if p.after == first_write).writes[-1])
        flag = _next_id(ids, last_read, flag_ids)
        _mark(last_read, f"{reader}:set:{flag}:mte2")
        _mark(first_write, f"{writer}:again:{flag}:{pipe}")
        _mark(_parent(first_write), f"{writer}:drain:{flag}:{pipe}")


def _parent(op: ir.Operation) -> ir.Operation:
    parent = op.parent
    return parent.operation if hasattr(parent, "operation") else parent


def _position(op: ir.Operation) -> int:
    """Where `op` is in its block."""
    return next(i for i, o in enumerate(op.block.operations) if o.operation == op)


def _place_flags(region: ir.Operation, side: str) -> None:
    """Puts the flags of `side` marked in `region` around their ops; drops the marks."""
    for op in irb.pre_order(region):
        if _FLAGS not in op.attributes:
            continue
        for mark in ir.ArrayAttr(op.attributes[_FLAGS]):
            owner, kind, number, pipe = ir.StringAttr(mark).value.split(":")
            if owner != side:
                continue
            where = ir.InsertionPoint(op) if kind in ("wait", "again") \
                else ir.InsertionPoint.after(op)
            with where, op.location:
                if kind == "set":
                    ascend.cross_core_set_flag(_MIX_MODE, ascend.pipe_attr(pipe), int(number))
                    continue
                wait = ir.InsertionPoint.current
                if kind != "wait":
                    wait = _guarded(op, kind)
                with wait:
                    ascend.cross_core_wait_flag(int(number),
                                                pipe=ascend.pipe_attr(pipe) if pipe else None)
        del op.attributes[_FLAGS]


def _guarded(op: ir.Operation, kind: str) -> ir.InsertionPoint:
    """An `scf.if` at the insertion point: a wait "again" in the body of the loop of
    `op` runs from its second trip on, a "drain" after the loop `op` when it ran."""
    loop = op if kind == "drain" else _parent(op)
    lower, upper = loop.operands[0], loop.operands[1]
    if kind == "drain":
        ran = arith.cmpi(arith.CmpIPredicate.slt, lower, upper)
    else:
        ran = arith.cmpi(arith.CmpIPredicate.ne, loop.regions[0].blocks[0].arguments[0], lower)
    branch = scf.IfOp(ran)
    with ir.InsertionPoint(branch.then_block):
        scf.YieldOp([])
    return ir.InsertionPoint.at_block_begin(branch.then_block)


def _check_placed(kernel: ir.Operation) -> None:
    for alloc in irb.collect(kernel, "tile.alloc"):
        if _result_kind(alloc) is None:
            raise emit_error(alloc, "tile-ascend-combine-cores: a kernel whose cube and vector "
                                    "work hand data through global tensors (AUTO_CV_COMBINE) "
                                    "places its tiles itself: allocate this one with "
                                    "T.alloc_L1/L0A/L0B/L0C (the cube's) or T.alloc_ub (the "
                                    "vector cores')")


def _shared(op: ir.Operation, moved: list[ir.Operation]) -> bool:
    """Whether `op` stays outside the two programs: an allocation, or scalar code
    on no value of the ops that go into them (`moved`)."""
    if op.name == "tile.alloc":
        return True
    return core_sides.is_pure(op) and not op.regions and op.name != "tile.yield" and not any(
        isinstance(x, ir.OpResult) and any(x.owner.operation == m for m in moved)
        for x in op.operands)


def _drop_dead(region: ir.Operation) -> None:
    """Erases the scalar code the other side's ops used."""
    for op in reversed(irb.pre_order(region)):
        if op != region and core_sides.is_pure(op) and not op.regions and op.results \
                and not any(list(r.uses) for r in op.results):
            op.erase()


def _check_cube_without_vid(kernel: ir.Operation, cube: ir.Operation) -> None:
    """The AIC has no `vid`: no op of its program may use a value computed from it."""
    body = kernel.regions[0].blocks[0]
    tainted = [body.arguments[ascend_attr.integer(kernel, ascend_attr.VID)]]
    program = irb.pre_order(cube)
    for op in irb.pre_order(kernel):
        if not any(any(x == t for t in tainted) for x in op.operands):
            continue
        if not core_sides.is_pure(op) and any(op == o for o in program):
            raise emit_error(op, "tile-ascend-combine-cores: the cube's work depends on vid, "
                                 "which only the vector cores have")
        tainted.extend(op.results)


def _follow_values(kernel: ir.Operation) -> None:
    """Scalar code on a value only one side computes (an index read out of a UB
    tile) is that side's too."""
    for op in irb.pre_order(kernel):
        if core_sides.side_of(op) != "both" or op.regions:
            continue
        sides = {core_sides.side_of(x.owner.operation) for x in op.operands
                 if isinstance(x, ir.OpResult)} & {"aic", "aiv"}
        if len(sides) > 1:
            raise emit_error(op, "tile-ascend-combine-cores: this scalar code uses values of "
                                 "both the cube and the vector cores")
        if sides:
            op.attributes[core_sides.SIDE] = ir.StringAttr.get(sides.pop())


def _combine(kernel: ir.Operation, flag_ids: int) -> None:
    _check_placed(kernel)
    body = kernel.regions[0].blocks[0]
    core_sides.assign_sides(body, _kind_of, _result_kind, [])
    _follow_values(kernel)
    _mark_flags(body, flag_ids)
    ops = [o.operation for o in body.operations]
    moved: list[ir.Operation] = []
    for op in ops[:-1]:  # not the terminator
        if not _shared(op, moved):
            moved.append(op)
    with ir.InsertionPoint(ops[-1]), kernel.location:
        cube = scf.ExecuteRegionOp([])
        block = cube.regions[0].blocks.append()
    for op in moved:
        block.append(op.detach_from_parent())
    with ir.InsertionPoint(block), kernel.location:
        scf.YieldOp([])
    vector = cube.operation.clone(ir.InsertionPoint(ops[-1]))
    for region, side in ((cube.operation, "aic"), (vector.operation, "aiv")):
        region.attributes[ascend_attr.CORE_REGION] = ascend.core_attr(side)
        core_sides.prune(region.regions[0].blocks[0], side)
        _place_flags(region, side)
        _drop_dead(region)
    for op in [o.operation for o in body.operations]:
        if core_sides.SIDE in op.attributes:
            del op.attributes[core_sides.SIDE]
    _check_cube_without_vid(kernel, cube.operation)


@register_pass
@dataclass(frozen=True)
class AscendCombineCoresPass(Pass):
    """Splits AUTO_CV_COMBINE bodies into a cube and a vector T.Scope program with
    cross-core flags between their hand-overs through global tensors."""

    argument = "tile-ascend-combine-cores"
    anchor = "func.func"
    summary = "Split AUTO_CV_COMBINE kernels into cube and vector scopes with cross-core flags"

    target: str = target_option(AscendTarget)

    def run(self, op: ir.Operation) -> None:
        flag_ids = target_of(AscendTarget, self.target).profile.cross_core_flag_ids
        with op.context, op.location:
            for kernel in irb.collect(op, "tile.kernel"):
                if ascend_attr.COMBINE in kernel.attributes:
                    _combine(kernel, flag_ids)
