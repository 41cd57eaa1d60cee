"""Block indices, core regions and synchronization: SetFlag/WaitFlag, PipeBarrier,
cross-core flags and SyncAll."""

from __future__ import annotations

from mlir import ir

from tilec.backends.ascend.ascendc.base import EmitterBase
from tilec.backends.ascend.ascendc.tables import HARD_EVENTS, PIPE
from tilec.backends.ascend.ascendc.text import keyword
from tilec.diagnostics import error


class Sync(EmitterBase):
    """Grid indices, `ASCEND_IS_AIC/AIV` regions and flags."""

    def op_ascend_block_idx(self, op: ir.Operation) -> None:
        self.marker(op)
        if self.kind == "mix":
            # GetBlockIdx() on an AIV of a MIX_AIC_1_2 kernel is 2 * block + sub-block, on
            # the AIC the block (machine.hardware_block_idx): dividing by GetTaskRatio(),
            # 2 on an AIV and 1 on the AIC, gives each core the block of its AIC.
            self.bind(op, "static_cast<int64_t>(GetBlockIdx() / GetTaskRatio())")
        else:
            self.bind(op, "static_cast<int64_t>(GetBlockIdx())")

    def op_ascend_block_num(self, op: ir.Operation) -> None:
        self.marker(op)
        self.bind(op, "static_cast<int64_t>(GetBlockNum())")

    def op_ascend_sub_block_idx(self, op: ir.Operation) -> None:
        self.marker(op)
        self.bind(op, "static_cast<int64_t>(GetSubBlockIdx())")

    def op_ascend_core(self, op: ir.Operation) -> None:
        core = keyword(op.attributes["core"])
        self.marker(op, core)
        self.line(f"if ASCEND_IS_{core.upper()} {{")
        self.indent += 1
        self.block(op.regions[0].blocks[0])
        self.indent -= 1
        self.line("}")

    def op_ascend_set_flag(self, op: ir.Operation) -> None:
        self.flag(op, "SetFlag")

    def op_ascend_wait_flag(self, op: ir.Operation) -> None:
        self.flag(op, "WaitFlag")

    def op_ascend_pipe_barrier(self, op: ir.Operation) -> None:
        self.marker(op)
        pipe = keyword(op.attributes["pipe"])
        if pipe == "s":
            # PipeBarrier(ISASI).md: the hardware orders the scalar pipe, and the call does
            # not take PIPE_S (a static_assert on arch 3510)
            self.line("// the scalar pipe is in order: no PipeBarrier")
            return
        self.line(f"PipeBarrier<PIPE_{PIPE[pipe]}>();")

    def op_ascend_cross_core_set_flag(self, op: ir.Operation) -> None:
        mode = ir.IntegerAttr(op.attributes["mode"]).value
        pipe = PIPE[keyword(op.attributes["pipe"])]
        self.marker(op)
        flag = ir.IntegerAttr(op.attributes["flag"]).value
        self.line(f"CrossCoreSetFlag<{mode}, PIPE_{pipe}>({flag});")

    def op_ascend_cross_core_wait_flag(self, op: ir.Operation) -> None:
        flag = ir.IntegerAttr(op.attributes["flag"]).value
        pipe = keyword(op.attributes["pipe"]) if "pipe" in op.attributes else "s"
        self.marker(op)
        if pipe == "s":
            self.line(f"CrossCoreWaitFlag({flag});")
        else:
            self.line(f"CrossCoreWaitFlag<{2 if self.kind == 'mix' else 0}, PIPE_{PIPE[pipe]}>"
                      f"({flag});")

    def op_ascend_sync_all(self, op: ir.Operation) -> None:
        self.marker(op)
        # the default SyncAll<true> syncs vector cores only; a mix kernel syncs all of them
        self.line("SyncAll<false>();" if self.kind == "mix" else "SyncAll();")

    def flag(self, op: ir.Operation, call: str) -> None:
        src = PIPE[keyword(op.attributes["src"])]
        dst = PIPE[keyword(op.attributes["dst"])]
        event = ir.IntegerAttr(op.attributes["event"]).value
        if f"{src}_{dst}" not in HARD_EVENTS:
            raise error(f"AscendC has no HardEvent for a flag from {src} to {dst}", op.location)
        self.marker(op)
        self.line(f"{call}<HardEvent::{src}_{dst}>({event});")
