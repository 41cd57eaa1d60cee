"""The ascend backend's compiler half: `tile-to-ascend`, then the simulator's program.

`tilec.compile(kernel, target="ascend", profile="950")` lowers tile IR to
`ascend` IR (placed, multi-buffered, memory-planned, synchronized); that IR
is what the simulator runs and what `.source()` and `kernel.ir("ascend")`
show. When the sync pass runs out of event ids, the kernel is lowered again:
first with the cores of a mix kernel one iteration apart instead of two (an
automatic choice, silently), then with fewer multi-buffer slots, which a
warning reports since the kernel asked for them.
"""

from __future__ import annotations

import dataclasses
import warnings

from mlir import ir

from tilec.backends.ascend.driver import AscendBinary, AscendDriver
from tilec.backends.ascend.options import AscendOptions
from tilec.backends.base import Backend, OptionError
from tilec.diagnostics import CompileError, Diagnostic
from tilec.passes.conversion.tile_to_ascend.multi_buffer import REQUESTED_ATTR
from tilec.passes.conversion.tile_to_ascend.pipelines import tile_to_ascend
from tilec.passes.conversion.tile_to_ascend.plan_memory import SLOTS_ATTR
from tilec.targets import TargetError, target_of
from tilec.targets.ascend import AscendTarget

OUT_OF_EVENT_IDS = "out of event ids"
"""What the sync pass's error says when the pipes run out of flags."""


def emit_ascendc(module: ir.Module, target: AscendTarget) -> str:
    """`tile-opt --emit=ascendc[:<profile>]`: the AscendC C++ of a module `tile-to-ascend`
    lowered (the emitter is imported here, not by `tilec.compile`, which runs the IR)."""
    from tilec.backends.ascend.ascendc import ascendc_text

    return ascendc_text(module, target.variant)


class AscendBackend(Backend[AscendTarget, AscendOptions, AscendBinary]):
    name = "ascend"
    options_type = AscendOptions
    driver = AscendDriver()
    codegen_stage = "simulator-load"
    final_stage = "ascend"

    def configure(self, target: AscendTarget, options: AscendOptions) -> AscendTarget:
        if not options.profile or options.profile == target.variant:
            return target
        try:
            return target_of(AscendTarget, f"ascend:{options.profile}")
        except TargetError as exc:
            raise OptionError(str(exc)) from None

    def retry(self, failure: Exception, options: AscendOptions) -> AscendOptions | None:
        if not isinstance(failure, CompileError) or OUT_OF_EVENT_IDS not in str(failure):
            return None
        if not options.cross_core_skew:
            return dataclasses.replace(options, cross_core_skew=1)
        stages = options.max_stages or 4
        if options.max_stages:
            stages -= 1
        if stages < 1:
            return None
        why = next(d.render() for d in failure.diagnostics if OUT_OF_EVENT_IDS in d.message)
        warnings.warn(f"multi-buffering reduced to at most {stages} slots per loop because the "
                      f"pipes ran out of event ids: {why}", stacklevel=4)
        return dataclasses.replace(options, max_stages=stages)

    def pipeline(self, target: AscendTarget, options: AscendOptions) -> str:
        return tile_to_ascend(target, options.max_stages, options.sync, options.cross_core_skew,
                              bool(options.auto_sync))

    def codegen(
        self, module: ir.Module, entry: str, target: AscendTarget, options: AscendOptions
    ) -> AscendBinary:
        _warn_about_shrunk_loops(module)
        return AscendBinary.from_module(module, entry, target.variant, options)


def _warn_about_shrunk_loops(module: ir.Module) -> None:
    """One warning per loop that got fewer multi-buffer slots than it asked
    for because they did not fit (the bindings cannot emit warnings from a
    pass, so tile-ascend-multi-buffer records it on the loop)."""

    def visit(op: ir.Operation) -> ir.WalkResult:
        attributes = op.attributes
        if REQUESTED_ATTR in attributes:
            asked = ir.IntegerAttr(attributes[REQUESTED_ATTR]).value
            got = ir.IntegerAttr(attributes[SLOTS_ATTR]).value
            message = (f"the loop asked for {asked} multi-buffer slots but gets {got}: {asked} do "
                       f"not fit in the on-chip buffers")
            warnings.warn(Diagnostic.from_location("warning", message, op.location).render(),
                          stacklevel=6)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
