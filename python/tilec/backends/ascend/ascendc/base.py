"""The emitter's state and the helpers every part of it uses: names, lines,
parameter structs, op markers, the op dispatch, and GM extents clamped at run time."""

from __future__ import annotations

from mlir import ir

from tilec.backends.ascend.ascendc.tables import (
    ARCH,
    CASTS,
    INT_BINARY,
    MIN_MAX,
    SCALAR_CTYPE,
    STRUCTS,
)
from tilec.backends.ascend.ascendc.text import Tensor, add_index, element_name, keyword, mul_index
from tilec.diagnostics import error
from tilec.targets.ascend import attributes as ascend_attr
from tilec.targets.ascend.machine import PIPE_NAMES, ordered_pipes
from tilec.targets.ascend.profiles import get_profile


class EmitterBase:
    """One kernel function's C++, built line by line in IR order."""

    def __init__(self, func: ir.Operation, profile: str) -> None:
        self.func = func
        self.profile = get_profile(profile)
        self.profile_name = profile
        self.arch = ARCH[profile]
        self.lines: list[str] = []
        self.indent = 1
        self.names: dict[ir.Value, str] = {}
        self.tensors: dict[ir.Value, Tensor] = {}
        self.counter = 0
        self.ordinal = 0
        self.markers: list[str] = []
        self.params: list[tuple[str, str]] = []
        self.scratch_offset = 0
        self.scratch_bytes = 0
        self.reduce_sum_at: ir.Location | None = None
        """Where the first ReduceSum is (set by `plan`), whose 910b form takes event ids."""
        self.uses_fixpipe_to_ub = False
        """Whether a Fixpipe drains into UB, whose FixpipeConfig the source defines."""
        self.staging_offset = 0
        self.staging_bytes = 0
        """Where the UB staging area of the copies of rows under 32 bytes starts (after the
        buffers and the scratch), and the most bytes one of them takes (set as they emit)."""
        self.compact_reach = 0
        """The end of the UB bytes the headers' CPU-mode check of a Compact DataCopyPad asks
        for (set as the copies emit; see `note_compact_reach`)."""
        self.alloc_offsets: dict[str, int] = {}
        self.views: set[str] = set()
        self.ends: dict[str, int] = {}
        """Bytes used of each on-chip memory (set by the emitter's `plan`)."""
        self.flag_events: dict[frozenset[str], set[int]] = {}
        """The event ids the kernel's flags use, per pair of pipes (set by `plan`)."""
        self.kind = keyword(func.attributes[ascend_attr.KERNEL])
        self.ordered = ordered_pipes(self.profile, self.kind)
        """The pipes whose dependent calls need no PipeBarrier on this kernel's cores."""

    def same_pipe_barrier(self, pipe: int, indent: str = "") -> None:
        """Orders two dependent calls of one op on `pipe`, unless the hardware does."""
        if pipe not in self.ordered:
            self.line(f"{indent}PipeBarrier<PIPE_{PIPE_NAMES[pipe]}>();")

    def spare_event(self, op: ir.Operation, src: str, dst: str, purpose: str) -> int:
        """An event id that no flag of the kernel between pipes `src` and `dst` uses, for a
        handshake the emitter adds around one op (the IR's flags own the other ids, and one
        of them may be pending there); none left is an error at `op`."""
        used = self.flag_events.get(frozenset((src, dst)), set())
        spare = [e for e in range(self.profile.flag_event_ids) if e not in used]
        if not spare:
            # "out of event ids", as the sync pass says it: the backend lowers the kernel
            # again with fewer flags (AscendBackend.retry)
            raise error(f"out of event ids: every one of the {self.profile.flag_event_ids} "
                        f"{src.upper()} <-> {dst.upper()} event ids is in use, none is left to "
                        f"{purpose}", op.location)
        return spare[-1]

    def handshake(self, src: str, dst: str, event: int) -> None:
        """Pipe `dst` waits until pipe `src` has come this far (a SetFlag/WaitFlag pair)."""
        self.line(f"SetFlag<HardEvent::{src}_{dst}>({event});")
        self.line(f"WaitFlag<HardEvent::{src}_{dst}>({event});")

    def on_vector_core(self, op: ir.Operation) -> bool:
        """Whether `op` runs on a vector core: an aiv kernel, or a mix kernel's aiv region."""
        if self.kind == "aiv":
            return True
        parent = op.parent
        while parent is not None and parent.name != "func.func":
            if parent.name == "ascend.core":
                return keyword(parent.attributes["core"]) == "aiv"
            parent = parent.parent
        return False

    def fresh(self, stem: str) -> str:
        self.counter += 1
        return f"{stem}{self.counter}"

    def line(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def value(self, v: ir.Value) -> str:
        if v in self.names:
            return self.names[v]
        raise error("value used before its definition in the AscendC emitter",
                    v.owner.location if isinstance(v.owner, ir.Operation | ir.OpView)
                    else self.func.location)

    def tensor(self, v: ir.Value, op: ir.Operation) -> Tensor:
        if v not in self.tensors:
            raise error("the AscendC emitter does not know this buffer", op.location)
        return self.tensors[v]

    def struct(self, name: str, values: dict[str, str], op: ir.Operation,
               element: str | None = None) -> str:
        """Declares a parameter struct (of `element` for a template) filled by field name;
        returns its name."""
        fields = dict(STRUCTS[self.arch][name])
        var = self.fresh("p")
        self.line(f"{name}{f'<{element}>' if element else ''} {var};")
        for key, text in values.items():
            if key not in fields:
                raise error(f"{name} has no field '{key}' on arch {self.arch}", op.location)
            self.line(f"{var}.{key} = {text};")
        return var

    def marker(self, op: ir.Operation, detail: str = "") -> None:
        name = op.name
        self.markers.append(name)
        self.line(f"// [{self.ordinal}] {name}{(' ' + detail) if detail else ''}")
        self.ordinal += 1

    def memref_info(self, t: ir.MemRefType) -> tuple[str, str]:
        space = keyword(t.memory_space) if t.memory_space is not None else "gm"
        return element_name(t.element_type), space

    def block(self, block: ir.Block) -> None:
        for op in block.operations:
            self.op(op.operation)

    def op(self, op: ir.Operation) -> None:
        name = op.name
        handler = getattr(self, "op_" + name.replace(".", "_"), None)
        if handler is not None:
            handler(op)
        elif name in INT_BINARY:
            self.bind(op, f"{self.value(op.operands[0])} {INT_BINARY[name]} "
                          f"{self.value(op.operands[1])}")
        elif name in MIN_MAX:
            a, b = (self.value(x) for x in op.operands)
            self.bind(op, f"({a} {MIN_MAX[name]} {b}) ? {a} : {b}")
        elif name in CASTS:
            self.bind(op, f"static_cast<{SCALAR_CTYPE[str(op.results[0].type)]}>"
                          f"({self.value(op.operands[0])})")
        elif name.startswith("math."):
            raise error(f"'{name}' on a scalar has no AscendC form (no scalar helper and no "
                        "one-element vector call computes it)", op.location)
        else:
            raise error(f"the AscendC emitter does not support '{name}'", op.location)

    def bind(self, op: ir.Operation, expr: str) -> None:
        result = op.results[0]
        var = self.fresh("v")
        self.line(f"{SCALAR_CTYPE[str(result.type)]} {var} = {expr};")
        self.names[result] = var

    def linear(self, tensor: Tensor, offsets: list[str]) -> str:
        """Element offset of `tensor[offsets]` from the tensor's base."""
        index = tensor.offset
        for i, s in zip(offsets, tensor.strides, strict=True):
            index = add_index(index, mul_index(i, s))
        return index

    def valid_extent(self, bound: str, start: str, extent: int) -> str:
        """How many of `extent` indices from `start` lie below `bound` (edge tiles)."""
        if bound.isdigit() and start.isdigit():
            return str(max(0, min(extent, int(bound) - int(start))))
        var = self.fresh("n")
        self.line(f"int64_t {var} = {bound} - {start};")
        self.line(f"{var} = {var} < 0 ? 0 : ({var} > {extent} ? {extent} : {var});")
        return var

    def partial(self, valid: list[str], sizes: list[int]) -> str | None:
        """None where every extent is whole; "" where one is short statically; else the
        run-time condition that one is short."""
        if any(v.isdigit() and int(v) < s for v, s in zip(valid, sizes, strict=True)):
            return ""
        checks = [f"{v} < {s}" for v, s in zip(valid, sizes, strict=True) if not v.isdigit()]
        return " || ".join(checks) if checks else None

    def open_guard(self, condition: str) -> None:
        if condition:
            self.line(f"if ({condition}) {{")
            self.indent += 1

    def close_guard(self, condition: str) -> None:
        if condition:
            self.indent -= 1
            self.line("}")

    def close_loops(self, opened: int) -> None:
        for _ in range(opened):
            self.indent -= 1
            self.line("}")
