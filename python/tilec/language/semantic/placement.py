"""Where things may appear: the regions a DSL call needs and the values still in scope.

A kernel is traced as nested regions (the kernel, T.Parallel, a branch, a
loop); each region's values live until it closes. These checks run first in
every entry point, so a misplaced call is reported as such ("T.copy cannot be
used inside T.Parallel") before its operands are looked at.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from .. import builder
from .. import values as v
from ..builder import OpenRegion, RegionKind, Trace
from ..errors import DSLError
from .checks import error


def require_trace(what: str) -> Trace:
    trace = builder.active()
    if trace is None:
        raise error(f"{what} can only be used inside the body of a @T.prim_func kernel")
    if trace.pending is not None:
        raise trace.pending
    return trace


def require_kernel(what: str) -> Trace:
    trace = require_trace(what)
    if trace.current.enclosing(RegionKind.KERNEL) is None:
        raise error(f"{what} must be inside a `with T.Kernel(...)` block")
    return trace


def require_tile_context(what: str) -> Trace:
    """Tile ops act on whole tiles: inside a kernel, outside element-wise loops."""
    trace = require_kernel(what)
    parallel = trace.current.enclosing(RegionKind.PARALLEL)
    if parallel is not None:
        raise error(
            f"{what} cannot be used inside T.Parallel (line {parallel.loc.line}), whose body "
            "is element-wise scalar code; move it out of the loop"
        )
    return trace


def require_function_body(what: str, purpose: str) -> Trace:
    """`what` declares something of the whole kernel function, so it comes before
    `with T.Kernel`: `purpose` says what."""
    trace = require_trace(what)
    if trace.current.kind is not RegionKind.FUNCTION:
        raise error(
            f"{what} {purpose}: call it in the body of the kernel function, before "
            f"`with T.Kernel`, not inside {trace.current.kind.value}"
        )
    return trace


def close_region(region: OpenRegion, results: Sequence[ir.Value] = ()) -> None:
    trace = require_trace(region.kind.value)
    if trace.current is not region:
        raise error(
            f"{region.kind.value} at line {region.loc.line} ends while "
            f"{trace.current.kind.value} at line {trace.current.loc.line} is still open"
        )
    trace.close(region, results)


def abandon_region(region: OpenRegion) -> None:
    """A loop generator was closed before its body finished: `break` or `return`.

    Raising here would be lost (generators are closed by the garbage
    collector), so the error waits for the next DSL call or the end of the trace.
    """
    trace = region.trace
    if region.is_open and builder.active() is trace and trace.pending is None:
        trace.pending = DSLError(
            f"leaving {region.kind.value} with 'break' or 'return' cannot be traced: the loop "
            "body runs once, symbolically; compute a mask with T.if_then_else instead",
            region.loc,
        )


def check_visible(home: OpenRegion, what: str) -> None:
    """`what` was created in `home`, which must be open in the trace being built."""
    trace = require_trace(what)
    if home.trace is not trace:
        raise error(
            f"{what} belongs to another kernel; each @T.prim_func is traced on its own, so "
            "pass it as a parameter or create it inside this kernel"
        )
    if not home.is_open:
        hint = ""
        if home.kind in (RegionKind.THEN, RegionKind.ELSE):
            hint = (
                "; to use a value computed in a branch after the `if`, declare "
                "`x = T.alloc_var(dtype)` before it and assign to x in the branch"
            )
        raise error(
            f"{what} comes from the {home.kind.value} at line {home.loc.line} and cannot be "
            f"used after it ends{hint}"
        )


def check_buffer(buffer: v.Buffer) -> None:
    check_visible(buffer.home, f"buffer '{buffer.name}'")
