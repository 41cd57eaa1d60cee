"""Builders for the `tile` dialect: generated op classes plus typed helpers.

`scope_attr` and `memref_type` build `#tile.scope<...>` memory spaces through
the native library, so no IR text is parsed on the way.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from tilec import _native

from ._tile_enum_gen import *  # noqa: F403
from ._tile_enum_gen import Scope
from ._tile_ops_gen import *  # noqa: F403


def scope_attr(scope: Scope | str, context: ir.Context | None = None) -> ir.Attribute:
    """`#tile.scope<scope>` from a `Scope` member or its name ("shared", ...)."""
    if isinstance(scope, str):
        names = {str(s): s for s in Scope}
        if scope not in names:
            raise ValueError(f"unknown tile scope '{scope}'; expected one of {', '.join(names)}")
        scope = names[scope]
    return _native.enum_attr("tilecScopeAttrGet", context or ir.Context.current, int(scope))


def memref_type(
    shape: Sequence[int],
    element_type: ir.Type,
    scope: Scope | str | None = None,
) -> ir.MemRefType:
    """A memref in `scope`; `None` means global memory (no memory space)."""
    space = None if scope is None else scope_attr(scope, element_type.context)
    return ir.MemRefType.get(list(shape), element_type, memory_space=space)


def scope_of(memref_type_: ir.MemRefType) -> Scope:
    """The scope a memref type lives in; a missing memory space is global."""
    space = memref_type_.memory_space
    if space is None:
        return Scope.global_
    text = str(space)
    if not text.startswith("#tile.scope<"):
        raise ValueError(f"memory space {text} is not a #tile.scope")
    return {str(s): s for s in Scope}[text[len("#tile.scope<") : -1]]
