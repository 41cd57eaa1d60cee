"""What Python syntax means on the DSL's values: the interface to the semantic rules.

The value classes (`values`, `dtypes`) define their operators, subscripts and
calls in their class bodies, but what `a + b` or `buf[i] = x` means is a rule
of the semantic layer, which sits above the classes: it imports them, so they
cannot import it, not even inside a function (test_layering counts those
imports too). They call the rules through `Rules`, which the `semantic`
package installs when it is imported; `tilec.language` imports it before any
kernel can be traced. This module imports nothing of the DSL.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Rules:
    """The semantic functions behind Python syntax on DSL values (see `semantic`)."""

    binary: Callable[[str, Any, Any], Any]
    """`a op b` for arithmetic and bit operators."""
    compare: Callable[[str, Any, Any], Any]
    """`a < b`, `a == b`, ..."""
    negate: Callable[[Any], Any]
    """`-a`"""
    invert: Callable[[Any], Any]
    """`~a`"""
    absolute: Callable[[Any], Any]
    """`abs(a)`"""
    cast: Callable[[Any, Any], Any]
    """`a.astype(dtype)`, `T.float32(a)`"""
    subscript: Callable[[Any, Any], Any]
    """`buf[key]`"""
    store: Callable[[Any, Any, Any], None]
    """`buf[key] = x`"""
    store_var: Callable[[Any, Any], Any]
    """`x += y` on a T.alloc_var: stores into it"""


_installed: Rules | None = None


def install(rules: Rules) -> None:
    global _installed
    _installed = rules


def rules() -> Rules:
    assert _installed is not None, "importing tilec.language.semantic installs the rules"
    return _installed
