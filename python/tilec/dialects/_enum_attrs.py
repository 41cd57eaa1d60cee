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


def member_of(enum: type[IntEnum], attr: ir.Attribute, prefix: str) -> IntEnum:
    """The enum member an attribute like `#tile.scope<shared>` denotes."""
    text = str(attr)
    if not (text.startswith(prefix + "<") and text.endswith(">")):
        raise ValueError(f"{text} is not a {prefix}<...> attribute")
    return {str(m): m for m in enum}[text[len(prefix) + 1 : -1]]
