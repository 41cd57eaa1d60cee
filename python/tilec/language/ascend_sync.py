"""tilelang-ascend's hand-written synchronization (its expert mode, Programming Guide §4.2).

An expert kernel orders the pipes of each core itself: `T.set_flag("MTE2", "V", 0)`
after a copy and `T.wait_flag("MTE2", "V", 0)` before the vector op that reads it,
`T.pipe_barrier("V")` between dependent ops of one pipe, `T.barrier_all()`, and
between the cube and the vector cores `T.set_cross_flag("FIX", 0)` /
`T.wait_cross_flag(0)`; `T.sync_all()` is a grid barrier. Each call becomes the
`ascend` dialect's op (`ascend.set_flag`, `ascend.wait_flag`, `ascend.pipe_barrier`,
`ascend.cross_core_set_flag`, `ascend.cross_core_wait_flag`, `ascend.sync_all`)
at the author's line, so the simulator's race and deadlock reports point there.

The ascend pipeline keeps these ops as written unless the kernel is compiled with
`auto_sync=True` (tilelang-ascend's `TL_ASCEND_AUTO_SYNC`), which replaces the
flags and barriers within a core by tilec's own (`tile-ascend-split-scopes`).
Pipe names are upstream's, in either case: "MTE1", "MTE2", "MTE3", "M", "V",
"FIX", "S" (and "ALL" for a barrier).
"""

from __future__ import annotations

from collections.abc import Callable

from mlir import ir
from mlir.dialects import arith, scf

from tilec.dialects import ascend
from tilec.targets.ascend import attributes as ascend_attr

from . import semantic
from .source import dsl_api
from .values import Scalar

PIPES = ("s", "v", "m", "mte1", "mte2", "mte3", "fix")
"""The pipes a flag names (the ascend dialect's `#ascend.pipe`, without `all`)."""
MAX_EVENT_ID = 7
"""Event ids of one (source, destination) pair: 0-7 (AscendC `HardEvent`'s
`SetFlag`/`WaitFlag` docs; ../shared/ASCEND.md, Synchronization)."""
MAX_CROSS_FLAG = 10
"""Cross-core flags 0-10; 11-14 belong to `SyncAll` (AscendC `CrossCoreSetFlag`)."""
CROSS_MODES = (0, 1, 2, 4)
"""`CrossCoreSetFlag<mode>`: 0 all cores of a kind, 1 the two AIVs of a core,
2 AIC <-> AIVs of a core, 4 AIC <-> one AIV (950)."""


def _pipe(name: object, what: str, allow_all: bool = False) -> str:
    """The dialect's keyword for an upstream pipe name ("MTE2" -> "mte2")."""
    names = (*PIPES, "all") if allow_all else PIPES
    if isinstance(name, str) and name.lower() in names:
        return name.lower()
    spelled = ", ".join(f'"{n.upper()}"' for n in names)
    raise semantic.error(f"{what}: unknown pipe {name!r}; expected one of {spelled}")


def _small_int(value: object, what: str, top: int) -> int:
    number = semantic.python_int(value, what)
    if number is None or not 0 <= number <= top:
        raise semantic.error(f"{what} must be a Python int in [0, {top}] but got {value!r}")
    return number


def _flag(src: object, dst: object, event_id: object, what: str,
          build: Callable[..., object]) -> None:
    """One `build(src, dst, event)` flag op, or, for an event id computed at run time
    (`cur = k % stages`), one per possible id, each under `if event_id == id`: the
    hardware's event is part of the instruction."""
    trace = semantic.require_tile_context(what)
    source, destination = _pipe(src, f"{what} source"), _pipe(dst, f"{what} destination")
    if source == destination:
        raise semantic.error(f'{what}: the source and destination pipes are both "{src}"; '
                             f'order one pipe with T.pipe_barrier("{src}")')
    pipes = (ascend.pipe_attr(source), ascend.pipe_attr(destination))
    if not isinstance(event_id, Scalar):
        event = _small_int(event_id, f"{what}: the event id", MAX_EVENT_ID)
        with trace.emitting():
            build(*pipes, event)
        return
    value = semantic.index_value(event_id, f"{what}: the event id")
    low, high = _bounds(value) or (0, MAX_EVENT_ID)
    with trace.emitting():
        for event in range(max(low, 0), min(high, MAX_EVENT_ID) + 1):
            equal = arith.cmpi(arith.CmpIPredicate.eq, value,
                               arith.constant(ir.IndexType.get(), event))
            branch = scf.IfOp(equal)
            with ir.InsertionPoint(branch.then_block):
                build(*pipes, event)
                scf.YieldOp([])


def _bounds(value: ir.Value) -> tuple[int, int] | None:
    """Bounds of an integer the trace computed (`k % stages` is within (-stages,
    2 * stages)), from constants, remainders, sums and selects; None when unknown.
    Each possible event id costs an `if` and holds that id for the kernel."""
    owner = value.owner
    name = owner.name if isinstance(owner, ir.OpView | ir.Operation) else ""
    operands = list(owner.operands) if name else []
    if name == "arith.constant":
        number = ir.IntegerAttr(owner.attributes["value"]).value
        return number, number
    if name == "arith.index_cast":
        return _bounds(operands[0])
    if name in ("arith.remsi", "arith.remui"):
        divisor = _bounds(operands[1])
        if divisor is not None and divisor[0] == divisor[1] > 0:
            return (0 if name == "arith.remui" else 1 - divisor[0]), divisor[0] - 1
    if name in ("arith.addi", "arith.select"):
        parts = [_bounds(v) for v in operands[-2:]]
        if None in parts:
            return None
        (a, b), (c, d) = parts
        return (a + c, b + d) if name == "arith.addi" else (min(a, c), max(b, d))
    return None


def _emit(what: str, build: Callable[[], object]) -> None:
    trace = semantic.require_tile_context(what)
    with trace.emitting():
        build()


@dsl_api
def set_flag(src: str, dst: str, eventId: object) -> None:
    """Signals pipe `dst` from pipe `src` once `src` has finished everything before
    (AscendC `SetFlag<SRC_DST>(eventId)`)."""
    _flag(src, dst, eventId, "T.set_flag", ascend.set_flag)


@dsl_api
def wait_flag(src: str, dst: str, eventId: object) -> None:
    """Stalls pipe `dst` until the flag set by `T.set_flag(src, dst, eventId)`, and
    clears it (AscendC `WaitFlag<SRC_DST>(eventId)`)."""
    _flag(src, dst, eventId, "T.wait_flag", ascend.wait_flag)


@dsl_api
def pipe_barrier(pipe: str) -> None:
    """Later ops on `pipe` start after every earlier one on it has finished
    (AscendC `PipeBarrier<PIPE_*>()`; "ALL" for every pipe)."""
    name = _pipe(pipe, "T.pipe_barrier", allow_all=True)
    if name == "s":
        # The scalar pipe is ordered by the hardware; PipeBarrier<PIPE_S> is an
        # error (AscendC PipeBarrier documentation, ../shared/ASCEND.md).
        raise semantic.error('T.pipe_barrier("S"): the scalar pipe is in order already '
                             "(the hardware rejects a PIPE_S barrier)")
    _emit("T.pipe_barrier", lambda: ascend.pipe_barrier(ascend.pipe_attr(name)))


@dsl_api
def barrier_all() -> None:
    """Every later op waits for every earlier op on every pipe (`PipeBarrier<PIPE_ALL>`)."""
    _emit("T.barrier_all", lambda: ascend.pipe_barrier(ascend.pipe_attr("all")))


@dsl_api
def set_cross_flag(pipe: str, flag: int, mode: int = 2) -> None:
    """Increments the cross-core semaphore `flag` of the cores `mode` selects, once
    `pipe` has finished everything before (AscendC `CrossCoreSetFlag<mode, pipe>`)."""
    what = "T.set_cross_flag"
    name = _pipe(pipe, what)
    number = _small_int(flag, f"{what}: the flag", MAX_CROSS_FLAG)
    if mode not in CROSS_MODES or isinstance(mode, bool):
        raise semantic.error(f"{what}: mode must be one of {CROSS_MODES} but got {mode!r}")
    _emit(what, lambda: ascend.cross_core_set_flag(mode, ascend.pipe_attr(name), number))


@dsl_api
def wait_cross_flag(flag: int, pipe: str = "") -> None:
    """Waits until the cross-core semaphore `flag` is positive and decrements it
    (AscendC `CrossCoreWaitFlag(flag)`); by default the scalar unit waits, which
    holds back everything after it, else only `pipe` does."""
    what = "T.wait_cross_flag"
    number = _small_int(flag, f"{what}: the flag", MAX_CROSS_FLAG)
    name = _pipe(pipe, what) if pipe else None
    _emit(what, lambda: ascend.cross_core_wait_flag(
        number, pipe=ascend.pipe_attr(name) if name else None))


@dsl_api
def sync_all() -> None:
    """Every core of the launch waits here for all the others (AscendC `SyncAll()`)."""
    _emit("T.sync_all", ascend.sync_all)


FUNC_ATTRS = ("enable_auto_sync",)
"""The function attributes `T.func_attr` takes (tilelang-ascend's README: auto-sync for
one kernel, as `TL_ASCEND_AUTO_SYNC` for all)."""


@dsl_api
def func_attr(attrs: dict) -> None:
    """`T.func_attr({"enable_auto_sync": True})`: tilec synchronizes the pipes of this
    kernel in place of its author's flags and barriers (`ascend.auto_sync` on the
    function, read by tile-ascend-split-scopes); a kernel without scopes or flags of
    its author is tilec's to synchronize anyway."""
    what = "T.func_attr"
    trace = semantic.require_trace(what)
    if not isinstance(attrs, dict):
        raise semantic.error(f"{what} takes a dict {{name: value}} but got {type(attrs).__name__}")
    for name, value in attrs.items():
        if name not in FUNC_ATTRS:
            raise semantic.error(f"{what}: unknown attribute {name!r}; tilec takes "
                                 f"{', '.join(repr(n) for n in FUNC_ATTRS)}")
        if not isinstance(value, bool):
            raise semantic.error(f"{what}: {name!r} takes True or False but got {value!r}")
        if value:
            trace.function.attributes[ascend_attr.AUTO_SYNC] = ir.UnitAttr.get(trace.context)
