"""Builders for the `tile` dialect: generated op classes plus typed helpers.

`scope_attr` and `memref_type` build `#tile.scope<...>` memory spaces through
the native library, so no IR text is parsed on the way.
"""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from tilec import _native

from ._enum_attrs import enum_attr, member_of, register_builder
from ._tile_enum_gen import *  # noqa: F403
from ._tile_enum_gen import ReduceKind, Scope
from ._tile_ops_gen import *  # noqa: F403

register_builder("Tile_ScopeAttr", "tilecScopeAttrGet", Scope)


def scope_attr(scope: Scope | str, context: ir.Context | None = None) -> ir.Attribute:
    """`#tile.scope<scope>` from a `Scope` member or its name ("shared", ...)."""
    return enum_attr("tilecScopeAttrGet", Scope, scope, context)


def memref_type(
    shape: Sequence[int],
    element_type: ir.Type,
    scope: Scope | str | None = None,
) -> ir.MemRefType:
    """A memref in `scope`; `None` means global memory (no memory space)."""
    space = None if scope is None else scope_attr(scope, element_type.context)
    return ir.MemRefType.get(list(shape), element_type, memory_space=space)


def scope_of(type_: ir.MemRefType) -> Scope:
    """The scope a memref type lives in; a missing memory space is global."""
    space = type_.memory_space
    return Scope.global_ if space is None else member_of(Scope, space, "tilecScopeAttrValue")


def is_scope_attr(attr: ir.Attribute | None) -> bool:
    """Whether `attr` is a `#tile.scope<...>` (and not another memory space)."""
    return attr is not None and _native.enum_value("tilecScopeAttrValue", attr) >= 0


def reduce_kind_of(attr: ir.Attribute) -> ReduceKind:
    """The member of `#tile.reduce_kind<...>`, as on `tile.reduce`'s `kind`."""
    return member_of(ReduceKind, attr, "tilecReduceKindAttrValue")
