"""Enum attributes built by the native library instead of parsed from text.

mlir-tblgen's generated attribute builders parse `#dialect.name<value>`;
these are re-registered to call the C constructors, so op builders and user
code get the same attributes without going through the parser.
"""

from __future__ import annotations

from enum import IntEnum

from mlir import ir

from tilec import _native


def enum_attr(getter: str, enum: type[IntEnum], value: IntEnum | str, context=None) -> ir.Attribute:
    """The attribute for `value`, a member of `enum` or its name."""
    if isinstance(value, str):
        names = {str(member): member for member in enum}
        if value not in names:
            raise ValueError(
                f"unknown {enum.__name__} '{value}'; expected one of {', '.join(names)}"
            )
        value = names[value]
    return _native.enum_attr(getter, context or ir.Context.current, int(value))


def register_builder(attr_name: str, getter: str, enum: type[IntEnum]) -> None:
    """Makes generated op builders construct `attr_name` through `getter`."""
    ir.register_attribute_builder(attr_name, replace=True)(
        lambda value, context: enum_attr(getter, enum, value, context)
    )


def member_of(enum: type[IntEnum], attr: ir.Attribute, reader: str) -> IntEnum:
    """The enum member an attribute like `#tile.scope<shared>` denotes, read
    by the native `reader` (ValueError for an attribute of another kind)."""
    value = _native.enum_value(reader, attr)
    if value < 0:
        raise ValueError(f"{attr} is not a {enum.__name__} attribute")
    return enum(value)
