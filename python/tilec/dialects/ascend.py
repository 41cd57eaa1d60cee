"""Builders for the `ascend` dialect: generated op classes plus typed helpers
for memory spaces, pipes and core types (built without parsing IR text)."""

from __future__ import annotations

from collections.abc import Sequence

from mlir import ir

from ._ascend_enum_gen import *  # noqa: F403
from ._ascend_enum_gen import CoreType, MemSpace, Pipe
from ._ascend_ops_gen import *  # noqa: F403
from ._enum_attrs import enum_attr, member_of, register_builder

register_builder("Ascend_MemSpaceAttr", "tilecMemSpaceAttrGet", MemSpace)
register_builder("Ascend_PipeAttr", "tilecPipeAttrGet", Pipe)
register_builder("Ascend_CoreTypeAttr", "tilecCoreTypeAttrGet", CoreType)


def mem_attr(space: MemSpace | str, context: ir.Context | None = None) -> ir.Attribute:
    """`#ascend.mem<space>`."""
    return enum_attr("tilecMemSpaceAttrGet", MemSpace, space, context)


def pipe_attr(pipe: Pipe | str, context: ir.Context | None = None) -> ir.Attribute:
    """`#ascend.pipe<pipe>`."""
    return enum_attr("tilecPipeAttrGet", Pipe, pipe, context)


def core_attr(core: CoreType | str, context: ir.Context | None = None) -> ir.Attribute:
    """`#ascend.core<core>`, the value of a kernel function's `ascend.kernel` attribute."""
    return enum_attr("tilecCoreTypeAttrGet", CoreType, core, context)


def memref_type(
    shape: Sequence[int], element_type: ir.Type, space: MemSpace | str
) -> ir.MemRefType:
    """A memref in an NPU memory space (use `ir.ShapedType.get_dynamic_size()` for `?`)."""
    return ir.MemRefType.get(
        list(shape), element_type, memory_space=mem_attr(space, element_type.context)
    )


def mem_space_of(type_: ir.MemRefType) -> MemSpace:
    """The memory space of an NPU memref type."""
    if type_.memory_space is None:
        raise ValueError(f"{type_} has no #ascend.mem memory space")
    return member_of(MemSpace, type_.memory_space, "tilecMemSpaceAttrValue")
